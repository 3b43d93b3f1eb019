"""The executor following and driving a FlexBE behavior (``bdi_supervisor.runtime.flexbe_link``),
as plain Python: against :class:`Onboard`, a model of what FlexBE onboard does with a behavior at
autonomy ``off`` (every state requests its own outcome and waits; a command on
``flexbe/command/transition`` buffered for the active state is taken at its next tick, before
its own result), whose reports and requests reach the link in any order the two topics allow.

The oracle is the embedded executor: a followed run, with forced outcomes drawn from the
mission's own policy objects, gives the embedded run's outcome sequence and records, whatever
the delivery order. The same comparison on the real engine is test_ros_flexbe_missions.py.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.supervisors import prepared

from bdi_supervisor.runtime import flexbe_link as L
from bdi_supervisor.runtime.forced import ScriptPolicy
from bdi_supervisor.runtime.session import RunOptions, run_supervisor


@dataclass
class Onboard:
    """FlexBE onboard at autonomy ``off`` running the realized machine (one state active; its
    own result is each state's first FlexBE outcome, as the stock states' suggestion). Reports
    and requests are queued per topic with onboard's clock as their stamp; ``deliver`` hands
    them to the link, in an order chosen by ``pick`` (per-topic order kept)."""

    machine: object
    link: L.FlexbeLink | None = None
    by_id: bool = False
    active: str | None = None
    buffer: list[L.Command] = field(default_factory=list)
    topics: dict[str, list] = field(default_factory=lambda: {"report": [], "request": []})
    clock: int = 0
    taken: list[tuple[str, str]] = field(default_factory=list)
    requested: str | None = None

    def structure(self) -> list[L.StateInfo]:
        return [L.StateInfo(f"/{s.name}", 1000 + i, tuple(s.outcomes))
                for i, s in enumerate(self.machine.states)]

    def _tick_clock(self) -> int:
        self.clock += 1
        return self.clock

    def enter(self, name: str) -> None:
        self.active, self.requested = name, None

    def tick(self) -> None:
        """One execute of the active state: a buffered command for it wins, else it requests
        its own result once."""
        if self.active is None:
            return
        state = self.machine.state(self.active)
        ids = {i.name: i.state_id for i in self.structure()}
        target = ids[self.active] if self.by_id else self.active
        if self.buffer and self.buffer[0].target == target:
            label = list(state.outcomes)[self.buffer.pop(0).outcome]
            self.taken.append((self.active, label))
            self.topics["report"].append((f"/{self.active} > {label}", self._tick_clock()))
            next_state = state.flexbe_transitions()[label]
            self.enter(next_state) if next_state in self.machine.state_names else self.stop()
            return
        if self.requested is None:
            self.requested = next(iter(state.outcomes))
            path = ids[self.active] if self.by_id else f"/{self.active}"
            self.topics["request"].append((path, 0, self._tick_clock()))

    def stop(self) -> None:
        self.active = None

    def deliver(self, pick) -> bool:
        """Hand one queued message to the link (``pick(kinds)`` chooses the topic)."""
        kinds = [k for k, queue in self.topics.items() if queue]
        if not kinds:
            return False
        kind = pick(kinds)
        message = self.topics[kind].pop(0)
        if kind == "report":
            self.link.on_current_state(*message)
        else:
            self.link.on_request(*message)
        return True


def embedded_outcomes(name: str, force: str | None = None, steps: int = 40):
    mission, ready = prepared(name)
    records = []
    result = run_supervisor(mission, ready.machine, ready.reduced,
                            options=RunOptions(force=force, max_steps=steps),
                            callbacks=[records.append])
    return result, records


def followed(name: str, pick, force: str | None = None, by_id: bool = False, steps: int = 40):
    """A run of the executor following :class:`Onboard` (drive, forced outcomes)."""
    mission, ready = prepared(name)
    onboard = Onboard(ready.machine, by_id=by_id)
    commands = []

    def send(command):
        commands.append(command)
        onboard.buffer.append(command)
    link = L.FlexbeLink(ready.machine, send, by_id=by_id, drive=True,
                        policy=L.mission_policy(mission, force))
    onboard.link = link
    link.on_structure(onboard.structure())
    onboard.enter(ready.machine.initial)
    records, done = [], threading.Event()

    def run():
        try:
            records.append(L.follow(mission, ready.machine, link, ready.reduced,
                                    max_steps=steps, callbacks=(records.append,),
                                    stop=link.stop))
        finally:
            done.set()
    thread = threading.Thread(target=run)
    thread.start()
    while not done.wait(0.001):
        onboard.tick()
        while onboard.deliver(pick):
            pass
    thread.join()
    result = records.pop()
    return result, records, onboard, link


def essence(record):
    keep = ("event", "strategy_state", "beliefs", "desires", "status", "sm_outcome")
    last = record.get("last_outcome") or {}
    return ({k: record.get(k) for k in keep},
            {k: last.get(k) for k in ("capability", "state", "outcome", "next", "step")})


@settings(max_examples=25, deadline=None)
@given(order=st.lists(st.sampled_from(["report", "request"]), min_size=1, max_size=50),
       by_id=st.booleans(),
       case=st.sampled_from([("coffee_extended", None), ("vending_extended", None),
                             ("vending_extended", "pay=failure pay=failure soda#2=failure"),
                             ("coffee", "bd=completed")]))
def test_a_driven_run_gives_the_embedded_outcomes_in_any_delivery_order(order, by_id, case):
    """Reports and requests delivered in any order (per topic in order): FlexBE takes the
    embedded run's outcomes and the executor's records are the embedded run's."""
    name, force = case
    picks = iter(order)

    def pick(kinds):
        wanted = next(picks, kinds[0])
        return wanted if wanted in kinds else kinds[0]
    result, records, onboard, link = followed(name, pick, force, by_id)
    expected, expected_records = embedded_outcomes(name, force)
    assert link.error is None
    assert [(s.state, s.outcome.outcome) for s in result.steps] == \
        [(s.state, s.outcome.outcome) for s in expected.steps]
    assert result.status == expected.status and result.sm_outcome == expected.sm_outcome
    assert [essence(r) for r in records] == [essence(r) for r in expected_records]
    normalized = [(n, onboard.machine.state(n).outcomes[label]) for n, label in onboard.taken]
    assert normalized == [(s.state, s.outcome.outcome) for s in expected.steps]


