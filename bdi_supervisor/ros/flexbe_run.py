"""The supervisor's side of a FlexBE run, as plain data (no rclpy, no flexbe_msgs).

**Hand-shake.** ``flexbe/start_behavior`` is a volatile topic: a ``BehaviorSelection`` published
before onboard's subscription is matched is lost, and onboard never answers it. So the supervisor
node (:class:`Handshake`) waits until a subscriber of that topic is matched with its publisher,
sends, and sends again every ``resend_period`` seconds until onboard acknowledges the behavior:
any ``BEStatus`` carrying the selection's ``behavior_id`` other than READY (STARTED, or ERROR
when onboard refuses it). Without an acknowledgement within ``timeout`` seconds of the
hand-over (onboard not running, not subscribed, or silent) the run ends with an error naming
what was missing. Re-sends are spaced so that onboard (which prepares a behavior in well under a
second) answers the first one before the next: a selection that arrives while the same behavior
runs would be taken as a behavior switch.

**Reports.** Every ``BEStatus`` received during the run (:class:`Report`) goes into the run's
diagnostics (:meth:`FlexbeRun.values`) and into its BDI-state stream as a ``status`` record
(:mod:`bdi_supervisor.runtime.bdi_state`): ``start`` when the selection is first sent, one
``status`` per ``BEStatus``, ``end`` when FlexBE finished the behavior, failed it (FAILED,
ERROR) or never acknowledged it (``failed``).

**Outcomes** (:func:`outcome_state`). FINISHED carries ``[str(outcome)]`` of the behavior's
container. Only the mission's success outcome (:func:`~bdi_supervisor.common.success_outcome`
of the behavior's container outcomes) is the goal; its other container outcomes are the
mission's designed endings (``failed``); ``preempted`` is a stop; anything else is an engine
error: ``None`` (FlexBE 3.x and 4.x end a behavior whose state raised with ``None``, as they do
a behavior cut short by onboard's shutdown), an outcome the behavior does not have, any outcome
of a behavior without container outcomes. docs/flexbe.md has the table of what each FlexBE line
sends.

BEStatus codes (``flexbe_msgs/BEStatus``): STARTED 0, FINISHED 1, FAILED 2, LOCKED 4, WAITING 5,
SWITCHING 6, WARNING 10, ERROR 11, READY 20, RUNNING 30.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.common import success_outcome
from bdi_supervisor.handover import RunState
from bdi_supervisor.runtime.bdi_state import Record, make_record

STARTED, FINISHED, FAILED, ERROR, READY = 0, 1, 2, 11, 20
CODE_NAMES = {0: "STARTED", 1: "FINISHED", 2: "FAILED", 4: "LOCKED", 5: "WAITING",
              6: "SWITCHING", 10: "WARNING", 11: "ERROR", 20: "READY", 30: "RUNNING"}
#: container outcome of a behavior stopped by the operator (or by the supervisor node)
PREEMPTED = "preempted"
DEFAULT_TIMEOUT, DEFAULT_RESEND_PERIOD = 30.0, 5.0


@dataclass(frozen=True)
class Report:
    """One ``BEStatus`` as plain data."""

    code: int
    behavior_id: int
    args: tuple[str, ...] = ()
    stamp_ns: int = 0

    @property
    def name(self) -> str:
        return CODE_NAMES.get(self.code, f"code {self.code}")

    def describe(self) -> str:
        args = f" {list(self.args)}" if self.args else ""
        return f"{self.name} (behavior {self.behavior_id}){args}"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "behavior_id": self.behavior_id,
                "args": list(self.args), "stamp_ns": self.stamp_ns}


@dataclass
class Handshake:
    """When to send the selection of ``behavior_id``, and when to give up (times in seconds of
    any monotonic clock, given by the caller)."""

    behavior_id: int
    started: float
    timeout: float = DEFAULT_TIMEOUT
    resend_period: float = DEFAULT_RESEND_PERIOD
    sends: int = 0
    acknowledged: Report | None = None
    last_send: float | None = None

    def __post_init__(self) -> None:
        if not self.timeout > 0 or not self.resend_period > 0:
            raise ValueError("timeout and resend_period must be > 0")

    @property
    def max_sends(self) -> int:
        """The bound on sends: one per period within the timeout."""
        return 1 + int(self.timeout // self.resend_period)

    def step(self, now: float, matched: bool) -> str:
        """``send``, ``wait`` or ``give_up`` at time ``now``; ``matched``: onboard's
        subscription is matched with the selection publisher. After ``send`` the caller
        publishes; :meth:`step` records it."""
        if self.acknowledged is not None:
            return "wait"
        if now - self.started >= self.timeout:
            return "give_up"
        if not matched:
            return "wait"
        due = self.last_send is None or now - self.last_send >= self.resend_period
        if due and self.sends < self.max_sends:
            self.sends += 1
            self.last_send = now
            return "send"
        return "wait"

    def acknowledge(self, report: Report) -> bool:
        """Whether ``report`` acknowledges the selection (recorded on the first one)."""
        if report.behavior_id != self.behavior_id or report.code == READY:
            return False
        if self.acknowledged is None:
            self.acknowledged = report
        return True

    def failure(self, matched: bool) -> str:
        """Why the hand-shake gave up (for the run's error)."""
        if self.sends == 0 and not matched:
            return (f"no subscriber on flexbe/start_behavior within {self.timeout:g} s: is FlexBE "
                    "onboard running (runner:=flexbe includes it)?")
        return (f"FlexBE onboard did not acknowledge behavior {self.behavior_id} within "
                f"{self.timeout:g} s ({self.sends} BehaviorSelection sent, no BEStatus with "
                "that behavior_id)")


@dataclass(frozen=True)
class ContainerOutcomes:
    """The behavior's container outcomes as the mission means them: ``goal`` (its success
    outcome, None when it has none) and ``others`` (its designed endings that are not the
    goal)."""

    goal: str | None = None
    others: tuple[str, ...] = ()

    @classmethod
    def of(cls, outcomes: Iterable[str]) -> ContainerOutcomes:
        """Split a behavior's container ``outcomes`` (the supervisor machine's, in order)."""
        outcomes = tuple(outcomes)
        goal = success_outcome(outcomes)
        return cls(goal, tuple(o for o in outcomes if o != goal))

    @property
    def all(self) -> tuple[str, ...]:
        return ((self.goal,) if self.goal is not None else ()) + self.others


def outcome_state(outcome: str | None, outcomes: ContainerOutcomes) -> tuple[RunState, str]:
    """The run state, and why, of a behavior FlexBE finished with ``outcome`` (its FINISHED
    report's first argument; None when it carried none)."""
    if outcome is not None and outcome == outcomes.goal:
        return RunState.GOAL_REACHED, f"FlexBE behavior finished: {outcome} (the mission's goal)"
    if outcome in outcomes.others:
        return RunState.FAILED, (f"FlexBE behavior finished: {outcome} (an outcome of the "
                                 "mission that is not its goal)")
    if outcome == PREEMPTED:
        return RunState.STOPPED, "FlexBE behavior preempted"
    if outcome in (None, "", "None"):
        return RunState.ERROR, ("FlexBE behavior ended without an outcome (None): a state raised "
                                "an exception or onboard shut down; see onboard's log")
    known = ", ".join(outcomes.all) or "none: the behavior has no container outcomes"
    return RunState.ERROR, (f"FlexBE behavior finished with '{outcome}', not an outcome of "
                            f"the behavior ({known})")


@dataclass
class FlexbeRun:
    """One FlexBE run: its reports, state and BDI-state records."""

    mission: str
    behavior_id: int
    initial_state: str
    goals: tuple[str, ...] = ()
    #: the behavior's container outcomes (none known: no FINISHED is the goal)
    outcomes: ContainerOutcomes = field(default_factory=ContainerOutcomes)
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    reports: list[Report] = field(default_factory=list)
    state: RunState = RunState.WAITING
    detail: str = "waiting for FlexBE onboard"
    outcome: str | None = None
    _seq: int = 0
    _t0: float = field(default_factory=time.monotonic)

    def start(self, package_path: str) -> Record:
        """The run is handed to FlexBE (first selection sent): the ``start`` record."""
        self.state, self.detail = RunState.RUNNING, f"started {package_path} in FlexBE onboard"
        return self._record("start", strategy_state={"machine_state": self.initial_state,
                                                     "strategy_id": None})

    def report(self, report: Report) -> list[Record]:
        """A ``BEStatus`` of this run: its ``status`` record, and the ``end`` record when it
        ends the run."""
        if self.state.final:
            return []
        self.reports.append(report)
        if self.state == RunState.WAITING:  # before the start record: diagnostics only
            return []
        records = [self._record("status", flexbe_status=report.to_dict())]
        if report.behavior_id != self.behavior_id:
            return records
        if report.code == FINISHED:
            self.outcome = report.args[0] if report.args else None
            return records + self.end(*outcome_state(self.outcome, self.outcomes))
        if report.code in (FAILED, ERROR):
            return records + self.end(RunState.ERROR, f"FlexBE onboard reported "
                                      f"{report.describe()}; see onboard's log")
        return records

    def end(self, state: RunState, detail: str) -> list[Record]:
        """End the run in ``state`` (no acknowledgement, or a final report): the ``end``
        record."""
        if self.state.final:
            return []
        self.state, self.detail = state, detail
        bdi_status = state.value if state in (RunState.GOAL_REACHED, RunState.STOPPED) \
            else RunState.FAILED.value
        return [self._record("end", status=bdi_status, sm_outcome=self.outcome,
                             last_outcome={"reason": detail, "flexbe_outcome": self.outcome})]

    def values(self) -> dict[str, str]:
        """Diagnostic values: every report so far (``flexbe.<n>``) and the last one."""
        values = {"behavior_id": str(self.behavior_id), "flexbe.reports": str(len(self.reports))}
        if self.reports:
            values["flexbe.last"] = self.reports[-1].describe()
        values.update({f"flexbe.{i}": r.describe() for i, r in enumerate(self.reports)})
        if self.outcome is not None:
            values["sm_outcome"] = self.outcome
        return values

    def _record(self, event: str, *, strategy_state: dict | None = None,
                status: str = "running", sm_outcome: str | None = None,
                last_outcome: dict | None = None, **extra: Any) -> Record:
        record = make_record(
            run_id=self.run_id, seq=self._seq, event=event, t_wall=time.time(),
            t_run=time.monotonic() - self._t0, mission=self.mission, seed=None,
            strategy_state=strategy_state, intention=None, beliefs={},
            desires=[{"goal": goal, "satisfied": None} for goal in self.goals],
            last_outcome=last_outcome, status=status, sm_outcome=sm_outcome)
        record["runner"] = "flexbe"
        record.update(extra)
        self._seq += 1
        return record
