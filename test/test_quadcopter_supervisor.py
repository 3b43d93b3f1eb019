"""Quadcopter supervisors from the real pipeline, executed on the kinematic gate-course model.

- nominal flights of both platform profiles fly all five segments and land;
- a pose dropout injected on a chosen segment makes the supervisor take the audited failure
  branch (log, move out of the gate, land clear, disarm), and the run record shows it;
- exhaustive forced outcomes: at every reachable state of the supervisor machine, every declared
  outcome of its capability, with the drone brought there physically (earlier outcomes as the
  path needs them, real flights for completions, dropouts for segment failures).
"""

from __future__ import annotations

import copy
from collections import deque

import pytest
from support.supervisors import prepared

from bdi_supervisor.runtime import binding
from bdi_supervisor.runtime.executor import Executor
from bdi_supervisor.runtime.forced import Decision, expected_targets
from bdi_supervisor.runtime.session import RunOptions, goals_of, initial_beliefs, run_supervisor

NOMINAL = ["arm", "takeoff"] + [f"{c}_{i}" for i in range(1, 6)
                                for c in ("plan", "upload", "execute")] + ["land", "disarm"]


def _with_runner(mission, **quadcopter):
    mission = copy.copy(mission)
    mission.sections = copy.deepcopy(mission.sections)
    mission.sections["runner"]["quadcopter"].update(quadcopter)
    return mission


def _run(mission, prep, **kwargs):
    records = []
    result = run_supervisor(mission, prep.machine, prep.reduced, callbacks=[records.append],
                            **kwargs)
    return result, records


@pytest.mark.parametrize("name", ["quadcopter_crazyflie", "quadcopter_pihawk"])
def test_nominal_flight_completes_all_five_segments_and_lands(name):
    mission, prep = prepared(name)
    assert prep.audit == "PASS"
    result, records = _run(mission, prep)
    assert (result.status, result.sm_outcome) == ("goal_reached", "finished")
    assert [s.capability for s in result.steps] == NOMINAL
    assert result.recoveries() == []
    truth = records[-1]["ground_truth"]
    assert truth["platform"] == name.split("_")[1]
    assert truth["segments_flown"] == [1, 2, 3, 4, 5]
    assert not truth["armed"] and not truth["airborne"] and not truth["crashed"]
    assert truth["clearance"] > 0.5
    assert result.beliefs  # the executor's beliefs travel with the record
    assert {r["event"] for r in records} >= {"start", "activate", "outcome", "end"}


def test_platforms_differ_in_flight_time_not_in_the_supervisor():
    (m1, p1), (m2, p2) = prepared("quadcopter_crazyflie"), prepared("quadcopter_pihawk")
    assert p1.counts == p2.counts  # same catalog and request: the same supervisor
    clocks = []
    for mission, prep in ((m1, p1), (m2, p2)):
        _, records = _run(mission, prep)
        clocks.append(records[-1]["ground_truth"]["clock"])
    assert clocks[1] > clocks[0] * 1.2  # the PiHawk arms, flies and lands slower


@pytest.mark.parametrize("segment", [1, 3, 5])
def test_dropout_on_a_segment_takes_the_audited_failure_branch(segment):
    mission, prep = prepared("quadcopter_pihawk_dropout")
    assert prep.audit == "PASS"
    mission = _with_runner(mission, dropouts=[{"segment": segment, "at": 0.3, "duration": 1.0}])
    result, records = _run(mission, prep)
    caps = [s.capability for s in result.steps]
    fail_at = caps.index(f"execute_{segment}")
    assert caps[:fail_at + 1] == NOMINAL[:NOMINAL.index(f"execute_{segment}") + 1]
    failed = result.steps[fail_at]
    assert failed.outcome.outcome == "failure"
    assert failed.outcome.forced and failed.outcome.layer == "injection"
    assert failed.outcome.detail["code"] == "odometry_unavailable"
    assert caps[fail_at + 1:] == ["log_failed", "retreat", "abort_land", "abort_disarm"]
    assert (result.status, result.sm_outcome) == ("failed", "aborted")
    record = result.to_dict()
    assert [r["state"] for r in record["recoveries"]] == [failed.state]
    truth = records[-1]["ground_truth"]
    assert truth["segments_flown"] == list(range(1, segment))
    assert not truth["crashed"] and not truth["armed"] and not truth["airborne"]
    assert truth["clearance"] > 0.3  # landed clear of the gates
    assert truth["log"] and "aborting" in truth["log"][0]


def test_without_the_watchdog_the_dropout_crashes_and_recovery_keeps_failing():
    mission, prep = prepared("quadcopter_pihawk_dropout")
    mission = _with_runner(mission, watchdog=False)
    result, records = _run(mission, prep, options=RunOptions(max_steps=40))
    crash = next(s for s in result.steps if s.outcome.outcome == "failure")
    assert crash.capability == "execute_3" and crash.outcome.detail["code"] == "crashed"
    assert result.status == "step_limit"  # the S liveness' "keeps failing" disjunct
    assert records[-1]["ground_truth"]["crashed"]


# -- exhaustive forced outcomes on the kinematic model ---------------------------------------------

