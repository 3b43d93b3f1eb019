"""The interface between the monitor node and the monitor core (plain Python, no rclpy).

The node owns transport (decoding the wire envelope, sequence bookkeeping, publishing
``DiagnosticArray``); the core owns meaning. The core module :data:`CORE_MODULE` provides
``create_monitor(mission: Path) -> MonitorPort``; the node calls it once at start-up and then
:meth:`MonitorPort.feed` once per BDI-state record, in arrival order, from one thread.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

CORE_MODULE = "bdi_monitor.monitor"
CORE_FACTORY = "create_monitor"

VALUES = ("true", "false", "inconclusive", "out_of_model")


@dataclass(frozen=True)
class Verdict:
    """The current verdict of one property.

    ``value`` is one of :data:`VALUES` for runtime verdicts; launch-time checks use ``true`` (YES)
    or ``false`` (a counterexample, summarized in ``message``). ``evidence`` is short key/value
    text (e.g. the product node, the message that flipped it); ``latency_ns`` the core's
    processing time for the record that produced it, where measured.
    """

    property: str
    value: str
    message: str = ""
    evidence: dict[str, str] = field(default_factory=dict)
    latency_ns: int | None = None


class MonitorPort(Protocol):
    """What the monitor node needs of the core."""

    def launch_verdicts(self) -> list[Verdict]:
        """Model-checking results of every property, computed once at start-up."""

    def feed(self, record: dict[str, Any], stamp_ns: int) -> list[Verdict]:
        """Advance on one BDI-state record (schema ``bdi_supervisor/bdi_state``, already checked
        for schema, version, ``run_id`` and ``seq``; duplicates and records older than the
        last of their run are dropped by the node) received at ``stamp_ns`` (node clock);
        return every property's verdict.

        Must not raise on unexpected records: unknown states, duplicates or records out of order
        are the core's to count (see :meth:`counters`) and to report as ``out_of_model`` or
        ``inconclusive``.
        """

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
