"""The pipeline: the stage chain from a mission to a supervisor, and the supervisor to run.

- :mod:`.chain`: :func:`run` chains the stages (spec → well-separation → synthesis → audit →
  realize) into a :class:`PipelineRun`, one typed field per stage result and one
  :class:`StageRecord` per stage; to add a stage, write a ``stage_<name>(run) -> StageRecord``
  that reads its inputs from ``run`` and stores its result there, and insert it in
  :data:`STAGES` (and its writer in :data:`.output.WRITERS` if it has files).
- :mod:`.audit_reduce`: the audit → reduce → audit stages.
- :mod:`.output`: :func:`write_run`, the one function that writes a finished run to its folder
  (``<out>/<mission>/<config>/``, every file atomically, ``summary.json`` last).
- :mod:`.prepared`: :func:`prepare` is the supervisor a mission runs with (the chain without a
  folder, as a :class:`Prepared`); :func:`load_folder` the one saved in a run folder. The CLI,
  the ROS nodes and the monitor obtain supervisors through these two.
- :mod:`.explain`: an unrealizable mission explained in its own terms.
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
        stage_execute,
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
    from bdi_supervisor.pipeline.output import write_run
    from bdi_supervisor.pipeline.prepared import (
        NoSupervisor,
        Prepared,
        audit_findings,
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
                     "stage_audit", "stage_execute", "stage_realize", "stage_spec",
                     "stage_synthesis", "stage_well_separation"), "chain"),
    **dict.fromkeys(("MissionExplanation", "explain_mission", "load_counter_run",
                     "mission_namer", "replay_counter_run"), "explain"),
    **dict.fromkeys(("NoSupervisor", "Prepared", "audit_findings", "audit_warnings",
                     "load_folder", "prepare", "prepared_from"), "prepared"),
    "write_run": "output",
}

__all__ = ["STAGES", "AuditStages", "MissionExplanation", "NoSupervisor", "PipelineRun",
           "Prepared", "StageRecord", "audit_and_reduce", "audit_findings", "audit_mission",
           "audit_warnings",
           "check_before", "explain_mission", "load_counter_run", "load_folder",
           "mission_namer", "output_files", "prepare", "prepared_from", "replay_counter_run",
           "run", "stage_audit", "stage_execute", "stage_realize", "stage_spec",
           "stage_synthesis", "stage_well_separation", "write_run"]


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
