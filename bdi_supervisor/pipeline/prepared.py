"""The supervisor a mission runs with: from the stage chain (:func:`prepare`) or from a saved
run folder (:func:`load_folder`), as a :class:`Prepared`. The CLI, the ROS nodes and the monitor
obtain supervisors through these two."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bdi_supervisor.common import AuditVerdict
from bdi_supervisor.errors import InputError
from bdi_supervisor.pipeline.chain import PipelineRun, run

if TYPE_CHECKING:
    from bdi_supervisor.catalog.model import Catalog
    from bdi_supervisor.mission.model import Mission
    from bdi_supervisor.pipeline.audit_reduce import AuditStages
    from bdi_supervisor.realize.machine import SupervisorMachine
    from bdi_supervisor.synthesis.strategy import Strategy


class NoSupervisor(InputError):
    """A verdict, not bad input: the mission yields no supervisor (unrealizable, a budget ran
    out, blocked by well-separation). ``status`` is that verdict; ``explanation`` the
    :class:`~bdi_supervisor.pipeline.explain.MissionExplanation` of an unrealizable mission.
    A subclass of :class:`InputError` for callers that only report it; ``bdi-supervisor run``
    exits 1."""

    def __init__(self, status: str, message: str, explanation: Any = None,
                 **where: Any) -> None:
        super().__init__(message, **where)
        self.status = status
        self.explanation = explanation


@dataclass
class Prepared:
    """The supervisor to run and how it was obtained (``reduced`` and ``machine`` are None
    only when the audit failed: there is nothing to run)."""

    raw: Strategy | None
    reduced: Strategy | None
    machine: SupervisorMachine | None
    counts: dict[str, int | None] = field(default_factory=dict)
    audit: str | None = None
    source: str = ""
    #: audit warnings (``kind``, ``message``, ``strategy``: raw or reduced)
    warnings: list[dict] = field(default_factory=list)
    #: the defects of each audit that did not pass, in the mission's terms
    #: (:class:`~bdi_supervisor.audit.findings.Findings`; raw first)
    findings: list = field(default_factory=list)
    #: how its runs are labelled when they end without a container outcome
    #: (:class:`~bdi_supervisor.runtime.executor.Endings`; None: a synthesized strategy's way)
    endings: Any = None


def audit_warnings(stages: AuditStages) -> list[dict]:
    """The warnings of both audits of an ``AuditStages`` (raw first), as plain dicts."""
    found = []
    for label, record in (("raw", stages.raw_audit), ("reduced", stages.reduced_audit)):
        if record is not None:
            found += [{"kind": w.kind, "message": w.message, "strategy": label}
                      for w in record.warnings]
    return found


def audit_findings(stages: AuditStages, catalog: Catalog, raw: Strategy | None) -> list:
    """The :class:`~bdi_supervisor.audit.findings.Findings` of both audits of an
    ``AuditStages`` (raw first; the reduced one only when it ran)."""
    from bdi_supervisor.audit.findings import findings

    found = [findings(stages.raw_audit, "raw", catalog, raw)]
    if stages.reduced_audit is not None:
        found.append(findings(stages.reduced_audit, "reduced", catalog, stages.reduced))
    return found


def prepare(mission: Mission, overrides: dict | None = None,
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


def prepared_from(state: PipelineRun, mission: Mission) -> Prepared:
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
                           state.explanation, file=mission.file,
                           key="request")
    if state.realize_error is not None:
        raise state.realize_error
    audit = state.audit
    machine = state.realization.machine if state.realization is not None else None
    counts = {"raw": len(raw.states),
              "reduced": len(audit.reduced.states) if audit.reduced is not None else None,
              "realized": len(machine.states) if machine is not None else None}
    status = next(s.status for s in state.stages if s.name == "audit")
    return Prepared(raw, audit.reduced, machine, counts, status, mission.file or "",
                    audit_warnings(audit), audit_findings(audit, mission.catalog, raw))


def load_folder(folder: Path, mission: Mission) -> Prepared:
    """The supervisor saved in a run folder: ``reduced.json`` (required unless ``audit.json``
    says the audit failed: then nothing was reduced and there is nothing to run),
    ``strategy.json`` (raw, optional), ``audit.json`` (its verdict, optional)."""
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.realize.machine import build_machine
    from bdi_supervisor.realize.stage import mission_outcomes
    from bdi_supervisor.specgen.match import check_variables
    from bdi_supervisor.synthesis import strategy as strategy_io

    reduced_path = folder / "reduced.json"
    if not folder.is_dir():
        raise InputError("run folder does not exist" if not folder.exists() else
                         "run folder is not a folder", file=str(folder),
                         expected="a folder written by bdi-supervisor synthesize --out")
    raw_path = folder / "strategy.json"
    raw = strategy_io.load(raw_path) if raw_path.is_file() else None
    reduced = strategy_io.load(reduced_path) if reduced_path.is_file() else None
    saved = _saved_audits(folder, mission, raw, reduced)
    if reduced is None:
        if saved.verdict not in (None, AuditVerdict.PASS):  # refused by its audit: say why
            return Prepared(raw, None, None, {"raw": len(raw.states) if raw else None},
                            saved.verdict, str(folder), saved.warnings, saved.findings)
        raise InputError("run folder has no reduced.json", file=str(folder),
                         expected="a folder written by bdi-supervisor synthesize --out")
    check_variables(reduced.variables, mission, str(reduced_path), "strategy", reduced.name)
    machine = build_machine(reduced, mission.catalog, sm_outcomes=mission_outcomes(mission),
                            source=str(reduced_path))
    counts = {"raw": len(raw.states) if raw else None, "reduced": len(reduced.states),
              "realized": len(machine.states)}
    return Prepared(raw, reduced, machine, counts, saved.verdict, str(folder), saved.warnings,
                    saved.findings)


@dataclass
class _SavedAudits:
    """What a run folder's ``audit.json`` and ``audit_reduced.json`` say."""

    verdict: str | None = None
    warnings: list[dict] = field(default_factory=list)
    findings: list = field(default_factory=list)


def _saved_audits(folder: Path, mission: Mission, raw: Strategy | None,
                  reduced: Strategy | None) -> _SavedAudits:
    """The raw audit's verdict, both audits' warnings and findings, read from ``folder``."""
    from bdi_supervisor.audit.findings import findings
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.yamlsource import load_json

    saved = _SavedAudits()
    for label, name in (("raw", "audit.json"), ("reduced", "audit_reduced.json")):
        audit_path = folder / name
        if not audit_path.is_file():
            continue
        record = load_json(audit_path, "audit record")
        if not isinstance(record, dict):
            raise InputError("an audit record must be a JSON object", file=str(audit_path),
                             found=type(record).__name__)
        if label == "raw":
            saved.verdict = record.get("verdict", record.get("status"))
        saved.warnings += [{"kind": w.get("kind"), "message": w.get("message"),
                            "strategy": label}
                           for w in record.get("warnings") or [] if isinstance(w, dict)]
        saved.findings.append(findings(record, label, mission.catalog,
                                       raw if label == "raw" else reduced))
    return saved
