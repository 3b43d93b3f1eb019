"""Shipped missions with their supervisors from the real pipeline
(:func:`bdi_supervisor.pipeline.prepare`), each synthesized once per test process (once per
pytest-xdist worker) and shared by every test module that asks for it.

Quadcopter missions are synthesized in :data:`QUADCOPTER_SYNTHESIS`, enumerated System-Goal
without pending, the fastest configuration (the missions' own enumerated System-Goal + pending is
realized in test_realize_missions.py; docs/quadcopter.md covers every configuration). They share
catalog, request and synthesis options and differ in the runner, so one supervisor serves them all.
"""

from __future__ import annotations

from dataclasses import replace

from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import Prepared, prepare
from support.paths import MISSIONS

QUADCOPTER_SYNTHESIS = {"encoding": "enumerated", "liveness": "system-goal", "pending": False}
_CACHE: dict[tuple, Prepared] = {}


def with_synthesis(mission, **changes):
    """``mission`` with its ``synthesis`` section changed."""
    return replace(mission, synthesis=replace(mission.synthesis, **changes))


def mission(name: str):
    """The shipped mission ``name`` (a quadcopter one in :data:`QUADCOPTER_SYNTHESIS`)."""
    loaded = load_mission(MISSIONS / f"{name}.yaml")
    return with_synthesis(loaded,
                          **QUADCOPTER_SYNTHESIS) if name.startswith("quadcopter") else loaded


def prepared(name: str) -> tuple:
    """(mission, :class:`Prepared`) for the shipped mission ``name``, built once per process."""
    loaded = mission(name)
    key = ((loaded.catalog_path, repr(loaded.request), repr(loaded.synthesis))
           if name.startswith("quadcopter") else (name,))
    if key not in _CACHE:
        # an unrealizable mission or bad input is a failure of every test that asks for it
        _CACHE[key] = prepare(loaded)
    return loaded, _CACHE[key]
