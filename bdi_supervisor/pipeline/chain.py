"""The stage chain: mission → spec → well-separation → synthesis → audit → realize.

Each stage is a ``stage_<name>(run: PipelineRun) -> StageRecord`` function that reads what it
needs from ``run``, stores its result in its own typed field and writes nothing; :func:`run`
chains :data:`STAGES` and then hands the finished run to
:func:`~bdi_supervisor.pipeline.output.write_run`, the one function that writes a run folder.
A stage whose record has ``blocking=True`` and a non-OK status stops the chain and makes the
exit code non-zero.

The time budget of the run's options (``--time-budget``, ``synthesis.time_budget_s``) covers
the stages up to synthesis together: spec generation checks it while it builds, well-separation
gets what is left (or its own ``time_budget_s`` when that is sooner) and synthesis the rest. A
stage that runs out is ``INCOMPLETE`` and stops the chain.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bdi_supervisor.common import AuditVerdict, ExitCode, Realizability, StageStatus
from bdi_supervisor.errors import BudgetExceeded, InputError
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.synthesis.gr1 import Budget
from bdi_supervisor.synthesis.result import SynthesisResult

if TYPE_CHECKING:
    from bdi_supervisor.mission.model import Mission
    from bdi_supervisor.pipeline.audit_reduce import AuditStages
    from bdi_supervisor.pipeline.explain import MissionExplanation
    from bdi_supervisor.realize.stage import Realization
    from bdi_supervisor.separation.record import SeparationRecord


@dataclass
class StageRecord:
    """One stage's outcome: ``status`` is the stage's own verdict (``OK``, ``REALIZABLE``…);
    ``files`` are filled in when the run is written."""

    name: str
    status: str
    seconds: float = 0.0
    record: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    #: a non-OK status of a blocking stage stops the pipeline
    blocking: bool = False
    ok: bool = True


@dataclass
class PipelineRun:
    """A run of the stage chain: its inputs, each stage's result in its own field (None until
    the stage ran), and the stages' records; ``summary()`` is ``summary.json``."""

    mission: Mission
    #: the mission's synthesis options with ``overrides`` applied
    options: SynthesisOptions
    overrides: dict = field(default_factory=dict)
    #: the run folder (``<out>/<mission>/<config>/``); None: nothing is written
    out_dir: Path | None = None
    progress: Callable[[dict], None] | None = None
    #: also render pictures of the raw and reduced strategies
    draw: bool = False
    #: explain an unrealizable spec (synthesis stage); sweeps that want verdicts only turn it off
    explain: bool = True
    spec: GR1Spec | None = None
    separation: SeparationRecord | None = None
    synthesis: SynthesisResult | None = None
    #: why an unrealizable mission is (only then)
    explanation: MissionExplanation | None = None
    audit: AuditStages | None = None
    realization: Realization | None = None
    #: bad input found only when realizing (e.g. an unresolved interface)
    realize_error: InputError | None = None
    stages: list[StageRecord] = field(default_factory=list)
    #: the run's time budget (the options' ``time_budget``), shared by the stages up to synthesis
    budget: Budget = field(default_factory=Budget)

    def time_left(self) -> float | None:
        """Seconds of the run's time budget left (None: no budget); BudgetExceeded when none."""
        self.budget.check_time()
        left = self.budget.remaining()
        return None if left is None else max(left, 1e-3)

    @property
    def config(self) -> str:
        return self.options.config

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.stages)

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.ok else ExitCode.NEGATIVE

    def summary(self) -> dict:
        return {
            "mission": self.mission.name,
            "config": self.config,
            "options": dict(self.overrides),
            "ok": self.ok,
            "stages": [dataclasses.asdict(s) for s in self.stages],
        }


# ---------------------------------------------------------------- stages


def stage_spec(run: PipelineRun) -> StageRecord:
    """Generate the GR(1) spec (``.structuredslugs`` and ``.slugsin`` in the folder)."""
    from bdi_supervisor.specgen.generate import generate_spec

    try:
        run.spec = generate_spec(run.mission, check=run.budget.check_time, **run.overrides)
    except BudgetExceeded as exhausted:
        return _out_of_time("spec", exhausted, "spec generation")
    return StageRecord("spec", StageStatus.OK, record=run.spec.counts())


