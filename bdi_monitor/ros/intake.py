"""What the monitor node does with each BDI-state message (plain Python, no rclpy).

:meth:`Intake.take` is the node's whole per-message work: decode the text and count it
(:class:`~bdi_monitor.ros.stream.StreamStats`), advance the core on an accepted record
(:meth:`~bdi_monitor.ros.port.MonitorPort.advance`) and say whether the diagnostics must be
published now (a verdict value or the stream's health changed). The verdicts with their
evidence are asked of the core when the node publishes (:meth:`Intake.verdicts`), not per
message. ``bench/monitor`` times this same code as the node path.
"""

from __future__ import annotations

from collections.abc import Callable

from bdi_monitor.ros.port import MonitorPort
from bdi_monitor.ros.stream import StreamStats
from bdi_monitor.verdict import Verdict


class Intake:
    """The BDI-state stream of one node and the core it feeds (None: statistics only)."""

    def __init__(self, core: MonitorPort | None,
                 on_error: Callable[[dict, Exception], None] | None = None) -> None:
        """``on_error(record, error)`` is told of every exception the core raised."""
        self.stream = StreamStats()
        self.core = core
        self.core_errors = 0
        self.on_error = on_error
        #: the verdict values after the last record the core took (None: no record yet)
        self.values: tuple[str, ...] | None = None

    def take(self, text: str, stamp_ns: int) -> bool:
        """Take one message received at ``stamp_ns``; True when the diagnostics must be
        published now. A core that raises is counted and told (the node stays up)."""
        was_healthy = self.stream.healthy()
        record = self.stream.accept(text)
        changed = self.stream.healthy() != was_healthy
        if record is not None and self.core is not None:
            try:
                values = tuple(self.core.advance(record, stamp_ns))
            except Exception as error:  # the core must not take the node down
                self.core_errors += 1
                if self.on_error is not None:
                    self.on_error(record, error)
                return changed
            changed |= values != self.values
            self.values = values
        return changed

    def verdicts(self) -> list[Verdict]:
        """The core's current verdicts once it took a record (none before)."""
        if self.core is None or self.values is None:
            return []
        return self.core.verdicts()
