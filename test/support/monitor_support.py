"""Shared fixtures of the monitor tests: missions with their supervisors and built monitors.

The supervisors come from the real pipeline, shared with the other tests (:mod:`supervisors`).
``folder(name)`` is a saved run folder under ``test/data/supervisors`` for the ``--from`` tests;
``test_saved_supervisors.py`` keeps those equal to what the pipeline produces.
"""

from __future__ import annotations

from pathlib import Path

from support.paths import DATA, ROOT
from support.supervisors import prepared

MISSIONS = ROOT / "config" / "missions"
SAVED = DATA / "supervisors"
_MONITORS: dict[str, object] = {}
__all__ = ["MISSIONS", "folder", "fresh_monitor", "prepared"]


def folder(name: str) -> Path:
    return SAVED / name


def fresh_monitor(name: str):
    """A new monitor (own position and counters) sharing the cached launch checks."""
    from bdi_monitor.monitor import Monitor, monitor_for_mission

    if name not in _MONITORS:
        mission, prep = prepared(name)
        _MONITORS[name] = monitor_for_mission(mission, prep)
    base = _MONITORS[name]
    return Monitor(base.model, base.checker, base.launch, base.tables)
