"""The pipeline: the stage chain from a mission to a supervisor, and the supervisor to run.

Each stage is a small function from plain data to plain data; :func:`run` chains them and
records one :class:`StageRecord` per stage in a :class:`PipelineRun`, which becomes
``summary.json``. To add a stage (well-separation, audit, reduce, realize), write a
``stage_<name>(run: PipelineRun) -> StageRecord`` function that reads what it needs from ``run``
(``run.spec``, ``run.synthesis``, ``run.artifacts``), stores its result on ``run.artifacts``
and writes its files into ``run.out_dir``; then insert it in :data:`STAGES`. A stage whose
record has ``blocking=True`` and a non-OK status stops the chain (the remaining stages are not
run) and makes the exit code non-zero.

Output folder: ``<out>/<mission>/<config>/`` with ``<mission>.structuredslugs``,
``<mission>.slugsin``, ``strategy.json`` (when realizable) and ``summary.json``. Every file is
written atomically.

:func:`prepare` is the supervisor a mission runs with (the chain without an output folder, as a
:class:`Prepared`); :func:`load_folder` the one saved in a run folder. The CLI, the ROS nodes
and the monitor obtain supervisors through these two.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bdi_supervisor.pipeline.audit_reduce import AuditStages, audit_and_reduce, audit_mission
    from bdi_supervisor.pipeline.chain import (
        STAGES,
        PipelineRun,
        StageRecord,
        check_before,
        output_files,
        run,
        stage_audit,
        stage_realize,
        stage_spec,
        stage_synthesis,
        stage_well_separation,
    )
    from bdi_supervisor.pipeline.explain import (
        MissionExplanation,
        explain_mission,
        load_counter_run,
        mission_namer,
        replay_counter_run,
    )
    from bdi_supervisor.pipeline.prepared import (
        NoSupervisor,
        Prepared,
        audit_warnings,
        load_folder,
        prepare,
        prepared_from,
    )

#: where each public name lives; a module is imported when one of its names is first used, so
#: ``from bdi_supervisor.pipeline import load_folder`` does not import the stages
_HOME = {
    **dict.fromkeys(("AuditStages", "audit_and_reduce", "audit_mission"), "audit_reduce"),
    **dict.fromkeys(("STAGES", "PipelineRun", "StageRecord", "check_before", "output_files", "run",
                     "stage_audit", "stage_realize", "stage_spec", "stage_synthesis",
                     "stage_well_separation"), "chain"),
    **dict.fromkeys(("MissionExplanation", "explain_mission", "load_counter_run",
                     "mission_namer", "replay_counter_run"), "explain"),
    **dict.fromkeys(("NoSupervisor", "Prepared", "audit_warnings", "load_folder", "prepare",
                     "prepared_from"), "prepared"),
}

__all__ = ["STAGES", "AuditStages", "MissionExplanation", "NoSupervisor", "PipelineRun",
           "Prepared", "StageRecord", "audit_and_reduce", "audit_mission", "audit_warnings",
           "check_before", "explain_mission", "load_counter_run", "load_folder",
           "mission_namer", "output_files", "prepare", "prepared_from", "replay_counter_run",
           "run", "stage_audit", "stage_realize", "stage_spec", "stage_synthesis",
           "stage_well_separation"]


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
