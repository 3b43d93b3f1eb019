"""The interface between the monitor node and the monitor core (plain Python, no rclpy).

The node owns transport (decoding the wire envelope, sequence bookkeeping, publishing
``DiagnosticArray``); the core owns meaning. The core module :data:`CORE_MODULE` provides
``create_monitor(mission: Path) -> MonitorPort``; the node calls it once at start-up, then
:meth:`MonitorPort.advance` once per BDI-state record, in arrival order, from one thread, and
:meth:`MonitorPort.verdicts` when it publishes. The :class:`~bdi_monitor.verdict.Verdict` it
returns is the core's type, re-exported here.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from bdi_monitor.verdict import VALUES, Verdict

CORE_MODULE = "bdi_monitor.monitor"
CORE_FACTORY = "create_monitor"
__all__ = ["CORE_FACTORY", "CORE_MODULE", "VALUES", "CoreUnavailable", "MonitorPort", "Verdict",
           "create_monitor"]

class MonitorPort(Protocol):
    """What the monitor node needs of the core."""

    def launch_verdicts(self) -> list[Verdict]:
        """Model-checking results of every property, computed once at start-up."""

    def advance(self, record: dict[str, Any], stamp_ns: int) -> Sequence[str]:
        """Advance on one BDI-state record (schema ``bdi_supervisor/bdi_state``, already checked
        for schema, version, ``run_id`` and ``seq``; duplicates and records older than the
        last of their run are dropped by the node) received at ``stamp_ns`` (node clock);
        return every property's verdict value, in a fixed order (the node publishes at once
        when one changed).

        Must not raise on unexpected records: unknown states, duplicates or records out of order
        are the core's to count (see :meth:`counters`) and to report as ``out_of_model`` or
        ``inconclusive``.
        """

    def verdicts(self) -> list[Verdict]:
        """Every property's current verdict with its evidence (asked when the node publishes)."""

    def counters(self) -> dict[str, int]:
        """Counts of records the core could not place (malformed body, unknown state, ...)."""


class CoreUnavailable(RuntimeError):
    """The monitor core is not installed in this tree."""


def create_monitor(mission: Path) -> MonitorPort:
    """Build the core's monitor for ``mission`` (raises :class:`CoreUnavailable` if absent)."""
    try:
        module = importlib.import_module(CORE_MODULE)
    except ModuleNotFoundError as error:
        if error.name != CORE_MODULE:
            raise
        raise CoreUnavailable(f"{CORE_MODULE} is not installed") from None
    return getattr(module, CORE_FACTORY)(mission)
