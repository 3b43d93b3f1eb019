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
from pathlib import Path

import pytest

from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import Prepared, prepare

MISSIONS = Path(__file__).resolve().parents[1] / "config" / "missions"
QUADCOPTER_SYNTHESIS = {"encoding": "enumerated", "liveness": "system-goal", "pending": False}
_CACHE: dict[tuple, Prepared] = {}


def with_synthesis(mission, **changes):
    """``mission`` with its ``synthesis`` section changed."""
    return replace(mission, synthesis=replace(mission.synthesis, **changes))


def mission(name: str):
    """The shipped mission ``name`` (a quadcopter one in :data:`QUADCOPTER_SYNTHESIS`)."""
    path = MISSIONS / f"{name}.yaml"
    if not path.is_file():
        pytest.skip(f"mission {path.name} is not shipped")
    loaded = load_mission(path)
    return with_synthesis(loaded, **QUADCOPTER_SYNTHESIS) if name.startswith("quadcopter") else loaded


def prepared(name: str) -> tuple:
    """(mission, :class:`Prepared`) for the shipped mission ``name``, built once per process."""
    loaded = mission(name)
    key = ((loaded.catalog_path, repr(loaded.request), repr(loaded.synthesis))
           if name.startswith("quadcopter") else (name,))
    if key not in _CACHE:
        try:
            _CACHE[key] = prepare(loaded)
        except InputError as error:
            if "not available" in str(error):
                pytest.skip(f"pipeline stage missing: {error.found}")
            raise
    return loaded, _CACHE[key]
