"""Stage orchestration: mission → spec → synthesis → (later stages) and the output folder.

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

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bdi_supervisor.common import AuditVerdict, ExitCode, Realizability, StageStatus
from bdi_supervisor.errors import InputError
from bdi_supervisor.outpaths import write_text_atomic
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.spec.io import format_spec
from bdi_supervisor.synthesis.result import (
    SynthesisOptions,
    SynthesisResult,
)

if TYPE_CHECKING:
    from bdi_supervisor.synthesis.strategy import Strategy

@dataclass
class StageRecord:
    """One stage's outcome: ``status`` is the stage's own verdict (``OK``, ``REALIZABLE``…)."""

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
    """Everything the stages share; ``summary()`` is ``summary.json``."""

    mission: Any
    config: str
    out_dir: Path | None
    overrides: dict = field(default_factory=dict)
    solver: SynthesisOptions = field(default_factory=SynthesisOptions)
    progress: Callable[[dict], None] | None = None
    #: also render pictures of the raw and reduced strategies (audit stage)
    draw: bool = False
    spec: GR1Spec | None = None
    synthesis: SynthesisResult | None = None
    artifacts: dict[str, Any] = field(default_factory=dict)
    stages: list[StageRecord] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.stages)

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.ok else ExitCode.NEGATIVE

    def write(self, name: str, text: str) -> str | None:
        if self.out_dir is None:
            return None
        path = self.out_dir / name
        write_text_atomic(path, text)
        return str(path)

    def summary(self) -> dict:
        return {
            "mission": self.mission.name,
            "config": self.config,
            "options": {k: v for k, v in self.overrides.items()},
            "ok": self.ok,
            "stages": [dataclasses.asdict(s) for s in self.stages],
        }


def config_label(options: Any) -> str:
    """``one-hot-SP``, ``enumerated-F``, … from the mission's synthesis options."""
    return f"{options.encoding}-{options.label}"


def solver_options(mission_options: Any, base: SynthesisOptions | None = None) -> SynthesisOptions:
    """Solver options from a mission's synthesis block (the spec already carries the order)."""
    options = dataclasses.replace(base) if base else SynthesisOptions()
    options.order = "as-written"
    options.reordering = bool(mission_options.reordering) and options.reordering
    if mission_options.reordering_threshold is not None and options.reorder_threshold is None:
        options.reorder_threshold = mission_options.reordering_threshold
    if mission_options.max_growth is not None and options.max_growth is None:
        options.max_growth = float(mission_options.max_growth)
    if mission_options.time_budget_s is not None and options.time_budget is None:
        options.time_budget = mission_options.time_budget_s
    if mission_options.node_budget is not None and options.node_budget is None:
        options.node_budget = mission_options.node_budget
    return options


# ---------------------------------------------------------------- stages


def stage_spec(run: PipelineRun) -> StageRecord:
    """Generate the GR(1) spec; write ``.structuredslugs`` and ``.slugsin``."""
    from bdi_supervisor.specgen.generate import generate_spec

    run.spec = generate_spec(run.mission, **run.overrides)
    files = [run.write(f"{run.mission.name}.{kind}", format_spec(run.spec, kind))
             for kind in ("structuredslugs", "slugsin")]
    return StageRecord("spec", StageStatus.OK, record=run.spec.counts(), files=[f for f in files if f])


def stage_well_separation(run: PipelineRun) -> StageRecord:
    """Well-separation of the spec's env assumptions; write ``well_separation.json``.

    Never blocks unless the mission's ``well_separation`` section asks for it
    (``fail_on_non_well_separated`` / ``fail_on_incomplete``).
    """
    from bdi_supervisor.separation.stage import run_stage, settings

    result = run_stage(run.spec, settings(run.mission), run.out_dir)
    record = result.record
    run.artifacts["well_separation"] = record
    summary = {"status": record.status, "cases": record.cases,
               "responsible_assumptions": [a.name for a in record.responsible_assumptions],
               "core_assumptions": [a.name for a in record.core_assumptions],
               "seconds": record.timing["total"]}
    return StageRecord("well_separation", record.status, seconds=record.timing["total"],
                       record=summary, files=[str(result.path)] if result.path else [],
                       blocking=result.blocks, ok=not result.blocks)


def stage_synthesis(run: PipelineRun) -> StageRecord:
    """Solve the spec; write ``strategy.json`` when realizable."""
    from bdi_supervisor.synthesis import strategy as strategy_io
    from bdi_supervisor.synthesis.synthesize import synthesize

    run.synthesis = result = synthesize(run.spec, run.solver, progress=run.progress)
    files = []
    if result.strategy is not None and run.out_dir is not None:
        path = run.out_dir / "strategy.json"
        strategy_io.save(result.strategy, path)
        files.append(str(path))
    return StageRecord("synthesis", result.status, record=result.to_dict(), files=files,
                       blocking=True, ok=result.status == Realizability.REALIZABLE)


