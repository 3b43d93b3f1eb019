"""The shipped missions, synthesized and reduced, realized as FlexBE behaviors.

For the fast shipped missions in every configuration (encoding × liveness × pending; a
configuration whose realizability differs from the pinned verdict table fails), the written
module of every realizable one compiles, defines one class, and reads back (ast) as exactly the
reduced strategy: one state per reachable activating state, each FlexBE outcome
wired to the successor for its normalized outcome, the same parameters. Coffee-extended and
vending-extended (one-hot, System-Goal + pending) match the reference's published realization.
"""

from __future__ import annotations

import py_compile

import pytest
from support.expected_verdicts import expected as expected_cell
from support.expected_verdicts import group_of
from support.paths import MISSIONS

from bdi_supervisor.catalog.interfaces import state_class
from bdi_supervisor.common import Realizability
from bdi_supervisor.mission import load_mission
from bdi_supervisor.realize.machine import (
    CAPABILITY_VARIABLE,
    ONE_HOT,
    capability_order,
    outcome_variable,
)
from bdi_supervisor.realize.reader import read_behavior
from bdi_supervisor.realize.stage import instantiation_count, realize

#: missions that synthesize in well under a second in every configuration, plus one quadcopter
#: mission (they share one spec and differ only in the runner; seconds each); logistics and the
#: other larger missions are covered by bench/realize/counts.py
FAST = ("beer_robot", "coffee", "coffee_extended", "quadcopter_crazyflie", "two_rivers", "vending",
        "vending_extended")
SHIPPED = [str(MISSIONS / f"{name}.yaml") for name in FAST]
CONFIGS = [(e, lv, p) for e in ("one-hot", "enumerated") for lv in ("system-goal", "fair-outcome")
           for p in (True, False)]


def _pipeline(path, encoding, liveness, pending):
    from bdi_supervisor.reduce import reduce
    from bdi_supervisor.specgen.generate import generate_spec
    from bdi_supervisor.synthesis.synthesize import synthesize

    mission = load_mission(path)
    result = synthesize(generate_spec(mission, encoding=encoding, liveness=liveness,
                                      pending=pending))
    if result.strategy is None:
        return mission, None, None
    return mission, result.strategy, reduce(result.strategy)


def _expected(reduced, catalog, encoding, initial):
    """Independent reading of the reduced strategy: reachable activating states and wiring."""
    order = capability_order(catalog)
    props = {p: o for o, p in catalog.sm_outcome_mappings.items() if p in reduced.output_names}

    def kind(state):
        for prop, outcome in props.items():
            if state.outputs.get(prop):
                return ("outcome", outcome)
        if encoding == ONE_HOT:
            active = [c for c in catalog.capabilities if state.outputs.get(f"{c}_a")]
            return ("cap", active[0]) if active else ("null", None)
        index = state.outputs.get(CAPABILITY_VARIABLE, 0)
        return ("cap", order[index - 1]) if index else ("null", None)

    def name(state_id):
        what, value = kind(reduced.state(state_id))
        assert what != "null", "activation-free successor inside the realized part"
        return value if what == "outcome" else f"{state_id}_{value}"

    expected, todo = {}, [initial]
    while todo:
        state_id = todo.pop()
        what, cap = kind(reduced.state(state_id))
        if what != "cap" or name(state_id) in expected:
            continue
        capability = catalog.capabilities[cap]
        wiring = {}
        for inputs, succ in reduced.edges(state_id):
            for flexbe, normalized in capability.flexbe_outcomes.items():
                if inputs.get(outcome_variable(catalog, cap, normalized, encoding)):
                    assert wiring.setdefault(flexbe, name(succ)) == name(succ)
            todo.append(succ)
        expected[name(state_id)] = (state_class(capability.interface), wiring,
                                    {p.name: p.value for p in capability.parameters
                                     if p.variable is None})
    return expected


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}-{'P' if c[2] else 'noP'}")
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.rsplit("/", 1)[-1][:-5])
def test_shipped_mission_realizes_to_its_reduced_strategy(path, config, tmp_path):
    mission, raw, reduced = _pipeline(path, *config)
    encoding, liveness, pending = config
    label = ("S" if liveness == "system-goal" else "F") + ("P" if pending else "")
    verdict = expected_cell(group_of(mission.name), encoding, label).synthesis
    assert (raw is not None) == (verdict == Realizability.REALIZABLE), (
        f"{mission.name} {encoding} {label}: {verdict} expected (support.expected_verdicts)")
    if raw is None:
        return
    result = realize(reduced, mission.catalog, behavior=mission.name, out_dir=tmp_path / "b")
    module = result.path / result.package.module_path
    py_compile.compile(str(module), doraise=True)
    read = read_behavior(module.read_text(), str(module))
    assert read.classes == [result.package.names.class_name]
    root = next(b for b in result.machine.initial_branches if b.target == read.initial)
    expected = _expected(reduced, mission.catalog, result.machine.encoding, root.path[-1])
    got = {s.name: (s.class_name, s.transitions,
                    {k: v for k, v in s.parameters.items()
                     if k in expected.get(s.name, ("", {}, {}))[2]})
           for s in read.states}
    assert got == expected
    assert read.initial == result.machine.initial


@pytest.mark.parametrize("mission, states, instantiations, outcomes", [
    (str(MISSIONS / "coffee_extended.yaml"), 3, 4, []),
    (str(MISSIONS / "vending_extended.yaml"), 4, 6, ["finished"]),
])
def test_reference_counts_one_hot_system_goal_pending(mission, states, instantiations, outcomes):
    loaded, _raw, reduced = _pipeline(mission, "one-hot", "system-goal", True)
    result = realize(reduced, loaded.catalog, behavior=loaded.name)
    assert len(result.machine.states) == states
    assert instantiation_count(result.machine) == instantiations
    assert list(result.machine.outcomes) == outcomes
    read = read_behavior(result.package.module_source)
    assert len(read.states) == states and read.outcomes == outcomes
