"""The embedded executor on hand-built machines: stepping, forcing, deadlines, stop, BDI records."""

from __future__ import annotations

import dataclasses
import json
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import realize_cases as cases

from bdi_supervisor.catalog.model import Memory, Parameter
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.machine import build_machine
from bdi_supervisor.runtime import bdi_state
from bdi_supervisor.runtime.adapters import (
    Activation,
    AdapterInfo,
    BlockingAdapter,
    FunctionAdapter,
    Outcome,
    invoke,
)
from bdi_supervisor.runtime.executor import Executor
from bdi_supervisor.runtime.forced import (
    ChainPolicy,
    Decision,
    ForcedAdapter,
    RandomPolicy,
    ScriptPolicy,
    exhaustive_check,
    expected_targets,
    parse_script,
)
from bdi_supervisor.spec import formula as F


def forced_adapters(catalog, machine, policy=None):
    caps = {s.capability for s in machine.states}
    return {c: ForcedAdapter(c, catalog.capabilities[c].outcomes, policy) for c in caps}


def vending():
    catalog = cases.vending_catalog()
    strategy = cases.vending_reduced_onehot()
    return catalog, strategy, build_machine(strategy, catalog)


def test_nominal_run_reaches_finished_in_strategy_order():
    catalog, strategy, machine = vending()
    result = Executor(machine, catalog, forced_adapters(catalog, machine),
                      strategy=strategy).run()
    assert result.status == "goal_reached"
    assert result.sm_outcome == "finished"
    assert [s.state for s in result.steps] == ["0_prep_pay", "1_pay", "3_select", "4_soda"]
    assert result.recoveries() == []
    assert all(not s.outcome.forced for s in result.steps)
    # @item resolved from the strategy state, as FlexBE gets it
    assert machine.state("4_soda").parameters["hint"] == "Vending soda."


def test_scripted_failures_take_the_retry_transitions_and_are_logged_forced():
    catalog, _, machine = vending()
    policy = parse_script("pay=failure, pay=failure soda=failed", catalog)
    result = Executor(machine, catalog, forced_adapters(catalog, machine, policy)).run()
    assert result.status == "goal_reached"
    states = [(s.state, s.outcome.outcome, s.next) for s in result.steps]
    assert states[:3] == [("0_prep_pay", "completed", "1_pay"), ("1_pay", "failure", "1_pay"),
                          ("1_pay", "failure", "1_pay")]
    recoveries = result.recoveries()
    assert [(r.state, r.outcome.forced, r.outcome.layer) for r in recoveries] == [
        ("1_pay", True, "override"), ("1_pay", True, "override"), ("4_soda", True, "override")]
    assert [s.attempt for s in result.steps if s.state == "1_pay"] == [1, 2, 3]


def test_script_rejects_unknown_capability_and_undeclared_outcome():
    catalog = cases.vending_catalog()
    with pytest.raises(InputError, match="unknown capability"):
        parse_script("fly=completed", catalog)
    with pytest.raises(InputError, match="does not declare"):
        parse_script("select=failure", catalog)  # LogState: completed only
    with pytest.raises(InputError, match="bad forced-outcome entry"):
        parse_script("pay:failure", catalog)


def test_pinned_entry_forces_only_that_activation():
    catalog, _, machine = vending()
    policy = parse_script("pay#2=failure", catalog)
    result = Executor(machine, catalog, forced_adapters(catalog, machine, policy)).run()
    pays = [s.outcome.outcome for s in result.steps if s.capability == "pay"]
    assert pays == ["completed"]  # a second pay never happens: #2 is never reached


@pytest.mark.parametrize("make", [
    lambda: (cases.coffee_catalog(), cases.coffee_reduced_onehot()),
    lambda: (cases.coffee_catalog(), cases.coffee_raw_onehot()),
    lambda: (cases.coffee_catalog(), cases.coffee_enumerated_raw()),
    lambda: (cases.vending_catalog(), cases.vending_reduced_onehot()),
])
def test_exhaustive_forced_outcomes_follow_the_strategy(make):
    catalog, strategy = make()
    machine = build_machine(strategy, catalog)
    checks = exhaustive_check(machine, strategy, catalog)
    declared = sum(len(catalog.capabilities[s.capability].outcomes) for s in machine.states)
    assert len(checks) == declared
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]


def test_exhaustive_check_catches_a_miswired_executor():
    catalog, strategy = cases.coffee_catalog(), cases.coffee_reduced_onehot()
    machine = build_machine(strategy, catalog)
    # an executor that ignores failures and always moves on would pass a nominal run
    def wrong(state_name, outcome):
        return machine.state(state_name).transitions["completed"].target
    checks = exhaustive_check(machine, strategy, catalog, run_step=wrong)
    bad = {(c.state, c.outcome) for c in checks if not c.ok}
    assert bad == {("0_bd", "failure"), ("1_gr", "failure"), ("2_br", "failure")}


