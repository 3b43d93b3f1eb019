"""Transport bookkeeping of the BDI-state stream (plain Python, constant memory).

Decodes each message's wire envelope and counts what arrived: received, malformed (by reason),
duplicates, out-of-order, gaps in the sequence, publisher restarts (sequence back to 0).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bdi_supervisor.ros import wire


@dataclass
class StreamStats:
    """Counters over one topic; :meth:`accept` returns the envelopes to hand to the core."""

    received: int = 0
    accepted: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    gaps: int = 0
    restarts: int = 0
    last_seq: int | None = None
    malformed: Counter = field(default_factory=Counter)

    def accept(self, text: str) -> wire.Envelope | None:
        """Decode ``text``; ``None`` if it is malformed, a duplicate or older than the last."""
        self.received += 1
        try:
            envelope = wire.decode(text, wire.BDI_STATE)
        except wire.WireError as error:
            self.malformed[error.reason] += 1
            return None
        seq, last = envelope.seq, self.last_seq
        if last is not None and seq <= last:
            if seq == 0:
                self.restarts += 1
            elif seq == last:
                self.duplicates += 1
                return None
            else:
                self.out_of_order += 1
                return None
        elif last is not None and seq > last + 1:
            self.gaps += seq - last - 1
        self.last_seq = seq
        self.accepted += 1
        return envelope

    def as_values(self) -> dict[str, str]:
        values = {"received": self.received, "accepted": self.accepted,
                  "duplicates": self.duplicates, "out_of_order": self.out_of_order,
                  "gaps": self.gaps, "restarts": self.restarts,
                  "malformed": sum(self.malformed.values()),
                  "last_seq": "-" if self.last_seq is None else self.last_seq}
        values.update({f"malformed.{reason}": n for reason, n in sorted(self.malformed.items())})
        return {key: str(value) for key, value in values.items()}

    def healthy(self) -> bool:
        return not (self.malformed or self.duplicates or self.out_of_order or self.gaps)
