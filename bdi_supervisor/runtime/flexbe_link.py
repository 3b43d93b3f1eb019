"""The embedded executor following (and driving) a behavior that runs in FlexBE onboard.

Under ``runner:=flexbe`` FlexBE executes the realized behavior; the supervisor node runs the same
:class:`~bdi_supervisor.runtime.executor.Executor` as an embedded run beside it, with one
:class:`FlexbeAdapter` per capability instead of a simulator's. An activation ends when onboard
reports the state's outcome, so the executor emits the embedded runner's BDI records (beliefs,
desires, intentions, capability, outcome) for what FlexBE did, and ends the run where an embedded
run ends (a container outcome, the goals holding in a mission without one, the step limit).

**What onboard reports** (plain values here; :mod:`bdi_supervisor.ros.flexbe_follow` reads the
messages): every outcome a state takes as ``flexbe/debug/current_state`` text ``"<path> >
<outcome>"`` (published with the mirror's outcome, FlexBE 2.3, 3.0 and 4.0 alike); every outcome
a state may not take on its own at the current autonomy as an ``OutcomeRequest`` on
``flexbe/outcome_request`` (``target``: the state's path in 2.x/3.x, its int32 state id in 4.x;
``outcome``: the index in the state's outcomes, 255 withdrawing a request); the behavior's
structure (``flexbe/mirror/structure``: per state its path, id from 3.0 on, outcomes in FlexBE's
order).

**Driving.** A run the supervisor drives (:func:`control`) answers on
``flexbe/command/transition`` (:class:`Command`: the state's name in 2.x/3.x, which both compare
with the state's name; its id in 4.x). Without forced outcomes it confirms each request, as the
embedded executor takes an operator state's suggestion. With forced outcomes (``--force``
script, the mission's seeded random failures) onboard starts at autonomy ``off``, where no
outcome is autonomous: every state waits for the supervisor. The executor draws each
activation's decision from the embedded runner's own policy objects
(:func:`~bdi_supervisor.runtime.binding.make_policy`), in the same order, as
:class:`~bdi_supervisor.runtime.forced.ForcedAdapter` does: a decision other than ``completed``
is commanded as soon as the state is active (the state's own result is never taken), anything
else lets the state decide and confirms its request. No state can leave before its answer, and
an answer never reaches a state it was not meant for (it is sent only after the previous state's
outcome was reported), so the outcome sequence is the embedded executor's, on every engine line.

Reports and requests come on two topics, whose messages may arrive in another order than onboard
published them; each carries onboard's publication time (``stamp``, ns), by which a request is
placed: one published before the state's latest outcome belongs to an activation that is over
(a state forced at entry may have requested its own outcome first) and is never answered, one
published after it belongs to the state's next activation even when it arrives first (a state
that loops to itself).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.realize.machine import MachineState, SupervisorMachine
from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, Outcome
from bdi_supervisor.runtime.bdi_state import Callback
from bdi_supervisor.runtime.binding import make_policy
from bdi_supervisor.runtime.executor import Executor, RunResult
from bdi_supervisor.runtime.forced import Decision, OutcomePolicy
from bdi_supervisor.runtime.session import goals_of, initial_beliefs, runner_config
from bdi_supervisor.synthesis.strategy import Strategy

#: FlexBE's autonomy levels by name (Off, Low, High, Full)
AUTONOMY = {"off": 0, "low": 1, "high": 2, "full": 3}
#: the outcome a forced decision lets the state decide (as ForcedAdapter's nominal outcome)
NOMINAL = "completed"
#: how long an activation waits for onboard (FlexBE's states keep their own time limits; the
#: node ends a run whose onboard died)
FOLLOW_DEADLINE = 24 * 3600.0
#: ``OutcomeRequest.outcome`` of a withdrawn request
WITHDRAWN = 255
PREEMPTED = "preempted"


@dataclass(frozen=True)
class Control:
    """How a FlexBE run is started: onboard's autonomy ``level``, whether the supervisor
    answers onboard's outcome requests (``drive``) and applies forced outcomes (``forced``)."""

    level: int
    drive: bool
    forced: bool


def control(autonomy: str, exit_when_done: bool, has_policy: bool) -> Control:
    """The run's :class:`Control`.

    ``autonomy`` given (``off``/``low``/``high``/``full``): an operator's run at that level; the
    operator answers FlexBE's requests and forced outcomes are not applied. Not given: the
    supervisor drives a run with forced outcomes at ``off``; otherwise onboard runs at ``full``
    and the supervisor confirms the requests when the run is scripted (``exit_when_done``).
    """
    if autonomy:
        if autonomy not in AUTONOMY:
            raise ValueError(f"autonomy {autonomy!r}: expected one of {', '.join(AUTONOMY)}")
        return Control(AUTONOMY[autonomy], drive=False, forced=False)
    if has_policy:
        return Control(AUTONOMY["off"], drive=True, forced=True)
    return Control(AUTONOMY["full"], drive=exit_when_done, forced=False)


