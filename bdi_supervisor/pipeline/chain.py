"""The stage chain: mission → spec → well-separation → synthesis → audit → realize.

Each stage is a ``stage_<name>(run: PipelineRun) -> StageRecord`` function that reads what it
needs from ``run``, stores its result on it and writes its files into ``run.out_dir``;
:func:`run` chains :data:`STAGES` and writes ``summary.json``. A stage whose record has
``blocking=True`` and a non-OK status stops the chain and makes the exit code non-zero.
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
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.outpaths import write_text_atomic
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.spec.io import format_spec
from bdi_supervisor.synthesis.result import SynthesisResult

if TYPE_CHECKING:
    pass

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
    #: the mission's synthesis options with ``overrides`` applied
    options: SynthesisOptions = field(default_factory=SynthesisOptions)
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
    """Solve the spec; write ``strategy.json`` when realizable, and ``explanation.json``
    (:func:`explain_mission`) when unrealizable."""
    from bdi_supervisor.synthesis import strategy as strategy_io
    from bdi_supervisor.synthesis.synthesize import synthesize

    # the generated spec is already in the mission's declaration order
    solver = dataclasses.replace(run.options, order="as-written")
    run.synthesis = result = synthesize(run.spec, solver, progress=run.progress)
    files = []
    if result.strategy is not None and run.out_dir is not None:
        path = run.out_dir / "strategy.json"
        strategy_io.save(result.strategy, path)
        files.append(str(path))
    record = result.to_dict()
    if result.status == Realizability.UNREALIZABLE:
        if run.progress is not None:
            run.progress({"stage": "explain"})
        from bdi_supervisor.pipeline.explain import explain_mission

        explained = explain_mission(run.mission, run.overrides, spec=run.spec)
        run.artifacts["explanation"] = explained
        record["explanation"] = {"status": explained.explanation.status,
                                 "core": len(explained.explanation.core)}
        written = run.write("explanation.json", json.dumps(explained.to_dict(), indent=1))
        files += [written] if written else []
    return StageRecord("synthesis", result.status, record=record, files=files,
                       blocking=True, ok=result.status == Realizability.REALIZABLE)


def stage_audit(run: PipelineRun) -> StageRecord:
    """Audit the raw strategy, reduce it, audit the reduced one (``audit.json``, ``reduced.json``,
    ``audit_reduced.json``); blocks realization unless both audits pass."""
    from bdi_supervisor.pipeline.audit_reduce import audit_mission

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
        progress: Callable[[dict], None] | None = None,
        stages: list[Callable[[PipelineRun], StageRecord]] | None = None,
        draw: bool = False) -> PipelineRun:
    """Run the stage chain on a loaded mission; ``out_dir`` is the root (``out/`` by default).

    ``overrides`` replace fields of the mission's :class:`SynthesisOptions` (what a command line
    or a sweep sets wins)."""
    overrides = dict(overrides or {})
    options = dataclasses.replace(mission.synthesis, **overrides)
    folder = Path(out_dir) / mission.name / options.config if out_dir is not None else None
    stages = stages or STAGES
    check_before(mission, folder, stages)
    state = PipelineRun(mission, options.config, folder, overrides, options, progress, draw)
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
            "strategy.json", "explanation.json", "audit.json", "reduced.json",
            "audit_reduced.json", "summary.json",
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
