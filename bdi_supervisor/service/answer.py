"""One request answered: the stage chain on the request's mission, its outcome as an error code,
state instantiations and messages.

========================================  =========================  ===========================
outcome                                   code                       messages
========================================  =========================  ===========================
a bad field, option or formula            ``INVALID_REQUEST``        what and where (``goal``,
                                                                     ``synthesis_options``)
no such system / no file to use           ``NO_SYSTEM_CONFIG`` /     where it looked
                                          ``SYSTEM_CONFIG_NOT_FOUND``
a catalog that cannot be read             ``CONFIG_FILE_INVALID``    the catalog's error
a seed spec that cannot be used           ``SPEC_COMPILATION_FAILED``  the spec's error
not well-separated (asked to fail)        ``SYNTHESIS_FAILED``       the cases
unrealizable                              ``SPEC_UNSYNTHESIZABLE``   the explanation's core, in
                                                                     the mission's terms
time or node budget spent (spec,          ``SYNTHESIS_FAILED``       the budget and the phase
well-separation, synthesis)                                          (the reference's timeout)
audit FAIL                                ``AUTOMATON_INVALID``      the defect kinds
audit INCOMPLETE                          ``AUDIT_INCOMPLETE``       why
not a FlexBE state machine                ``SM_GENERATION_FAILED``   why
audited, reduced, realized                ``SUCCESS`` + states       audit, reduction,
                                                                     well-separation
========================================  =========================  ===========================

Progress goes to a callback as :class:`Progress` records (the status text and a fraction), one
per stage and per synthesis phase, and at most every :data:`PASS_INTERVAL` seconds while the
realizability fixpoint runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.common import AuditVerdict, Realizability
from bdi_supervisor.errors import InputError
from bdi_supervisor.service.codes import Answer, Code, Refusal
from bdi_supervisor.service.instantiations import instantiations
from bdi_supervisor.service.mission import (
    REQUEST_FILE,
    build_mission,
    check_seed_declarations,
    load_seed,
)
from bdi_supervisor.service.request import SynthesisRequest, check_request, parse_options
from bdi_supervisor.service.systems import System, resolve_system

#: the fraction of the work done when each stage or synthesis phase starts
STAGE_PROGRESS = {"spec": 0.05, "well_separation": 0.1, "synthesis": 0.2, "explain": 0.7,
                  "audit": 0.8, "realize": 0.9}
PHASE_PROGRESS = {"encoding": 0.2, "realizability": 0.3, "diagnosis": 0.6, "extraction": 0.65}
#: seconds between two progress records of the realizability fixpoint
PASS_INTERVAL = 0.5


@dataclass(frozen=True)
class Settings:
    """The server's side of a request: its synthesis home, where run folders go (None: not
    written), the default time budget and whether to append ``:OUTCOME`` pseudo-states."""

    home: str | None = None
    out_dir: str | None = None
    default_timeout: float | None = 900.0
    outcome_states: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        return cls(**data)


@dataclass(frozen=True)
class Progress:
    """Feedback: what runs now, and the fraction of the work done (0 to 1)."""

    status: str
    progress: float


class _Reporter:
    """Pipeline events → :class:`Progress` records (monotone fractions, throttled passes)."""

    def __init__(self, emit: Callable[[Progress], None]) -> None:
        self.emit = emit
        self.last = 0.0
        self.sent = 0.0

    def __call__(self, event: dict) -> None:
        if "stage" in event:
            self._send(event["stage"], STAGE_PROGRESS.get(event["stage"], self.last))
        elif "phase" in event:
            self._send(f"synthesis: {event['phase']}",
                       PHASE_PROGRESS.get(event["phase"], self.last))
        elif "pass" in event and time.monotonic() - self.sent >= PASS_INTERVAL:
            self._send(f"synthesis: realizability, pass {event['pass']}, goal "
                       f"{event['goal'] + 1}/{event['goals']}", self.last)

    def _send(self, status: str, progress: float) -> None:
        self.last = max(self.last, progress)
        self.sent = time.monotonic()
        self.emit(Progress(status, self.last))


def answer(request: SynthesisRequest, settings: Settings,
           progress: Callable[[Progress], None] | None = None) -> Answer:
    """Answer ``request`` (see the module docstring); never raises for bad input."""
    try:
        return _answer(request, settings, _Reporter(progress or (lambda p: None)))
    except Refusal as refusal:
        return Answer(refusal.code, [], refusal.messages)


def _answer(request: SynthesisRequest, settings: Settings, reporter: _Reporter) -> Answer:
    from bdi_supervisor.pipeline import chain

    check_request(request)
    options = parse_options(request.synthesis_options)
    system = resolve_system(request.system_name, settings.home,
                            capabilities=options.capabilities,
                            spec_file=request.specification_file_name)
    seed = load_seed(system)
    mission = build_mission(system, request, options, seed, settings.default_timeout)

    def stage_spec(run: chain.PipelineRun) -> chain.StageRecord:
        record = chain.stage_spec(run)
        check_seed_declarations(run.spec, seed, system.seed_spec, mission.catalog)
        return record

    stages = [stage_spec, *chain.STAGES[1:]]
    out = Path(settings.out_dir) if settings.out_dir else None
    try:
        run = chain.run(mission, out_dir=out, progress=reporter, stages=stages,
                        explain=options.explain)
    except InputError as error:
        raise Refusal(_input_code(error, system), error.describe()) from None
    result = answer_run(run, settings.outcome_states)
    if out is not None and run.out_dir is not None:
        result.messages.append(f"run folder: {run.out_dir}")
    reporter._send("complete", 1.0)
    return result


def _input_code(error: InputError, system: System) -> Code:
    """Which part of the input an error of the pipeline is in."""
    if error.file == REQUEST_FILE:
        return (Code.SPEC_COMPILATION_FAILED if (error.key or "").startswith("specs")
                else Code.INVALID_REQUEST)
    if error.file == str(system.catalog):
        return Code.CONFIG_FILE_INVALID
    if system.seed_spec is not None and error.file == str(system.seed_spec):
        return Code.SPEC_COMPILATION_FAILED
    return Code.FAILURE


def answer_run(run: Any, outcome_states: bool = True) -> Answer:
    """The answer to a finished :class:`~bdi_supervisor.pipeline.chain.PipelineRun`."""
    messages = _separation_lines(run)
    last = run.stages[-1]
    if last.name == "well_separation" and not last.ok:
        return Answer(Code.SYNTHESIS_FAILED, [], messages)
    if last.name in ("spec", "synthesis") and not last.ok:
        code, lines = _synthesis_failure(run, last.record)
        return Answer(code, [], lines + messages)
    if last.name == "audit" and not last.ok:
        code, lines = _audit_failure(run)
        return Answer(code, [], lines + messages)
    if run.realization is None:
        why = run.realize_error.describe() if run.realize_error else "nothing was realized"
        return Answer(Code.SM_GENERATION_FAILED, [], [f"realize: {why}", *messages])
    machine = run.realization.machine
    audit = run.audit
    summary = (f"audit PASS: raw strategy {len(run.synthesis.strategy.states)} states, "
               f"reduced {len(audit.reduced.states)} (audit PASS), realized "
               f"{len(machine.states)} FlexBE states")
    warnings = sorted({*audit.raw_audit.warning_kinds, *audit.reduced_audit.warning_kinds})
    lines = [summary] + ([f"audit warnings: {', '.join(warnings)}"] if warnings else [])
    return Answer(Code.SUCCESS, instantiations(machine, outcome_states=outcome_states),
                  lines + messages)


def _separation_lines(run: Any) -> list[str]:
    record = run.separation
    if record is None:
        return []
    cases = f" ({', '.join(record.cases)})" if record.cases else ""
    return [f"well-separation: {record.status}{cases}"]


def _synthesis_failure(run: Any, record: dict) -> tuple[Code, list[str]]:
    """Unrealizable, or stopped by the run's budget (in the spec, well-separation or synthesis
    stage: the reference's timeout)."""
    result = run.synthesis
    if result is not None and result.status == Realizability.UNREALIZABLE:
        lines = ["unrealizable: " + (result.failure.message if result.failure else
                                     "the environment can keep the goals from being met")]
        return Code.SPEC_UNSYNTHESIZABLE, lines + _explanation_lines(run.explanation)
    reason = str(result.incomplete_reason if result is not None
                 else record.get("incomplete_reason"))
    budget = run.options.time_budget
    if budget is not None and reason.startswith("time budget"):  # the stage's share of it
        reason = f"the time budget of {budget:g} s ran out ({reason})"
    return Code.SYNTHESIS_FAILED, [
        f"synthesis stopped: {reason}; raise synthesis_timeout_s in the request (or "
        "time_budget_s / node_budget in synthesis_options) to allow more"]