def test_expected_targets_are_read_from_the_strategy_not_the_machine():
    catalog, strategy = cases.coffee_catalog(), cases.coffee_raw_onehot()
    assert expected_targets(strategy, catalog, "one-hot", 0, "bd", "completed", {}) == ("1_gr",)
    assert expected_targets(strategy, catalog, "one-hot", 0, "bd", "failure", {}) == ("2_bd",)


def test_excluded_outcome_is_an_assumption_violation():
    catalog, strategy = cases.vending_catalog(), cases.vending_reduced_onehot()
    # pretend select may fail: the strategy has no successor for it
    select = dataclasses.replace(catalog.capabilities["select"],
                                 outcomes=("completed", "failure"),
                                 flexbe_outcomes={"done": "completed", "failed": "failure"})
    catalog.capabilities["select"] = select
    machine = build_machine(strategy, catalog)
    assert machine.state("3_select").transitions["failure"].excluded
    policy = parse_script("select=failure", catalog)
    result = Executor(machine, catalog, forced_adapters(catalog, machine, policy)).run()
    assert result.status == "assumption_violated"
    assert result.sm_outcome == "failed"
    checks = exhaustive_check(machine, strategy, catalog)
    assert all(c.ok for c in checks)
    assert any(c.actual == "assumption_violated" for c in checks)


class Boom(BlockingAdapter):
    info = AdapterInfo("boom", ("completed", "failure"), 1.0)

    def run(self, activation):
        raise RuntimeError("gripper on fire")


class Slow(BlockingAdapter):
    info = AdapterInfo("slow", ("completed", "failure"), 0.05)

    def __init__(self):
        super().__init__()
        self.release = threading.Event()
        self.cancelled = False

    def run(self, activation):
        self.release.wait(5)
        return Outcome("completed")

    def interrupt(self):
        self.cancelled = True
        self.release.set()


def test_exception_and_timeout_become_the_failure_outcome_with_reason():
    act = Activation("pay", {})
    out = invoke(Boom(), act, ("completed", "failure"))
    assert (out.outcome, out.reason) == ("failure", "exception: RuntimeError: gripper on fire")
    slow = Slow()
    out = invoke(slow, act, ("completed", "failure"))
    assert out.outcome == "failure" and out.reason.startswith("timeout after 0.05")
    assert slow.cancelled
    undeclared = FunctionAdapter("odd", ("completed",), lambda a: Outcome("exploded"))
    out = invoke(undeclared, act, ("completed", "failure"))
    assert out.outcome == "failure" and "undeclared outcome 'exploded'" in out.reason


def test_adapter_failure_drives_the_failure_transition():
    catalog, _, machine = vending()
    adapters = forced_adapters(catalog, machine)
    calls = {"n": 0}

    def flaky(activation):
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError("payment terminal offline")
        return Outcome("completed")

    adapters["pay"] = FunctionAdapter("flaky", ("completed", "failure"), flaky)
    result = Executor(machine, catalog, adapters).run()
    assert result.status == "goal_reached"
    first = result.recoveries()[0]
    assert (first.state, first.next, first.outcome.forced) == ("1_pay", "1_pay", False)
    assert "payment terminal offline" in first.outcome.reason


def test_capability_that_cannot_fail_reports_adapter_error():
    catalog, _, machine = vending()
    adapters = forced_adapters(catalog, machine)
    adapters["select"] = FunctionAdapter("broken", ("completed",), lambda a: 1 / 0)
    result = Executor(machine, catalog, adapters).run()
    assert result.status == "adapter_error"
    assert "ZeroDivisionError" in result.steps[-1].outcome.reason


def test_bad_binding_fails_before_anything_runs():
    catalog, _, machine = vending()
    started = []
    adapters = forced_adapters(catalog, machine)
    del adapters["soda"]
    adapters["pay"] = FunctionAdapter("x", ("completed", "failure"),
                                      lambda a: started.append(a) or Outcome("completed"))
    with pytest.raises(InputError, match="capability 'soda' has no adapter"):
        Executor(machine, catalog, adapters)
    adapters = forced_adapters(catalog, machine)
    adapters["select"] = FunctionAdapter("nav", ("completed", "failure"),
                                         lambda a: started.append(a) or Outcome("completed"))
    with pytest.raises(InputError, match="may return outcomes the capability does not declare"):
        Executor(machine, catalog, adapters)
    assert started == []


def test_operator_stop_cancels_the_running_activation():
    catalog, _, machine = vending()
    adapters = forced_adapters(catalog, machine)
    slow = Slow()
    slow.info = AdapterInfo("slow", ("completed", "failure"), 30.0)
    adapters["pay"] = slow
    executor = Executor(machine, catalog, adapters)
    timer = threading.Timer(0.1, executor.stop.set)
    timer.start()
    t0 = time.monotonic()
    result = executor.run()
    assert result.status == "stopped"
    assert slow.cancelled
    assert time.monotonic() - t0 < 5
    assert [s.state for s in result.steps] == ["0_prep_pay"]
    executor.close()