def _out_of_time(stage: str, exhausted: BudgetExceeded, phase: str) -> StageRecord:
    """The record of a stage the run's time budget stopped (it stops the chain)."""
    return StageRecord(stage, Realizability.INCOMPLETE, blocking=True, ok=False,
                       record={"incomplete_reason": f"{exhausted} during {phase}"})


def stage_well_separation(run: PipelineRun) -> StageRecord:
    """Well-separation of the spec's env assumptions (``well_separation.json``).

    Never blocks unless the mission's ``well_separation`` section asks for it
    (``fail_on_non_well_separated`` / ``fail_on_incomplete``).
    """
    from bdi_supervisor.separation.stage import run_stage, settings

    left = run.budget.remaining()  # none left: the analysis ends at once, ANALYSIS_INCOMPLETE
    result = run_stage(run.spec, settings(run.mission).within(
        None if left is None else max(left, 1e-3)))
    run.separation = record = result.record
    summary = {"status": record.status, "cases": record.cases,
               "responsible_assumptions": [a.name for a in record.responsible_assumptions],
               "core_assumptions": [a.name for a in record.core_assumptions],
               "seconds": record.timing["total"]}
    return StageRecord("well_separation", record.status, seconds=record.timing["total"],
                       record=summary, blocking=result.blocks, ok=not result.blocks)


def stage_synthesis(run: PipelineRun) -> StageRecord:
    """Solve the spec (``strategy.json`` when realizable) and explain an unrealizable one
    (:func:`~bdi_supervisor.pipeline.explain.explain_mission`, ``explanation.json``) unless
    ``run.explain`` is off."""
    from bdi_supervisor.synthesis.synthesize import synthesize

    try:
        left = run.time_left()
    except BudgetExceeded as exhausted:
        return _out_of_time("synthesis", exhausted, "synthesis")
    # the generated spec is already in the mission's declaration order
    solver = dataclasses.replace(run.options, order="as-written",
                                 time_budget=left)
    run.synthesis = result = synthesize(run.spec, solver, progress=run.progress)
    record = result.to_dict()
    if result.status == Realizability.UNREALIZABLE and run.explain:
        if run.progress is not None:
            run.progress({"stage": "explain"})
        from bdi_supervisor.pipeline.explain import explain_mission

        left = run.budget.remaining()  # what synthesis left, if anything (else: incomplete)
        overrides = {**run.overrides, **({"time_budget": max(left, 1e-3)} if left is not None
                                         else {})}
        run.explanation = explained = explain_mission(run.mission, overrides, spec=run.spec)
        record["explanation"] = {"status": explained.explanation.status,
                                 "core": len(explained.explanation.core)}
    return StageRecord("synthesis", result.status, record=record, blocking=True,
                       ok=result.status == Realizability.REALIZABLE)


def stage_audit(run: PipelineRun) -> StageRecord:
    """Audit the raw strategy, reduce it, audit the reduced one (``audit.json``,
    ``reduced.json``, ``audit_reduced.json``); blocks realization unless both audits pass."""
    from bdi_supervisor.pipeline.audit_reduce import audit_mission

    run.audit = stages = audit_mission(run.synthesis.strategy, run.mission, run.spec)
    if stages.reduced_audit is None:
        status = stages.raw_audit.verdict
    else:
        failed = [r.verdict for r in (stages.raw_audit, stages.reduced_audit)
                  if r.verdict != AuditVerdict.PASS]
        status = failed[0] if failed else AuditVerdict.PASS
    return StageRecord("audit", status, record=stages.summary(), blocking=True,
                       ok=stages.deployable)


def stage_realize(run: PipelineRun) -> StageRecord:
    """Realize the reduced strategy as a FlexBE behavior package (``behavior/``).

    A strategy that cannot be realized (an :class:`InputError`) is a FAILED record, the error
    kept in ``run.realize_error``."""
    from bdi_supervisor.realize.stage import realize_mission

    try:
        run.realization = realize_mission(run.audit.reduced, run.mission,
                                          source=run.mission.file or "<mission>")
    except InputError as error:
        run.realize_error = error
        return StageRecord("realize", StageStatus.FAILED, record={"error": error.describe()},
                           blocking=True, ok=False)
    return StageRecord("realize", StageStatus.OK, record=run.realization.record())


