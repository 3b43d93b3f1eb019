"""One BDI-record stream for a FlexBE run the embedded executor follows (plain Python).

Under ``runner:=flexbe`` two sources report a run: FlexBE onboard's ``BEStatus`` reports
(:class:`~bdi_supervisor.ros.flexbe_run.FlexbeRun`: hand-shake, ``status`` records, how FlexBE
ended the behavior) and the executor that follows the behavior state by state
(:mod:`bdi_supervisor.runtime.flexbe_link`: ``start``, ``activate`` and ``outcome`` records, as an
embedded run has them). :class:`FollowedRun` makes them one run for the monitor: one ``run_id``,
one gap-free ``seq`` (records are published under its lock, in ``seq`` order, whichever thread
made them), the executor's ``start`` first (status reports before it are held), every record
marked ``runner: flexbe``, and one ``end`` record once both are done:

- the executor reached a container outcome: FlexBE must finish the behavior with that outcome;
- the executor ended without one (the goals hold in a mission without container outcomes, the
  step limit): the supervisor preempts the behavior (:attr:`FollowedRun.wants_preempt`) and
  FlexBE must report it preempted;
- then the run ends as the executor's run ended (the same status as an embedded run of the same
  outcomes); any other ending of FlexBE's is an error naming both;
- FlexBE ended first (an error, an operator's preempt, a behavior that left the supervisor's
  machine): the executor is stopped and the run ends as FlexBE's report says;
- FlexBE ended the run before the executor was started (no acknowledgement, a behavior onboard
  refused): the run's records are :class:`FlexbeRun`'s own (``start``, ``status``, ``end``).

The ``end`` record is the executor's (beliefs, desires, last outcome), with the run's status and
FlexBE's last report (``flexbe_status``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from bdi_supervisor.handover import RunState
from bdi_supervisor.ros.flexbe_run import PREEMPTED, FlexbeRun
from bdi_supervisor.runtime.bdi_state import Record

#: executor statuses that end a run by themselves (``stopped``: it was stopped from outside)
ENDED = ("goal_reached", "failed", "assumption_violated", "adapter_error", "step_limit")


class FollowedRun:
    """Merges the executor's records and FlexBE's reports of one run (module docstring);
    ``publish`` is called with every record, in order."""

    def __init__(self, run: FlexbeRun, publish: Callable[[Record], None]) -> None:
        self.run = run
        self.publish = publish
        self.state, self.detail = run.state, run.detail
        self.sm_outcome: str | None = None  # the container outcome the run ended in
        self.error: str | None = None  # the executor left FlexBE's behavior (the link's error)
        self._lock = threading.RLock()
        self._seq = 0
        self._started = False
        self._held: list[Record] = []
        self._end: Record | None = None
        self._done = False
        self._expected = False  # the executor was started
        self._own: list[Record] = []  # FlexbeRun's start and end, for a run without executor
        self._last: Record = {}

    # -- inputs -----------------------------------------------------------------------------
    def executor_record(self, record: Record) -> None:
        """A record of the following executor (its thread)."""
        with self._lock:
            if record["event"] == "end":
                self._end = record
                self._finish()
                return
            self._emit(record)
            if record["event"] == "start":
                self._started = True
                held, self._held = self._held, []
                for status in held:
                    self._emit(status)

    def expect_executor(self) -> None:
        """The executor was started: its ``start`` and ``end`` records make the run's."""
        with self._lock:
            self._expected = True

    def flexbe_records(self, records: list[Record]) -> None:
        """Records of :class:`FlexbeRun` (its ``start`` and ``end`` are the executor's here)."""
        with self._lock:
            for record in records:
                if record["event"] != "status":
                    self._own.append(record)
                elif self._started:
                    self._emit(record)
                else:
                    self._held.append(record)
            self._finish()

    def _own_records(self) -> None:
        """A run without the executor's records: :class:`FlexbeRun`'s own."""
        self._done = True
        self.state, self.detail = self.run.state, self.run.detail
        self.sm_outcome = self.run.outcome
        if self.error is not None:
            self.state, self.detail = RunState.ERROR, self.error
        start = [r for r in self._own if r["event"] == "start"]
        ends = [r for r in self._own if r["event"] == "end"]
        for record in [*start, *self._held, *ends]:
            self._emit(record if record["event"] != "end" or self.error is None
                       else {**record, "status": "failed"})
        self._held = []

    def fail(self, why: str) -> None:
        """The executor cannot follow the behavior (it left the supervisor's machine, or the
        follower failed): the run ends with this error once FlexBE stopped the behavior."""
        with self._lock:
            if self.error is None:
                self.error = why
            if self._end is None and self._started:  # it failed without its end record
                self._end = {**self._last, "event": "end", "status": "stopped"}
            elif self._end is None:  # it failed before its first record
                self._expected = False
            self._finish()

    # -- state ------------------------------------------------------------------------------
    @property
    def executor_ended(self) -> bool:
        """The executor's run is over (its ``end`` record came)."""
        with self._lock:
            return self._end is not None

    @property
    def wants_preempt(self) -> bool:
        """FlexBE's behavior goes on where the run is over: the executor ended without a
        container outcome, or it cannot follow the behavior."""
        with self._lock:
            if self.run.state.final:
                return False
            return self.error is not None or (
                self._end is not None and self._end["status"] in ENDED
                and self._end.get("sm_outcome") is None)

    @property
    def done(self) -> bool:
        with self._lock:
            return self._done

    # -- internals --------------------------------------------------------------------------
    def _emit(self, record: Record) -> None:
        record = {**record, "run_id": self.run.run_id, "seq": self._seq, "runner": "flexbe"}
        self._seq += 1
        self._last = record
        self.publish(record)

    def _finish(self) -> None:
        if self._done or not self.run.state.final:
            return
        if not self._expected:
            self._own_records()
            return
        if self._end is None:
            return
        self._done = True
        self.state, self.detail = self._verdict()
        self.sm_outcome = self._end.get("sm_outcome")
        status = self.state.value if self.state.value in (*ENDED, "stopped") else "failed"
        end = {**self._end, "status": status}
        if self.run.reports:
            end["flexbe_status"] = self.run.reports[-1].to_dict()
        self._emit(end)

    def _verdict(self) -> tuple[RunState, str]:
        """How the run ended (see the module docstring)."""
        end, run = self._end, self.run
        if self.error is not None:
            return RunState.ERROR, self.error
        status, sm_outcome = end["status"], end.get("sm_outcome")
        if status not in ENDED:  # stopped: FlexBE ended first, its report says how
            return run.state, run.detail
        expected = sm_outcome if sm_outcome is not None else PREEMPTED
        reason = _reason(end)
        if run.outcome == expected:
            return RunState(status), reason
        return RunState.ERROR, (f"FlexBE ended the behavior ({run.detail}) where the supervisor's "
                                f"machine ended {status} ({reason}); expected FlexBE to finish "
                                f"with {expected}")


def _reason(end: Record) -> str:
    last: dict[str, Any] = end.get("last_outcome") or {}
    if end.get("sm_outcome") is not None:
        return f"reached {end['sm_outcome']}"
    if end["status"] == "goal_reached":
        return "mission goals hold"
    return f"{end['status']} after {last.get('capability')} {last.get('outcome')}"