def stage_audit(run: PipelineRun) -> StageRecord:
    """Audit the raw strategy, reduce it, audit the reduced one (``audit.json``, ``reduced.json``,
    ``audit_reduced.json``); blocks realization unless both audits pass."""
    from bdi_supervisor.audit.stage import audit_mission

    stages = audit_mission(run.synthesis.strategy, run.mission, run.spec, run.out_dir,
                           draw=run.draw)
    run.artifacts["audit"] = stages
    if stages.reduced_audit is None:
        status = stages.raw_audit.verdict
    else:
        failed = [r.verdict for r in (stages.raw_audit, stages.reduced_audit)
                  if r.verdict != AuditVerdict.PASS]
        status = failed[0] if failed else AuditVerdict.PASS
    return StageRecord("audit", status, record=stages.summary(),
                       files=[str(p) for p in stages.files.values()], blocking=True,
                       ok=stages.deployable)


def stage_realize(run: PipelineRun) -> StageRecord:
    """Realize the reduced strategy as a FlexBE behavior package in ``behavior/``.

    A strategy that cannot be realized (an :class:`InputError`) is a FAILED record, the error
    kept in ``run.artifacts["realize_error"]``."""
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.realize.stage import realize_mission

    reduced = run.artifacts["audit"].reduced
    folder = run.out_dir / "behavior" if run.out_dir is not None else None
    try:
        realization = realize_mission(reduced, run.mission, folder,
                                      source=run.mission.file or "<mission>")
    except InputError as error:
        run.artifacts["realize_error"] = error
        return StageRecord("realize", "FAILED", record={"error": error.describe()},
                           blocking=True, ok=False)
    run.artifacts["realization"] = realization
    return StageRecord("realize", StageStatus.OK, record=realization.record(),
                       files=[str(folder)] if folder is not None else [])


#: the stage chain; later stages insert themselves here
STAGES: list[Callable[[PipelineRun], StageRecord]] = [stage_spec, stage_well_separation,
                                                      stage_synthesis, stage_audit, stage_realize]


def run(mission: Any, *, overrides: dict | None = None, out_dir: str | Path | None = None,
        solver: SynthesisOptions | None = None,
        progress: Callable[[dict], None] | None = None,
        stages: list[Callable[[PipelineRun], StageRecord]] | None = None,
        draw: bool = False) -> PipelineRun:
    """Run the stage chain on a loaded mission; ``out_dir`` is the root (``out/`` by default)."""
    overrides = dict(overrides or {})
    options = dataclasses.replace(mission.synthesis, **overrides) if overrides else mission.synthesis
    config = config_label(options)
    folder = Path(out_dir) / mission.name / config if out_dir is not None else None
    stages = stages or STAGES
    check_before(mission, folder, stages)
    state = PipelineRun(mission, config, folder, overrides,
                        solver_options(options, solver), progress, draw)
    for stage in stages:
        if progress is not None:
            progress({"stage": stage.__name__.removeprefix("stage_")})
        started = time.perf_counter()
        record = stage(state)
        record.seconds = time.perf_counter() - started
        state.stages.append(record)
        if record.blocking and not record.ok:
            break
    state.write("summary.json", json.dumps(state.summary(), indent=1))
    return state


def output_files(mission: Any) -> tuple[str, ...]:
    """The files a run writes in its folder (besides ``behavior/``)."""
    pictures = [f"strategy_{kind}.{ext}" for kind in ("raw", "reduced")
                for ext in ("dot", "svg", "png")]
    return (f"{mission.name}.structuredslugs", f"{mission.name}.slugsin", "well_separation.json",
            "strategy.json", "audit.json", "reduced.json", "audit_reduced.json", "summary.json",
            *pictures)


def check_before(mission: Any, folder: Path | None,
                 stages: list[Callable[[PipelineRun], StageRecord]]) -> None:
    """What can be refused before any work: an output folder that cannot be written (or holds a
    file, link or device where the run writes), a catalog that could never be realized."""
    from bdi_supervisor.errors import InputError
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


# ---------------------------------------------------------------- the supervisor to run


class NoSupervisor(InputError):
    """A verdict, not bad input: the mission yields no supervisor (unrealizable, a budget ran
    out, blocked by well-separation). ``status`` is that verdict. A subclass of
    :class:`InputError` for callers that only report it; ``bdi-supervisor run`` exits 1."""

    def __init__(self, status: str, message: str, **where: Any) -> None:
        super().__init__(message, **where)
        self.status = status


@dataclass
class Prepared:
    """The supervisor to run and how it was obtained (``reduced`` and ``machine`` are None
    only when the audit failed: there is nothing to run)."""

    raw: Strategy | None
    reduced: Strategy | None
    machine: Any
    counts: dict[str, int | None] = field(default_factory=dict)
    audit: str | None = None
    source: str = ""
    #: audit warnings (``kind``, ``message``, ``strategy``: raw or reduced)
    warnings: list[dict] = field(default_factory=list)


