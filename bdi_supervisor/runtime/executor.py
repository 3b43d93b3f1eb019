"""The embedded executor: runs a supervisor machine against capability adapters.

It steps the same :class:`~bdi_supervisor.realize.machine.SupervisorMachine` the FlexBE code
generator writes out (same states, parameters and outcome → target wiring). Per step: start the
active state's adapter with the state's resolved parameters, wait for the outcome under its
deadline (:func:`~bdi_supervisor.runtime.adapters.invoke`), follow the transition for that
normalized outcome (sensor-guarded branches resolved by the ``sensors`` callback), update the
beliefs, and emit BDI state records. The run ends when a transition leads to a container outcome
(``goal_reached`` for a success outcome, ``failed`` otherwise), when an outcome arrives that the
strategy's assumptions exclude there (``assumption_violated``), when an adapter breaks a capability
that cannot fail (``adapter_error``), on an operator stop (the activation is cancelled:
``stopped``), when the goals hold in a mission without SM outcomes, or after ``max_steps``.
What an unanswered outcome and the step limit mean depends on the machine (:class:`Endings`): a
synthesized strategy leaves only the outcomes its assumptions exclude unanswered, a counter-run's
lasso the environment's winning move (its replays are labelled by
:func:`bdi_supervisor.pipeline.explain.counter_run_endings`).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.common import FAILURE_SM_OUTCOMES
from bdi_supervisor.realize.machine import UNEXPECTED, SupervisorMachine
from bdi_supervisor.runtime.adapters import (
    Activation,
    Adapter,
    Outcome,
    Stopped,
    check_binding,
    invoke,
)
from bdi_supervisor.runtime.bdi_state import Callback, make_record
from bdi_supervisor.runtime.beliefs import BeliefTracker
from bdi_supervisor.synthesis.strategy import Strategy

#: container outcomes that mean the mission failed (anything else is success)
FAILURE_OUTCOMES = FAILURE_SM_OUTCOMES | {UNEXPECTED}


@dataclass
class Step:
    """One activation of the run and where it led."""

    step: int
    state: str
    strategy_id: int
    capability: str
    parameters: dict[str, Any]
    attempt: int
    outcome: Outcome
    next: str
    to_outcome: bool
    t_start: float
    duration: float

    @property
    def recovery(self) -> bool:
        """True when the outcome was not ``completed`` (the transition is a recovery)."""
        return self.outcome.outcome != "completed"

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "state": self.state, "strategy_id": self.strategy_id,
                "capability": self.capability, "parameters": self.parameters,
                "attempt": self.attempt, **self.outcome.to_dict(), "next": self.next,
                "to_outcome": self.to_outcome, "t_start": round(self.t_start, 6),
                "duration": round(self.duration, 6)}


@dataclass(frozen=True)
class Endings:
    """How a run that ends without a container outcome is labelled: ``unanswered`` (status and
    reason) for an outcome the machine's strategy does not answer, ``limit`` for the step limit.
    The reasons are formatted with ``outcome``, ``capability``, ``state`` and ``max_steps``."""

    unanswered: tuple[str, str] = (
        "assumption_violated",
        "outcome {outcome!r} of {capability} is excluded by the strategy's assumptions at {state}")
    limit: tuple[str, str] = ("step_limit", "{max_steps} steps without an end")
    #: the container outcome of a run that ends in ``unanswered`` (None: none)
    unanswered_outcome: str | None = UNEXPECTED


@dataclass
class RunResult:
    status: str
    sm_outcome: str | None
    steps: list[Step]
    reason: str = ""
    run_id: str = ""
    final_state: str | None = None
    beliefs: dict[str, Any] = field(default_factory=dict)
    desires: list[dict[str, Any]] = field(default_factory=list)

    @property
    def goal_reached(self) -> bool:
        return self.status == "goal_reached"

    def recoveries(self) -> list[Step]:
        return [s for s in self.steps if s.recovery]

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "sm_outcome": self.sm_outcome, "reason": self.reason,
                "run_id": self.run_id, "final_state": self.final_state,
                "steps": [s.to_dict() for s in self.steps],
                "recoveries": [
                    {"step": s.step, "state": s.state, "outcome": s.outcome.outcome,
                     "reason": s.outcome.reason, "forced": s.outcome.forced, "next": s.next}
                    for s in self.recoveries()],
                "beliefs": self.beliefs, "desires": self.desires}


class Executor:
    """Runs ``machine`` with one adapter per capability (see the module docstring)."""

    def __init__(self, machine: SupervisorMachine, catalog: Catalog,
                 adapters: Mapping[str, Adapter], *,
                 strategy: Strategy | None = None,
                 goals: Sequence[tuple[str, Any]] = (),
                 initial_beliefs: Mapping[str, Any] | None = None,
                 callbacks: Sequence[Callback] = (),
                 sensors: Callable[[], Mapping[str, Any]] | None = None,
                 ground_truth: Callable[[], dict] | None = None,
                 timeouts: Mapping[str, float] | None = None,
                 max_steps: int = 1000, mission: str = "", seed: int | None = None,
                 stop: threading.Event | None = None, source: str | None = None,
                 endings: Endings | None = None) -> None:
        self.machine = machine
        self.catalog = catalog
        self.adapters = dict(adapters)
        self.strategy = strategy
        self.callbacks = list(callbacks)
        self.sensors = sensors
        self.ground_truth = ground_truth
        self.timeouts = dict(timeouts or {})
        self.max_steps = max_steps
        self.mission = mission or machine.name
        self.seed = seed
        self.stop = stop or threading.Event()
        self.endings = endings or Endings()
        self.run_id = uuid.uuid4().hex[:12]
        self.beliefs = BeliefTracker(catalog, goals, initial_beliefs)
        self._seq = 0
        self._t0 = time.monotonic()
        self._last: dict[str, Any] | None = None
        self.declared = {s.capability: tuple(catalog.capabilities[s.capability].outcomes)
                         for s in machine.states}
        check_binding(self.declared, self.adapters, source)

    # -- records ------------------------------------------------------------------------------
    def _emit(self, event: str, state: str | None, intention: dict | None,
              status: str = "running", sm_outcome: str | None = None) -> None:
        strategy_state = None
        if state is not None:
            strategy_state = {"machine_state": state,
                              "strategy_id": self.machine.state(state).strategy_id}
        record = make_record(
            run_id=self.run_id, seq=self._seq, event=event, t_wall=time.time(),
            t_run=round(time.monotonic() - self._t0, 6), mission=self.mission, seed=self.seed,
            strategy_state=strategy_state, intention=intention,
            beliefs=self.beliefs.beliefs(), desires=self.beliefs.desires(),
            last_outcome=self._last, status=status, sm_outcome=sm_outcome,
            ground_truth=self.ground_truth() if self.ground_truth else None)
        self._seq += 1
        for callback in self.callbacks:
            callback(record)

    # -- stepping -----------------------------------------------------------------------------
    def initial_state(self) -> str:
        if self.sensors is not None and self.machine.initial_branches:
            readings = self.sensors()
            for branch in self.machine.initial_branches:
                matches = all(readings.get(k) == v for k, v in branch.guard.items())
                if matches and not branch.to_outcome:
                    return branch.target
        return self.machine.initial

    def step(self, state_name: str, *, step: int = 0, attempt: int = 1) -> tuple[Step, str]:
        """Run the activation of ``state_name``; returns the step and the resulting status
        (``running``, ``goal_reached``, ``failed``, ``assumption_violated``, ``adapter_error``).
        Raises :class:`Stopped` on an operator stop."""
        state = self.machine.state(state_name)
        activation = Activation(state.capability, dict(state.parameters), state.name, attempt, step)
        timeout = self.timeouts.get(state.capability)
        adapter = self.adapters[state.capability]
        deadline = timeout if timeout is not None else adapter.describe().timeout
        intention = {"capability": state.capability, "parameters": dict(state.parameters),
                     "attempt": attempt, "step": step, "deadline_s": deadline}
        self._emit("activate", state.name, intention)
        t_start = time.monotonic() - self._t0
        outcome = invoke(adapter, activation, self.declared[state.capability],
                         timeout=timeout, stop=self.stop)
        duration = time.monotonic() - self._t0 - t_start
        status = "running"
        sensed: dict[str, Any] = {}
        if outcome.outcome not in state.transitions:
            target, to_outcome, status = "adapter_error", True, "adapter_error"
        else:
            transition = state.transitions[outcome.outcome]
            readings = self.sensors() if self.sensors is not None else None
            target = transition.select(readings)
            to_outcome = transition.to_outcome
            for branch in transition.branches:
                if branch.target == target:
                    to_outcome, sensed = branch.to_outcome, branch.guard
                    break
            if transition.excluded:
                status = "assumption_violated"
            elif to_outcome:
                status = "failed" if target in FAILURE_OUTCOMES else "goal_reached"
        record = Step(step, state.name, state.strategy_id, state.capability,
                      dict(state.parameters), attempt, outcome, target, to_outcome, t_start,
                      duration)
        if outcome.outcome:
            self.beliefs.observe(state.capability, outcome.outcome, step,
                                 self._chosen(None if to_outcome else target), sensed)
        self._last = {"capability": state.capability, "state": state.name, "step": step,
                      "next": target, **outcome.to_dict()}
        return record, status

    def _chosen(self, next_state: str | None) -> dict[str, Any] | None:
        """Values the strategy chose for ``@var`` setters: the next state's outputs."""
        if self.strategy is None or next_state is None:
            return None
        return dict(self.strategy.state(self.machine.state(next_state).strategy_id).outputs)

    def run(self, start: str | None = None) -> RunResult:
        """Run from ``start`` (default: the initial state) until the run ends."""
        current = start or self.initial_state()
        self._emit("start", current, None)
        steps: list[Step] = []
        status, reason, sm_outcome = "running", "", None
        attempt, previous = 0, None
        try:
            while status == "running":
                if len(steps) >= self.max_steps:
                    status, reason = self.endings.limit
                    reason = reason.format(max_steps=self.max_steps)
                    break
                if self.stop.is_set():
                    raise Stopped(current)
                attempt = attempt + 1 if current == previous else 1
                previous = current
                record, status = self.step(current, step=len(steps), attempt=attempt)
                steps.append(record)
                if status == "running":
                    current = record.next
                    if not self.machine.outcomes and self.beliefs.goals_satisfied():
                        status, reason = "goal_reached", "mission goals hold"
                    self._emit("outcome", current, None,
                               "running" if status == "running" else status)
                else:
                    sm_outcome = record.next if record.to_outcome and status in (
                        "goal_reached", "failed") else None
                    reason = (record.outcome.reason
                              or f"{record.capability} {record.outcome.outcome}")
                    if status == "assumption_violated":
                        status, reason = self.endings.unanswered
                        reason = reason.format(outcome=record.outcome.outcome,
                                               capability=record.capability, state=record.state)
                        sm_outcome = self.endings.unanswered_outcome
                        record.next = self._last["next"] = sm_outcome or status
                    elif status == "goal_reached":
                        reason = f"reached {record.next}"
                    self._emit("outcome", None, None, status, sm_outcome)
        except Stopped:
            status, reason = "stopped", "operator stop"
        final = None if sm_outcome is not None else current
        self._emit("end", final, None, status, sm_outcome)
        return RunResult(status, sm_outcome, steps, reason, self.run_id, final,
                         self.beliefs.beliefs(), self.beliefs.desires())

    def close(self) -> None:
        for adapter in self.adapters.values():
            close = getattr(adapter, "close", None)
            if close is not None:
                close()
            inner = getattr(adapter, "inner", None)
            if inner is not None and getattr(inner, "close", None):
                inner.close()