def _explanation_lines(explained: Any) -> list[str]:
    if explained is None:
        return []
    explanation = explained.explanation
    if explanation.status != Realizability.UNREALIZABLE:
        return [f"explanation {explanation.status}: {explanation.incomplete_reason or ''}"]
    lines = [f"core ({len(explanation.core)} of the spec's guarantees cannot hold together):"]
    for named in explanation.core:
        where = f" [{named.where()}]" if named.where() else ""
        lines.append(f"core: {named.description}: {named.formula}{where}")
    prevented = explanation.counter_run.get("prevented")
    if prevented:
        lines.append(f"counter-run: the environment keeps from holding: "
                     f"{prevented['description']}")
    return lines


def _audit_failure(run: Any) -> tuple[Code, list[str]]:
    stages = run.audit
    records = [r for r in (stages.raw_audit, stages.reduced_audit) if r is not None]
    verdicts = [r.verdict for r in records]
    code = (Code.AUTOMATON_INVALID if AuditVerdict.FAIL in verdicts else Code.AUDIT_INCOMPLETE)
    kinds = sorted({k for r in records for k in r.defect_kinds})
    lines = [f"audit {AuditVerdict.FAIL if code == Code.AUTOMATON_INVALID else 'INCOMPLETE'}"
             + (f": {', '.join(kinds)}" if kinds else "")]
    lines += [f"{d.kind}: {d.message}" for r in records for d in r.defects]
    lines += [f"audit incomplete: {r.incomplete_reason}" for r in records
              if r.verdict == AuditVerdict.INCOMPLETE and r.incomplete_reason]
    if stages.stopped:
        lines.append(f"audit stopped: {stages.stopped}")
    return code, lines
