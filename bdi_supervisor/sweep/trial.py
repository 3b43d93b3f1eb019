"""One trial: load the mission, run the pipeline with the trial's overrides and budgets, and
flatten every stage record into one JSON row.

The pipeline (:func:`bdi_supervisor.pipeline.run`) runs the stages it knows; stages it does not
(yet) chain — well-separation, audit → reduce → audit, realize — are run here after it, on its
spec and strategy, each recorded like a pipeline stage. A stage that is not installed gives the
value :data:`NOT_AVAILABLE`; an exception in a trial gives a row with ``status: ERROR`` (a sweep
never dies of one trial).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import time
import traceback
from typing import Any

from bdi_supervisor.sweep.grid import Trial

OK = "OK"
ERROR = "ERROR"
NOT_AVAILABLE = "not available"
SKIPPED = "skipped"


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


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _stage(out: dict, name: str, status: str, seconds: float, record: dict) -> None:
    out[f"{name}.status"] = status
    out[f"{name}.seconds"] = seconds
    flatten(record, name, out)


def _separation(mission: Any, spec: Any, out: dict) -> None:
    if not _available("bdi_supervisor.separation.stage"):
        out["separation.status"] = NOT_AVAILABLE
        return
    from bdi_supervisor.separation.stage import run_stage, settings

    started = time.perf_counter()
    result = run_stage(spec, settings(mission))
    record = result.record.to_dict()
    _stage(out, "separation", result.record.status, time.perf_counter() - started,
           {k: v for k, v in record.items() if k not in ("witness", "witnesses", "status")})


def _audit_and_realize(mission: Any, spec: Any, strategy: Any, out: dict) -> None:
    from bdi_supervisor.audit.stage import audit_mission
    from bdi_supervisor.realize.stage import realize_mission

    started = time.perf_counter()
    stages = audit_mission(strategy, mission, spec)
    _stage(out, "audit", stages.raw_audit.verdict, time.perf_counter() - started,
           stages.summary())
    if stages.reduced is None:
        out["realize.status"] = SKIPPED
        return
    started = time.perf_counter()
    realization = realize_mission(stages.reduced, mission)
    record = realization.record()
    _stage(out, "realize", OK, time.perf_counter() - started,
           {k: record[k] for k in ("capability_states", "state_instantiations", "encoding")})


def _pipeline(mission: Any, trial: Trial, out: dict) -> None:
    from bdi_supervisor import pipeline

    run = pipeline.run(mission, overrides=trial.overrides(), out_dir=None)
    names = set()
    for stage in run.stages:
        names.add(stage.name)
        _stage(out, stage.name, stage.status, stage.seconds, stage.record)
    mission = run.mission
    configured = dataclasses.replace(
        mission, synthesis=dataclasses.replace(mission.synthesis, **trial.overrides()))
    if run.spec is not None and not names & {"separation", "well_separation"}:
        _separation(configured, run.spec, out)
    strategy = getattr(run.synthesis, "strategy", None)
    if "audit" not in names:
        if strategy is None:
            out["audit.status"] = SKIPPED
            out["realize.status"] = SKIPPED
        else:
            _audit_and_realize(configured, run.spec, strategy, out)


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
        row["status"] = OK
    except Exception as error:  # a trial's failure is data, not a sweep crash
        row["status"] = ERROR
        row["error"] = f"{type(error).__name__}: {error}"
        row["traceback"] = traceback.format_exc(limit=8)
    row["wall_seconds"] = time.perf_counter() - started
    row["pid"] = os.getpid()
    return row
