"""One trial: load the mission, run the pipeline (:func:`bdi_supervisor.pipeline.run`: spec,
well-separation, synthesis, audit → reduce → audit, realize, and with ``execute`` the forced-outcome
acceptance) with the trial's overrides and budgets, and flatten every stage record into one JSON row
(``<stage>.status``, ``<stage>.seconds``, ``<stage>.<record key>``).

A stage after one that stopped the chain (synthesis ``INCOMPLETE`` or ``UNREALIZABLE``, a failed
audit) has the status ``skipped`` (:attr:`~bdi_supervisor.common.StageStatus.SKIPPED`); an exception
in a trial gives a row with ``status: ERROR`` (a sweep never dies of one trial).
"""

from __future__ import annotations

import os
import time
import traceback
from typing import Any

from bdi_supervisor.common import StageStatus
from bdi_supervisor.sweep.grid import Trial


def flatten(record: Any, prefix: str, out: dict[str, Any]) -> None:
    """Scalars of a nested record as ``prefix.key.sub`` columns; a list becomes its length
    (``prefix.count``) and, when it holds only strings (defect kinds, names), also their
    comma-separated text (``prefix``; ``""`` for an empty list)."""
    if isinstance(record, dict):
        for key, value in record.items():
            flatten(value, f"{prefix}.{key}", out)
    elif isinstance(record, (list, tuple)):
        out[f"{prefix}.count"] = len(record)
        if all(isinstance(item, str) for item in record):
            out[prefix] = ", ".join(record)
    elif record is None or isinstance(record, (bool, int, float, str)):
        out[prefix] = record
    else:
        out[prefix] = str(record)


def _stage(out: dict, name: str, status: str, seconds: float, record: dict) -> None:
    out[f"{name}.status"] = status
    out[f"{name}.seconds"] = seconds
    flatten(record, name, out)


def _pipeline(mission: Any, trial: Trial, out: dict) -> None:
    from bdi_supervisor import pipeline

    stages = [*pipeline.STAGES, pipeline.stage_execute] if trial.execute else pipeline.STAGES
    run = pipeline.run(mission, overrides=trial.overrides(), out_dir=None, stages=stages,
                       explain=False)
    for stage in run.stages:
        _stage(out, stage.name, stage.status, stage.seconds, stage.record)
    for stage in stages[len(run.stages):]:  # after a blocking stage stopped the chain
        out[f"{stage.__name__.removeprefix('stage_')}.status"] = StageStatus.SKIPPED


def run_trial(params: dict[str, Any]) -> dict[str, Any]:
    """Run one trial given its parameters (picklable in and out); returns its result row."""
    from bdi_supervisor.mission import load_mission

    trial = Trial(**params)
    row: dict[str, Any] = {"key": trial.key, "config": trial.config, **trial.params}
    started = time.perf_counter()
    try:
        mission = load_mission(trial.mission)
        row["mission_name"] = mission.name
        _pipeline(mission, trial, row)
        row["status"] = StageStatus.OK
    except Exception as error:  # a trial's failure is data, not a sweep crash
        row["status"] = StageStatus.ERROR
        row["error"] = f"{type(error).__name__}: {error}"
        row["traceback"] = traceback.format_exc(limit=8)
    row["wall_seconds"] = time.perf_counter() - started
    row["pid"] = os.getpid()
    return row