def test_random_policy_is_seeded():
    catalog, _, machine = vending()

    def run(seed):
        random = RandomPolicy(seed, {"pay": 0.5}, reasons={"pay": "card declined"})
        policy = ChainPolicy([ScriptPolicy(), random])
        result = Executor(machine, catalog, forced_adapters(catalog, machine, policy)).run()
        return [(s.state, s.outcome.outcome, s.outcome.layer) for s in result.steps]

    assert run(4) == run(4)
    runs = {tuple(run(seed)) for seed in range(8)}
    assert len(runs) > 1
    failures = [step for steps in runs for step in steps if step[1] == "failure"]
    assert failures and all(layer == "random" for _, _, layer in failures)



@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), others=st.lists(st.sampled_from(["log", "pay", "select"]),
                                                    max_size=40),
       moves=st.integers(1, 25), data=st.data())
def test_random_failures_of_a_capability_ignore_the_other_capabilities(seed, others, moves, data):
    """A capability's n-th outcome depends on the seed and n only: a policy fed every activation
    of a run decides ``move`` as one fed only the ``move`` activations (how a world node that
    serves ``move`` alone under FlexBE draws the embedded runner's failures)."""
    probabilities = {"move": 0.4, "pay": 0.5}
    declared = ("completed", "failure")
    # ``moves`` move activations with the other activations interleaved anywhere
    order = list(others)
    for _ in range(moves):
        order.insert(data.draw(st.integers(0, len(order)), label="position"), "move")
    shared = RandomPolicy(seed, dict(probabilities))
    alone = RandomPolicy(seed, dict(probabilities))
    in_run = [shared.choose(Activation(cap, {}), declared) for cap in order]
    in_run = [d for cap, d in zip(order, in_run) if cap == "move"]
    by_itself = [alone.choose(Activation("move", {}), declared) for _ in range(moves)]
    assert in_run == by_itself


def test_random_failures_are_the_seeded_stream_of_each_capability():
    """The stream of a capability is ``random.Random("<seed>/<capability>")``: independent of the
    process and of PYTHONHASHSEED (a world node in another process draws the same)."""
    import random

    policy = RandomPolicy(7, {"move": 0.3}, reasons={"move": "high wind"})
    reference = random.Random("7/move")
    for _ in range(50):
        decision = policy.choose(Activation("move", {}), ("completed", "failure"))
        failed = reference.random() < 0.3
        assert (decision is not None) == failed
        if failed:
            assert decision == Decision("failure", "high wind (seeded, p=0.3)", "random")


def test_bdi_records_every_step_to_jsonl_and_callback(tmp_path):
    catalog, strategy, machine = vending()
    catalog.capabilities["soda"] = dataclasses.replace(
        catalog.capabilities["soda"],
        postconditions={"completed": (F.Var("soda"), F.eq("item", 0))},
        parameters=(*catalog.capabilities["soda"].parameters, Parameter("x", 1)))
    catalog.memory["soda"] = Memory("soda", "sys", False)
    machine = build_machine(strategy, catalog)
    path = tmp_path / "bdi.jsonl"
    sink = bdi_state.JsonLinesSink(path)
    seen = []
    policy = parse_script("pay=failure", catalog)
    executor = Executor(machine, catalog, forced_adapters(catalog, machine, policy),
                        strategy=strategy, callbacks=[sink, seen.append], mission="vending",
                        seed=7, goals=[("soda", F.Var("soda"))])
    result = executor.run()
    sink.close()
    records = list(bdi_state.read_records(path))
    assert records == json.loads(json.dumps(seen))
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert records[0]["event"] == "start" and records[-1]["event"] == "end"
    assert records[-1]["status"] == "goal_reached" and records[-1]["sm_outcome"] == "finished"
    activations = [r for r in records if r["event"] == "activate"]
    assert len(activations) == len(result.steps) == 5
    assert activations[2]["intention"] == {"capability": "pay", "parameters": {
        "outcomes": ["pay", "failed"], "hint": "Pay the fee.", "suggestion": "pay"},
        "attempt": 2, "step": 2, "deadline_s": 5.0}
    failed = [r for r in records if r["event"] == "outcome" and r["last_outcome"]["forced"]]
    assert failed[0]["last_outcome"]["outcome"] == "failure"
    assert failed[0]["strategy_state"] == {"machine_state": "1_pay", "strategy_id": 1}
    assert failed[0]["beliefs"]["pay_f"]["value"] is True
    final = records[-1]
    assert final["beliefs"]["soda"] == {"value": True, "set_by": {
        "capability": "soda", "outcome": "completed", "step": 4}}
    assert final["desires"] == [{"goal": "soda", "satisfied": True}]
    assert records[1]["desires"] == [{"goal": "soda", "satisfied": False}]
    assert records[1]["beliefs"]["soda"] == {"value": False, "set_by": "initial"}
    for record in records:
        bdi_state.validate(record)
