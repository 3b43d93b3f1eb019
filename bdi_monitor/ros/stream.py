"""Transport bookkeeping of the BDI-state stream (plain Python, constant memory).

Decodes each BDI-state message and counts what arrived: received, malformed (by reason),
duplicates, out-of-order and gaps in a run's ``seq``, and new runs (a new ``run_id``).
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
    runs: int = 0
    run_id: str | None = None
    last_seq: int | None = None
    malformed: Counter = field(default_factory=Counter)

    def accept(self, text: str) -> dict | None:
        """Decode ``text``; ``None`` if it is malformed, a duplicate or older than the last of its
        run. A record of another run starts a new run (the previous one is not revisited)."""
        self.received += 1
        try:
            record = wire.decode_record(text)
        except wire.WireError as error:
            self.malformed[error.reason] += 1
            return None
        seq, last = record["seq"], self.last_seq
        if record["run_id"] != self.run_id:
            self.runs += 1
            self.run_id, last = record["run_id"], None
        if last is not None and seq <= last:
            if seq == last:
                self.duplicates += 1
            else:
                self.out_of_order += 1
            return None
        expected = 0 if last is None else last + 1
        if seq > expected:
            self.gaps += seq - expected
        self.last_seq = seq
        self.accepted += 1
        return record

    def as_values(self) -> dict[str, str]:
        values = {"received": self.received, "accepted": self.accepted,
                  "duplicates": self.duplicates, "out_of_order": self.out_of_order,
                  "gaps": self.gaps, "runs": self.runs, "run_id": self.run_id or "-",
                  "malformed": sum(self.malformed.values()),
                  "last_seq": "-" if self.last_seq is None else self.last_seq}
        values.update({f"malformed.{reason}": n for reason, n in sorted(self.malformed.items())})
        return {key: str(value) for key, value in values.items()}

    def healthy(self) -> bool:
        return not (self.malformed or self.duplicates or self.out_of_order or self.gaps)