class StepPolicy:
    """Force the outcome of the n-th activation of the run (``None``: let the drone fly)."""

    def __init__(self, plan: dict[int, str]) -> None:
        self.plan = plan

    def choose(self, activation, declared):
        outcome = self.plan.get(activation.step)
        if outcome is None or outcome == "completed":
            return None
        return Decision(outcome, f"forced at step {activation.step}", "override")


def _paths(machine):
    """Shortest (state, outcome) path from the initial state to every reachable state."""
    paths = {machine.initial: []}
    queue = deque([machine.initial])
    while queue:
        name = queue.popleft()
        for outcome, transition in machine.state(name).transitions.items():
            if transition.to_outcome or transition.excluded or transition.target in paths:
                continue
            paths[transition.target] = [*paths[name], (name, outcome)]
            queue.append(transition.target)
    return paths


def test_every_declared_outcome_at_every_reachable_state_on_the_kinematic_model():
    mission, prep = prepared("quadcopter_crazyflie")
    machine, strategy, catalog = prep.machine, prep.reduced, mission.catalog
    sm_props = {p: o for o, p in catalog.sm_outcome_mappings.items()
                if p in set(strategy.output_names)}
    paths = _paths(machine)
    assert len(paths) == len(machine.states)  # every realized state is reachable
    checked = 0
    for state in machine.states:
        path = paths[state.name]
        for outcome in catalog.capabilities[state.capability].outcomes:
            plan, dropouts = {}, []
            for index, (name, out) in enumerate([*path, (state.name, outcome)]):
                cap = machine.state(name).capability
                if out == "completed":
                    continue
                if cap.startswith("execute_") and not any(
                        d["segment"] == int(cap.split("_")[1]) for d in dropouts):
                    dropouts.append({"segment": int(cap.split("_")[1]), "at": 0.2,
                                     "duration": 1.0})
                else:
                    plan[index] = out
            run_mission = _with_runner(mission, dropouts=dropouts)
            config = binding.parse_runner({"runner": run_mission.section("runner")},
                                          mission.file)
            backend = binding.open_backend("quadcopter", config, 0)
            adapters = binding.build_adapters([s.capability for s in machine.states], catalog,
                                              config, backend, StepPolicy(plan))
            executor = Executor(machine, catalog, adapters, strategy=strategy,
                                goals=goals_of(mission), initial_beliefs=initial_beliefs(mission),
                                ground_truth=backend.truth_reader(), max_steps=120)
            result = executor.run()
            executor.close()
            where = f"{state.name} {outcome} via {path}"
            assert len(result.steps) > len(path), where
            step = result.steps[len(path)]
            assert (step.state, step.outcome.outcome) == (state.name, outcome), where
            assert [s.state for s in result.steps[:len(path)]] == [p[0] for p in path], where
            expected = expected_targets(strategy, catalog, machine.encoding, state.strategy_id,
                                        state.capability, outcome, sm_props)
            assert step.next in expected, where
            # the run always ends on the ground, disarmed, clear of the gates
            truth = backend.truth_reader()()
            assert result.sm_outcome in ("finished", "aborted"), where
            assert not truth["airborne"] and not truth["armed"] and not truth["crashed"], where
            assert truth["clearance"] > 0.3, where
            if result.sm_outcome == "finished":
                assert truth["segments_flown"] == [1, 2, 3, 4, 5], where
            backend.close()
            checked += 1
    declared = sum(len(catalog.capabilities[s.capability].outcomes) for s in machine.states)
    assert checked == declared


# -- the same behavior realized for FlexBE --------------------------------------------------------

def test_the_executed_supervisor_is_the_realized_flexbe_behavior(tmp_path):
    import py_compile

    from bdi_supervisor.realize.reader import read_behavior
    from bdi_supervisor.realize.stage import realize_mission

    mission, prep = prepared("quadcopter_pihawk")
    realization = realize_mission(prep.reduced, mission, out_dir=tmp_path)
    module = tmp_path / realization.package.module_path
    py_compile.compile(str(module), doraise=True)
    behavior = read_behavior(module.read_text(), str(module))
    assert {"aborted", "finished"} <= set(behavior.outcomes)
    states = {s.name: s for s in behavior.states}
    assert set(states) == {s.name for s in prep.machine.states}
    for machine_state in prep.machine.states:
        written = states[machine_state.name]
        assert written.parameters == machine_state.parameters
        cap = mission.catalog.capabilities[machine_state.capability]
        expected_module = ("flexbe_states.log_state" if cap.interface == "LogState" else
                           "bdi_flexbe_states.quadcopter." + machine_state.interface_module
                           .rpartition(".")[2])
        assert written.module == expected_module
        for flexbe, normalized in machine_state.outcomes.items():
            assert written.transitions[flexbe] == machine_state.transitions[normalized].target
    # the failure branch is wired in the behavior as the executor ran it
    execute_3 = next(s for s in prep.machine.states if s.capability == "execute_3")
    after = states[execute_3.name].transitions
    assert after["failed"] == after["timeout"] == after["canceled"]
    assert states[after["failed"]].class_name == "LogState"
