"""Shared fixtures of the monitor tests: missions with their supervisors and built monitors.

The supervisor comes from the real pipeline (:func:`bdi_supervisor.pipeline.prepare`).
``folder(name)`` is a saved run folder under ``test/data/supervisors`` for the ``--from`` tests;
``test_saved_supervisors.py`` keeps those equal to what the pipeline produces.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import prepare

ROOT = Path(__file__).resolve().parents[1]
MISSIONS = ROOT / "config" / "missions"
SAVED = Path(__file__).resolve().parent / "data" / "supervisors"
_PREPARED: dict[str, tuple] = {}
_MONITORS: dict[str, object] = {}


def folder(name: str) -> Path:
    return SAVED / name


def prepared(name: str):
    """(mission, Prepared) for a shipped mission, built once per session.

    Quadcopter missions are synthesized in the enumerated encoding, as their own tests do
    (one-hot with pending is minutes of synthesis).
    """
    if name not in _PREPARED:
        mission = load_mission(MISSIONS / f"{name}.yaml")
        if name.startswith("quadcopter"):
            mission = replace(mission, synthesis=replace(mission.synthesis,
                                                         encoding="enumerated"))
        _PREPARED[name] = (mission, prepare(mission))
    return _PREPARED[name]


def fresh_monitor(name: str):
    """A new monitor (own position and counters) sharing the cached launch checks."""
    from bdi_monitor.monitor import Monitor, monitor_for_mission

    if name not in _MONITORS:
        mission, prep = prepared(name)
        _MONITORS[name] = monitor_for_mission(mission, prep)
    base = _MONITORS[name]
    return Monitor(base.model, base.checker, base.launch, base.tables)