@dataclass(frozen=True)
class StateInfo:
    """One state of the behavior's structure as onboard sent it."""

    path: str
    state_id: int | None
    outcomes: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Command:
    """An answer on ``flexbe/command/transition``: ``target`` (name or id) and outcome index."""

    target: str | int
    outcome: int


def parse_current_state(text: str) -> tuple[str, str] | None:
    """``(path, outcome)`` of a ``flexbe/debug/current_state`` text, or None."""
    path, sep, outcome = text.partition(" > ")
    return (path.strip(), outcome.strip()) if sep and outcome.strip() else None


@dataclass
class _Activation:
    """The executor's current activation, as the link tracks it."""

    state: MachineState
    decision: Decision | None
    label: str | None  # the FlexBE outcome commanded (a forced decision), if any
    sent: bool = False
    result: Outcome | None = None


@dataclass
class FlexbeLink:
    """Where onboard's reports (ROS callbacks) meet the executor (its own thread).

    ``send`` publishes a :class:`Command`; ``by_id``: the engine line addresses states by id
    (4.x); ``policy`` and ``drive`` as in the module docstring; ``stop`` is set when the
    behavior left the supervisor's machine (:attr:`error` says how)."""

    machine: SupervisorMachine
    send: Callable[[Command], None]
    by_id: bool = False
    drive: bool = False
    policy: OutcomePolicy | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    error: str | None = None
    commands: list[Command] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        self._states = {s.name: s for s in self.machine.states}
        self._outcomes: deque[tuple[str, str]] = deque()
        #: state → (outcome index, stamp) of its latest open request
        self._requests: dict[str, tuple[int, int]] = {}
        #: state → stamp of its latest reported outcome
        self._reported: dict[str, int] = {}
        #: requests by state id that came before the structure (4.x)
        self._unresolved: list[tuple[int, int, int]] = []
        self._structure: dict[str, StateInfo] | None = None
        self._active: _Activation | None = None

    # -- onboard's side -----------------------------------------------------------------------
    def on_current_state(self, text: str, stamp: int) -> None:
        """A ``flexbe/debug/current_state`` text published at ``stamp``: a state of the machine
        took an outcome."""
        parsed = parse_current_state(text)
        if parsed is None:
            return
        path, label = parsed
        name = path.rsplit("/", 1)[-1]
        if path != f"/{name}" or name not in self._states or label == PREEMPTED:
            return  # the container's own outcome, or a state stopped by a preempt
        with self._lock:
            self._outcomes.append((name, label))
            self._reported[name] = max(stamp, self._reported.get(name, stamp))
            request = self._requests.get(name)
            if request is not None and request[1] < stamp:
                del self._requests[name]  # its activation is over
            self._settle()

    def on_request(self, target: str | int, outcome: int, stamp: int) -> None:
        """An ``OutcomeRequest`` from onboard published at ``stamp`` (``target``: the state's
        path, or its id on 4.x)."""
        with self._lock:
            name = self._name_of(target)
            if name is None:
                if isinstance(target, int) and self._structure is None:
                    self._unresolved.append((target, outcome, stamp))
                return
            self._request(name, outcome, stamp)
            self._answer()

    def on_structure(self, states: list[StateInfo]) -> None:
        """The behavior's structure (``flexbe/mirror/structure``), once."""
        with self._lock:
            if self._structure is not None:
                return
            self._structure = {s.name: s for s in states if s.path == f"/{s.name}"}
            unresolved, self._unresolved = self._unresolved, []
            for target, outcome, stamp in unresolved:
                name = self._name_of(target)
                if name is not None:
                    self._request(name, outcome, stamp)
            self._answer()

    @property
    def needs_structure(self) -> bool:
        """Whether onboard's structure is still missing for a command to send."""
        with self._lock:
            return self.drive and self._structure is None

    # -- the executor's side ------------------------------------------------------------------
    def adapters(self, declared: Mapping[str, tuple[str, ...]]) -> dict[str, FlexbeAdapter]:
        """One adapter per capability (``declared``: its normalized outcomes)."""
        return {cap: FlexbeAdapter(self, cap, outcomes) for cap, outcomes in declared.items()}

    def begin(self, activation: Activation, declared: tuple[str, ...]) -> _Activation:
        """The executor starts ``activation``: draw its decision and answer what can be."""
        state = self._states[activation.state]
        decision = None
        if self.drive and self.policy is not None:
            decision = self.policy.choose(activation, declared)
        label = None
        if decision is not None and decision.outcome != NOMINAL:
            label = next((f for f, n in state.outcomes.items() if n == decision.outcome), None)
        with self._lock:
            self._active = _Activation(state, decision, label)
            self._settle()
            self._answer()
            return self._active

    def result(self, active: _Activation) -> Outcome | None:
        with self._lock:
            return active.result

    # -- internals (called with the lock held) --------------------------------------------------
    def _request(self, name: str, outcome: int, stamp: int) -> None:
        if stamp < self._reported.get(name, stamp):
            return  # published before the state's latest outcome: that activation is over
        known = self._requests.get(name)
        if known is not None and known[1] > stamp:
            return
        if outcome == WITHDRAWN:
            self._requests.pop(name, None)
        else:
            self._requests[name] = (outcome, stamp)

    def _name_of(self, target: str | int) -> str | None:
        if isinstance(target, str):
            name = target.rsplit("/", 1)[-1]
            return name if name in self._states else None
        for info in (self._structure or {}).values():
            if info.state_id == target:
                return info.name
        return None

    def _target(self, name: str) -> str | int | None:
        if not self.by_id:
            return name
        info = (self._structure or {}).get(name)
        return None if info is None else info.state_id

    def _answer(self) -> None:
        """Send the active state's answer once: its forced outcome, or (driving) a confirmation
        of what it requested."""
        active = self._active
        if active is None or active.sent or active.result is not None or not self.drive:
            return
        name = active.state.name
        info = (self._structure or {}).get(name)
        target = self._target(name)
        if active.label is not None:
            if info is None or target is None:
                return  # onboard's structure gives the outcome's index (and the 4.x id)
            if active.label not in info.outcomes:
                self._fail(f"state {name} has no FlexBE outcome {active.label!r} "
                           f"(onboard lists {list(info.outcomes)})")
                return
            command = Command(target, info.outcomes.index(active.label))
        elif name in self._requests and target is not None:
            command = Command(target, self._requests.pop(name)[0])
        else:
            return
        active.sent = True
        self.commands.append(command)
        self.send(command)

    def _settle(self) -> None:
        """Give the active activation the next reported outcome, if it is there."""
        active = self._active
        if active is None or active.result is not None or not self._outcomes:
            return
        name, label = self._outcomes.popleft()
        state = active.state
        if name != state.name:
            self._fail(f"FlexBE reported {name} > {label} while the supervisor is at "
                       f"{state.name}: the behavior left the supervisor's machine")
            return
        normalized = state.outcomes.get(label)
        if normalized is None:
            self._fail(f"FlexBE reported {name} > {label}: not an outcome of {state.capability} "
                       f"(expected one of {', '.join(state.outcomes)})")
            return
        decision = active.decision
        if active.label is not None and label == active.label:
            active.result = Outcome(normalized, decision.reason, label, forced=True,
                                    layer=decision.layer)
        elif active.label is not None:
            self._fail(f"FlexBE took {name} > {label}, not the forced {active.label}")
        else:
            active.result = Outcome(normalized, "FlexBE state outcome", label)
        self._lock.notify_all()

    def _fail(self, why: str) -> None:
        if self.error is None:
            self.error = why
        self.stop.set()