def audit_warnings(stages: Any) -> list[dict]:
    """The warnings of both audits of an ``AuditStages`` (raw first), as plain dicts."""
    found = []
    for label, record in (("raw", stages.raw_audit), ("reduced", stages.reduced_audit)):
        if record is not None:
            found += [{"kind": w.kind, "message": w.message, "strategy": label}
                      for w in record.warnings]
    return found


def prepare(mission: Any, overrides: dict | None = None,
            progress: Callable[[dict], None] | None = None) -> Prepared:
    """The mission's supervisor from the stage chain (:func:`run`: spec → well-separation →
    synthesis → audit → reduce → audit → realize; nothing written).

    ``overrides`` change the mission's ``synthesis`` section (``encoding``, ``liveness``…) as
    ``bdi-supervisor synthesize`` does. A spec that yields no strategy (unrealizable,
    incomplete, or stopped by the mission's ``well_separation`` section) or a strategy that
    cannot be realized is bad input; a failed audit comes back as ``audit`` with no machine.
    """
    from bdi_supervisor.errors import InputError

    try:
        from bdi_supervisor.synthesis.synthesize import synthesize  # noqa: F401
    except ImportError as error:
        raise InputError("the synthesis pipeline is not available in this installation",
                         file=mission.file, found=str(error),
                         expected="a saved run folder (--from DIR)") from None
    return prepared_from(run(mission, overrides=overrides, progress=progress), mission)


def prepared_from(state: PipelineRun, mission: Any) -> Prepared:
    """The :class:`Prepared` supervisor of a finished :func:`run`."""
    last = state.stages[-1]
    if state.synthesis is None:
        raise NoSupervisor(last.status, f"the {last.name} stage is {last.status}; nothing to run",
                           file=mission.file, key=last.name)
    raw = state.synthesis.strategy
    if raw is None:
        reason = state.synthesis.incomplete_reason
        raise NoSupervisor(state.synthesis.status,
                           f"synthesis {state.synthesis.status}"
                           + (f" ({reason})" if reason else "") + "; nothing to run",
                           file=mission.file, key="request")
    if "realize_error" in state.artifacts:
        raise state.artifacts["realize_error"]
    audit = state.artifacts["audit"]
    realization = state.artifacts.get("realization")
    machine = realization.machine if realization is not None else None
    counts = {"raw": len(raw.states),
              "reduced": len(audit.reduced.states) if audit.reduced is not None else None,
              "realized": len(machine.states) if machine is not None else None}
    status = next(s.status for s in state.stages if s.name == "audit")
    return Prepared(raw, audit.reduced, machine, counts, status, mission.file or "",
                    audit_warnings(audit))


def load_folder(folder: Path, mission: Any) -> Prepared:
    """The supervisor saved in a run folder: ``reduced.json`` (required), ``strategy.json``
    (raw, optional), ``audit.json`` (its verdict, optional)."""
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.realize.machine import build_machine
    from bdi_supervisor.realize.stage import mission_outcomes
    from bdi_supervisor.synthesis import strategy as strategy_io

    reduced_path = folder / "reduced.json"
    if not reduced_path.is_file():
        raise InputError("run folder has no reduced.json", file=str(folder),
                         expected="a folder written by bdi-supervisor synthesize --out")
    reduced = strategy_io.load(reduced_path)
    raw_path = folder / "strategy.json"
    raw = strategy_io.load(raw_path) if raw_path.is_file() else None
    from bdi_supervisor.yamlsource import load_json

    audit, warnings = None, []
    for label, name in (("raw", "audit.json"), ("reduced", "audit_reduced.json")):
        audit_path = folder / name
        if not audit_path.is_file():
            continue
        record = load_json(audit_path, "audit record")
        if not isinstance(record, dict):
            raise InputError("an audit record must be a JSON object", file=str(audit_path),
                             found=type(record).__name__)
        if label == "raw":
            audit = record.get("verdict", record.get("status"))
        warnings += [{"kind": w.get("kind"), "message": w.get("message"), "strategy": label}
                     for w in record.get("warnings") or [] if isinstance(w, dict)]
    machine = build_machine(reduced, mission.catalog, sm_outcomes=mission_outcomes(mission),
                            source=str(reduced_path))
    counts = {"raw": len(raw.states) if raw else None, "reduced": len(reduced.states),
              "realized": len(machine.states)}
    return Prepared(raw, reduced, machine, counts, audit, str(folder), warnings)


__all__ = ["STAGES", "PipelineRun", "Prepared", "StageRecord",
           "load_folder", "prepare", "prepared_from", "run", "stage_audit", "stage_realize",
           "stage_spec", "stage_synthesis"]