def test_a_stale_request_is_never_answered_and_a_fresh_one_waits_for_its_activation():
    """2_br's activation 1 is forced at entry ('fail') after it had requested its own 'brew'
    (stamp 10), which arrives after the report (stamp 20): stale, never answered. Activation 2's
    request (stamp 30) is confirmed once, also when it arrives before activation 1's report."""
    _, ready = prepared("coffee_extended")
    state = ready.machine.state("2_br")
    for fresh_first in (False, True):
        sent = []
        link = L.FlexbeLink(ready.machine, sent.append, drive=True,
                            policy=ScriptPolicy(pinned={("br", 1): "failure"}))
        link.on_structure([L.StateInfo(f"/{s.name}", None, tuple(s.outcomes))
                           for s in ready.machine.states])
        first = link.begin(_activation(state), ("completed", "failure"))
        assert sent == [L.Command("2_br", 1)]  # 'fail', at entry
        if fresh_first:
            link.on_request("/2_br", 0, stamp=30)
        link.on_current_state("/2_br > fail", stamp=20)
        link.on_request("/2_br", 0, stamp=10)
        assert link.result(first).forced and link.result(first).outcome == "failure"
        second = link.begin(_activation(state), ("completed", "failure"))
        if not fresh_first:
            assert sent == [L.Command("2_br", 1)]  # nothing for activation 2 yet
            link.on_request("/2_br", 0, stamp=30)
        assert sent == [L.Command("2_br", 1), L.Command("2_br", 0)], fresh_first
        assert link.result(second) is None


def _activation(state):
    from bdi_supervisor.runtime.adapters import Activation

    return Activation(state.capability, dict(state.parameters), state.name)


def test_a_behavior_that_leaves_the_machine_stops_the_follower_with_the_reason():
    _, ready = prepared("vending")
    link = L.FlexbeLink(ready.machine, lambda command: None)
    link.begin(_activation(ready.machine.state(ready.machine.initial)), ("completed",))
    link.on_current_state("/3_soda > done", stamp=1)
    assert link.stop.is_set() and "left the supervisor's machine" in link.error


def test_a_follower_that_does_not_drive_sends_nothing():
    _, ready = prepared("coffee")
    sent = []
    link = L.FlexbeLink(ready.machine, sent.append)
    active = link.begin(_activation(ready.machine.state("0_bd")), ("completed",))
    link.on_request("/0_bd", 0, stamp=1)
    link.on_current_state("/0_bd > done", stamp=2)
    assert sent == [] and link.result(active).outcome == "completed"


@pytest.mark.parametrize("autonomy, done, forced, expected", [
    ("", True, False, L.Control(3, drive=True, forced=False)),
    ("", False, False, L.Control(3, drive=False, forced=False)),
    ("", False, True, L.Control(0, drive=True, forced=True)),
    ("", True, True, L.Control(0, drive=True, forced=True)),
    ("high", True, True, L.Control(2, drive=False, forced=False)),
    ("off", False, False, L.Control(0, drive=False, forced=False)),
])
def test_who_answers_flexbes_requests(autonomy, done, forced, expected):
    assert L.control(autonomy, done, forced) == expected


def test_an_unknown_autonomy_is_refused():
    with pytest.raises(ValueError, match="off, low, high, full"):
        L.control("medium", True, False)


@pytest.mark.parametrize("text, parsed", [
    ("/0_bd > button", ("/0_bd", "button")), (" > finished", ("", "finished")),
    ("/0_bd >", None), ("nothing", None)])
def test_current_state_texts(text, parsed):
    assert L.parse_current_state(text) == parsed