class FlexbeAdapter:
    """The adapter of one capability under FlexBE: started when the executor activates a state,
    done when onboard reports that state's outcome (:class:`FlexbeLink`)."""

    def __init__(self, link: FlexbeLink, capability: str, declared: tuple[str, ...]) -> None:
        self.link = link
        self.capability = capability
        self.declared = tuple(declared)
        self.info = AdapterInfo("flexbe", self.declared, FOLLOW_DEADLINE)

    def describe(self) -> AdapterInfo:
        return self.info

    def start(self, activation: Activation) -> Any:
        return self.link.begin(activation, self.declared)

    def poll(self, handle: Any) -> Outcome | None:
        return self.link.result(handle)

    def cancel(self, handle: Any) -> None:
        return None  # stopping the behavior is the node's (a preempt)


def mission_policy(mission, force: str | None = None) -> OutcomePolicy | None:
    """The forced outcomes of an embedded run of ``mission`` (``force``: a ``--force`` script
    instead of the mission's ``runner.force``), as :func:`make_policy` builds them."""
    config = runner_config(mission)
    return make_policy(config, mission.catalog, config.seed, force or None)


def follow(mission, machine: SupervisorMachine, link: FlexbeLink,
           strategy: Strategy | None = None, *, max_steps: int | None = None,
           callbacks: tuple[Callback, ...] = (),
           stop: threading.Event | None = None) -> RunResult:
    """Run the executor of ``mission`` beside FlexBE, with ``link``'s adapters: the embedded
    run's goals, initial beliefs, step limit and seed; no simulator, no time limits (FlexBE's
    states have their own). Returns when the executor's run ended (or ``stop`` was set)."""
    config = runner_config(mission)
    capabilities = mission.catalog.capabilities
    declared = {s.capability: tuple(capabilities[s.capability].outcomes) for s in machine.states}
    executor = Executor(machine, mission.catalog, link.adapters(declared), strategy=strategy,
                        goals=goals_of(mission), initial_beliefs=initial_beliefs(mission),
                        callbacks=callbacks, max_steps=max_steps or config.max_steps,
                        mission=mission.name, seed=config.seed, stop=stop)
    return executor.run()
