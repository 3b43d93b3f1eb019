"""Handing an audited supervisor to whoever runs it (plain Python).

Only a supervisor whose audits passed runs: ``bdi-supervisor run`` checks the pipeline's verdict
(:func:`check_audit`), and the supervisor node also checks the synthesis node's hand-over
message (:func:`accept_handover`): it must name this node's mission, carry the audit verdict
``PASS`` and the sha256 of the ``reduced.json`` it hands over, and that file must still have
that digest (a file changed after its audit is refused). :class:`RunState` is where a run of
the supervisor node stands; :attr:`RunState.exit_code` and :func:`no_handover_exit_code` are the
exit codes of the nodes that end with ``exit_when_done`` (one per kind of ending, docs/ros2.md).
"""

from __future__ import annotations

import hashlib
import json
from enum import Enum
from pathlib import Path
from typing import Any

from bdi_supervisor.common import AuditVerdict, ExitCode, Realizability

#: the audit verdict of a supervisor that may run
PASS = AuditVerdict.PASS
#: the file whose digest the hand-over carries
REDUCED = "reduced.json"
#: the file in a run folder where a node with ``exit_when_done`` leaves its verdict
VERDICT = "verdict.json"


class RunState(str, Enum):
    """Where a run stands: before it, during it, or how it ended (the executor's final statuses,
    :data:`bdi_supervisor.runtime.bdi_state.FINAL_STATUSES`, and the node's own)."""

    WAITING = "waiting"
    RUNNING = "running"
    REFUSED = "refused"
    ERROR = "error"
    GOAL_REACHED = "goal_reached"
    FAILED = "failed"
    STOPPED = "stopped"
    ASSUMPTION_VIOLATED = "assumption_violated"
    ADAPTER_ERROR = "adapter_error"
    STEP_LIMIT = "step_limit"
    DEADLOCK = "deadlock"
    LOOP = "loop"

    @property
    def healthy(self) -> bool:
        """Nothing has gone wrong (yet): waiting, running, or the goal reached."""
        return self in (RunState.WAITING, RunState.RUNNING, RunState.GOAL_REACHED)

    @property
    def final(self) -> bool:
        return self not in (RunState.WAITING, RunState.RUNNING)

    @property
    def exit_code(self) -> int:
        """The exit code of a run that ended in this state (:data:`RUN_EXIT_CODES`)."""
        return RUN_EXIT_CODES.get(self, ExitCode.ENGINE_ERROR)


#: how each final run state ends a process: the goal 0, a designed outcome that is not the goal
#: (or one the assumptions exclude) 4, the step limit 3 (a budget), a stop 7, an engine or
#: adapter error 6, a refused supervisor 5, a replayed counter-run's win of the environment 1
RUN_EXIT_CODES = {
    RunState.GOAL_REACHED: ExitCode.OK,
    RunState.FAILED: ExitCode.FAILURE_OUTCOME,
    RunState.ASSUMPTION_VIOLATED: ExitCode.FAILURE_OUTCOME,
    RunState.STEP_LIMIT: ExitCode.INCOMPLETE,
    RunState.STOPPED: ExitCode.STOPPED,
    RunState.ERROR: ExitCode.ENGINE_ERROR,
    RunState.ADAPTER_ERROR: ExitCode.ENGINE_ERROR,
    RunState.REFUSED: ExitCode.AUDIT_REFUSED,
    # a replayed counter-run: the environment wins, the mission is unrealizable
    RunState.DEADLOCK: ExitCode.NEGATIVE,
    RunState.LOOP: ExitCode.NEGATIVE,
}


def no_handover_exit_code(synthesis: str | None, audit: str | None) -> int:
    """The exit code of a pipeline that handed nothing over, from its synthesis verdict and
    audit verdict: unrealizable 1, a budget that ran out (synthesis or audit) 3, an audit that
    failed 5, anything else (an error: the mission could not be read or written) 2."""
    if synthesis == Realizability.UNREALIZABLE:
        return ExitCode.NEGATIVE
    if synthesis == Realizability.INCOMPLETE or audit == AuditVerdict.INCOMPLETE:
        return ExitCode.INCOMPLETE
    if audit == AuditVerdict.FAIL:
        return ExitCode.AUDIT_REFUSED
    return ExitCode.BAD_INPUT


class Refused(ValueError):
    """A supervisor that must not run; the message says why."""


def deployable(verdict: str | None) -> bool:
    """Whether a supervisor with audit ``verdict`` may run (``None``: no audit record, as in a
    saved run folder without one)."""
    return verdict in (None, PASS)


def check_audit(verdict: str | None, where: str | Path | None = None) -> None:
    """Raise :class:`Refused` unless :func:`deployable`; ``where``: the run folder, if any."""
    if not deployable(verdict):
        place = f" in {where}" if where else ""
        raise Refused(f"supervisor audit {verdict}{place}; not executing")


def sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def handover_body(mission_file: str | Path, folder: str | Path, attempt: int) -> dict[str, Any]:
    """The hand-over of the audited supervisor saved in ``folder`` (its ``reduced.json``)."""
    return {"mission": str(mission_file), "folder": str(folder), "audit": PASS,
            "reduced_sha256": sha256(Path(folder) / REDUCED), "attempt": attempt}


def same_mission(body: dict[str, Any], mission_file: str | Path) -> bool:
    """Whether the hand-over ``body`` is for the mission in ``mission_file``."""
    named = body.get("mission")
    return isinstance(named, str) and bool(named) and (
        Path(named).resolve() == Path(mission_file).resolve())


def accept_handover(body: dict[str, Any], mission_file: str | Path) -> Path:
    """The run folder of a hand-over for ``mission_file``; raise :class:`Refused` when it may not
    run (another mission's hand-over: check :func:`same_mission` first, it is not refused but
    ignored)."""
    if not same_mission(body, mission_file):
        raise Refused(f"hand-over of another mission: {body.get('mission')!r}")
    if body.get("audit") != PASS:
        raise Refused(f"hand-over without audit {PASS} ({body.get('audit')!r})")
    folder = Path(str(body.get("folder") or ""))
    reduced = folder / REDUCED
    if not body.get("folder") or not reduced.is_file():
        raise Refused(f"hand-over names no {REDUCED} in {str(folder)!r}")
    if sha256(reduced) != body.get("reduced_sha256"):
        raise Refused(f"{reduced} changed after its audit")
    return folder


def write_verdict(folder: str | Path, stage: str, state: str, exit_code: int, reason: str,
                  **extra: Any) -> Path:
    """Leave the verdict that ends a node (``stage``: ``synthesis`` or ``run``) in ``folder``'s
    :data:`VERDICT`, for a script: ``{stage, state, exit_code, reason, ...}``. Raises
    :class:`OSError` or :class:`~bdi_supervisor.errors.InputError` (the caller logs it: a verdict
    that cannot be written changes no exit code)."""
    from bdi_supervisor.outpaths import write_text_atomic

    body = {"stage": stage, "state": str(state), "exit_code": int(exit_code),
            "reason": reason, **extra}
    path = Path(folder) / VERDICT
    write_text_atomic(path, json.dumps(body, indent=1) + "\n", "verdict file")
    return path