def stage_execute(run: PipelineRun) -> StageRecord:
    """Forced-outcome acceptance of the realized supervisor in the embedded executor
    (:mod:`bdi_supervisor.runtime.acceptance`): every declared outcome at every state goes where
    the strategy says, and a forced run reaches the goal. Not in :data:`STAGES`; sweeps add it
    (``execute: true``) for the "executable" column."""
    from bdi_supervisor.runtime.acceptance import accept

    result = accept(run.mission, run.realization.machine, run.audit.reduced)
    status = StageStatus.OK if result.executable else "FAILED"
    return StageRecord("execute", status, record=result.record(), ok=result.executable)


#: the stage chain; later stages insert themselves here
STAGES: list[Callable[[PipelineRun], StageRecord]] = [stage_spec, stage_well_separation,
                                                      stage_synthesis, stage_audit, stage_realize]


def run(mission: Mission, *, overrides: dict | None = None, out_dir: str | Path | None = None,
        progress: Callable[[dict], None] | None = None,
        stages: list[Callable[[PipelineRun], StageRecord]] | None = None,
        draw: bool = False, explain: bool = True) -> PipelineRun:
    """Run the stage chain on a loaded mission; ``out_dir`` is the root (``out/`` by default).
    ``progress`` hears ``{"stage": name}`` as a stage starts, ``{"finished": record}`` as it
    ends, and the solver's events (:func:`~bdi_supervisor.synthesis.synthesize.synthesize`).

    ``overrides`` replace fields of the mission's :class:`SynthesisOptions` (what a command line
    or a sweep sets wins). ``explain``: explain an unrealizable spec (``explanation.json``)."""
    overrides = dict(overrides or {})
    options = dataclasses.replace(mission.synthesis, **overrides)
    folder = Path(out_dir) / mission.name / options.config if out_dir is not None else None
    stages = stages or STAGES
    check_before(mission, folder, stages)
    state = PipelineRun(mission, options, overrides, folder, progress, draw, explain,
                        budget=Budget(options.time_budget))
    for stage in stages:
        if progress is not None:
            progress({"stage": stage.__name__.removeprefix("stage_")})
        started = time.perf_counter()
        record = stage(state)
        record.seconds = time.perf_counter() - started
        state.stages.append(record)
        if progress is not None:
            progress({"finished": record})
        if record.blocking and not record.ok:
            break
    if folder is not None:
        from bdi_supervisor.pipeline.output import write_run

        write_run(state)
    return state


def output_files(mission: Mission) -> tuple[str, ...]:
    """The files a run writes in its folder (besides ``behavior/``)."""
    from bdi_supervisor.pipeline.output import PICTURES

    pictures = [f"{name}.{ext}" for name in PICTURES for ext in ("dot", "svg", "png")]
    return (f"{mission.name}.structuredslugs", f"{mission.name}.slugsin", "well_separation.json",
            "strategy.json", "explanation.json", "audit.json", "reduced.json",
            "audit_reduced.json", "summary.json",
            *pictures)


def check_before(mission: Mission, folder: Path | None,
                 stages: list[Callable[[PipelineRun], StageRecord]]) -> None:
    """What can be refused before any work: an output folder that cannot be written (or holds a
    file, link or device where the run writes), a catalog that could never be realized."""
    from bdi_supervisor.outpaths import check_name, check_output_dir

    check_name(mission.name, "mission name", key="name", file=mission.file)  # a file name
    if folder is not None:
        check_output_dir(folder, "output folder", inside=("behavior",),
                         files=output_files(mission), root=folder.parents[1])
    if stage_realize in stages:
        from bdi_supervisor.realize.machine import check_catalog

        try:
            check_catalog(mission.catalog)
        except InputError as error:
            raise error.at(file=getattr(mission, "catalog_path", None) or mission.file) from None
