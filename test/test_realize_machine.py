"""The supervisor machine built from hand-made strategies (both encodings)."""

from __future__ import annotations

import dataclasses

import pytest
from support import realize_cases as cases

from bdi_supervisor.catalog.model import Capability, Catalog, EnumVariable, Parameter
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.machine import (
    ENUMERATED,
    ONE_HOT,
    UNEXPECTED,
    build_machine,
    capability_order,
    detect_encoding,
    edges_from_provenance,
)
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState


def wiring(machine):
    return {s.name: s.flexbe_transitions() for s in machine.states}


def test_coffee_reduced_one_hot_matches_reference_wiring():
    machine = build_machine(cases.coffee_reduced_onehot(), cases.coffee_catalog())
    assert machine.encoding == ONE_HOT
    assert machine.initial == "0_bd"
    assert wiring(machine) == cases.COFFEE_EXPECTED
    assert machine.outcomes == ()
    assert machine.ambiguities() == []
    bd = machine.state("0_bd")
    assert bd.interface_module == "flexbe_states.operator_decision_state"
    assert bd.interface_class == "OperatorDecisionState"
    assert bd.parameters == {"outcomes": ["button", "fail"], "hint": "Detect button press",
                             "suggestion": "button"}
    # autonomy per FlexBE outcome, not flattened to the max as the reference does
    assert bd.autonomy == {"button": 2, "fail": 3}


def test_raw_strategy_realizes_one_state_per_capability_state():
    raw = cases.coffee_raw_onehot()
    machine = build_machine(raw, cases.coffee_catalog())
    assert [s.strategy_id for s in machine.states] == list(range(7))
    assert wiring(machine)["0_bd"] == {"button": "1_gr", "fail": "2_bd"}
    assert wiring(machine)["6_br"] == {"brew": "5_bd", "fail": "6_br"}


def test_provenance_edges_give_the_same_machine_as_union_labels():
    raw, reduced = cases.coffee_raw_onehot(), cases.coffee_reduced_onehot()
    edges = edges_from_provenance(raw, reduced, cases.COFFEE_MEMBERS)
    with_edges = build_machine(reduced, cases.coffee_catalog(), edges=edges)
    assert wiring(with_edges) == cases.COFFEE_EXPECTED


def test_vending_four_states_plus_finished_and_pruning():
    machine = build_machine(cases.vending_reduced_onehot(), cases.vending_catalog())
    assert wiring(machine) == cases.VENDING_EXPECTED
    assert machine.state_names == ["0_prep_pay", "1_pay", "3_select", "4_soda"]
    assert machine.outcomes == ("finished",)
    assert machine.used_outcomes() == ["finished"]
    assert machine.dropped == {2: "wiring", 5: "outcome:finished"}
    assert machine.state("4_soda").transitions["completed"].to_outcome


def test_enumerated_bootstrap_is_wiring_and_indices_are_alphabetical():
    catalog = cases.coffee_catalog()
    assert capability_order(catalog) == ["bd", "br", "gr"]
    raw = cases.coffee_enumerated_raw()
    assert detect_encoding(raw) == ENUMERATED
    machine = build_machine(raw, catalog)
    # state 0 is capability=0: wiring; state 1 (nothing observed) is preferred as the start
    assert machine.initial == "1_bd"
    assert machine.dropped[0] == "wiring"
    assert wiring(machine)["1_bd"] == {"button": "4_gr", "fail": "5_bd"}
    assert wiring(machine)["6_br"] == {"brew": "8_bd", "fail": "9_br"}
    # arrivals showing an outcome cannot happen at start-up: only the quiet one is a candidate
    assert [b.target for b in machine.initial_branches] == ["1_bd"]


def test_enumerated_union_labels_collide_without_provenance():
    """Merged generic labels cannot tell which outcome led where: reported as ambiguity."""
    raw = cases.coffee_enumerated_raw()
    reduced, members = cases.coffee_enumerated_reduced()
    ambiguous = build_machine(reduced, cases.coffee_catalog())
    assert ambiguous.ambiguities()
    exact = build_machine(reduced, cases.coffee_catalog(),
                          edges=edges_from_provenance(raw, reduced, members))
    assert exact.ambiguities() == []
    assert wiring(exact) == {"1_bd": {"button": "2_gr", "fail": "1_bd"},
                             "2_gr": {"grind": "3_br", "fail": "2_gr"},
                             "3_br": {"brew": "1_bd", "fail": "3_br"}}


def _sensor_strategy() -> Strategy:
    """bd runs; on completion a sensor `door` decides between gr and br."""
    ins = ["bd_c", "bd_f", "br_c", "br_f", "door", "gr_c", "gr_f"]
    outs = ["bd_a", "br_a", "gr_a"]
    variables = [Variable(n, "env") for n in ins] + [Variable(n, "sys") for n in outs]

    def st(i, true_in, active, succ, initial=False):
        return StrategyState(i, {n: n in true_in for n in ins}, {n: n == active for n in outs},
                             succ, 0, initial)

    states = [
        st(0, (), "bd_a", [1, 2, 3], True),
        st(1, ("bd_c",), "gr_a", [0, 0]),
        st(2, ("bd_c", "door"), "br_a", [0, 0]),
        st(3, ("bd_f",), "bd_a", [1, 2, 3]),
    ]
    states[1].successors = [4, 5]
    states[2].successors = [6, 7]
    states.extend([st(4, ("gr_c",), "bd_a", [1, 2, 3]), st(5, ("gr_f",), "bd_a", [1, 2, 3]),
                   st(6, ("br_c",), "bd_a", [1, 2, 3]), st(7, ("br_f",), "bd_a", [1, 2, 3])])
    return Strategy(variables, states, "sensor")


def test_sensor_dependent_successors_are_branches_the_executor_selects():
    machine = build_machine(_sensor_strategy(), cases.coffee_catalog())
    transition = machine.state("0_bd").transitions["completed"]
    assert transition.ambiguous
    assert transition.select({"door": False}) == "1_gr"
    assert transition.select({"door": True}) == "2_br"
    assert machine.ambiguities() and "door" in machine.ambiguities()[0]


def test_excluded_outcome_leads_to_unexpected_outcome():
    catalog = cases.coffee_catalog()
    strategy = cases.coffee_reduced_onehot()
    strategy.states[0].successors = [1]  # environment never lets bd fail here
    machine = build_machine(strategy, catalog)
    fail = machine.state("0_bd").transitions["failure"]
    assert fail.excluded and fail.target == UNEXPECTED
    assert UNEXPECTED in machine.outcomes


def test_at_parameter_resolved_through_variable_labels():
    catalog = cases.vending_catalog()
    caps = dict(catalog.capabilities)
    caps["soda"] = dataclasses.replace(
        caps["soda"], parameters=(Parameter("hint", variable="item"),
                                  Parameter("outcomes", ["soda", "failed"])))
    catalog = dataclasses.replace(catalog, capabilities=caps)
    machine = build_machine(cases.vending_reduced_onehot(), catalog)
    assert machine.state("4_soda").parameters["hint"] == "soda"


def test_at_parameter_without_label_is_an_input_error():
    catalog = cases.vending_catalog()
    catalog.variables["item"] = EnumVariable("item", "sys", {0: "None"})
    caps = dict(catalog.capabilities)
    caps["soda"] = dataclasses.replace(caps["soda"],
                                       parameters=(Parameter("hint", variable="item"),))
    catalog.capabilities = caps
    with pytest.raises(InputError, match="no label"):
        build_machine(cases.vending_reduced_onehot(), catalog)


@pytest.mark.parametrize("bad", ["x'); import os; os.system('id'); ('", "a b", "class", "1cap", ""])
def test_unsafe_capability_name_is_rejected(bad):
    catalog = cases.coffee_catalog()
    catalog.capabilities[bad] = dataclasses.replace(catalog.capabilities["bd"], name=bad)
    with pytest.raises(InputError, match="capability name is not a safe identifier"):
        build_machine(cases.coffee_reduced_onehot(), catalog)


@pytest.mark.parametrize("value", [float("nan"), object(), b"x", {1.5: "a"}])
def test_non_literal_parameter_values_are_rejected(value):
    catalog = cases.coffee_catalog()
    catalog.capabilities["bd"] = dataclasses.replace(
        catalog.capabilities["bd"], parameters=(Parameter("hint", value),))
    with pytest.raises(InputError):
        build_machine(cases.coffee_reduced_onehot(), catalog)


def test_protocol_violation_is_reported():
    strategy = cases.coffee_reduced_onehot()
    strategy.states[1].inputs = {k: False for k in strategy.states[1].inputs}
    with pytest.raises(InputError, match="shows no outcome"):
        build_machine(strategy, cases.coffee_catalog())


def test_userdata_remapping_collected():
    catalog = Catalog("ud", {"bd": Capability(
        "bd", "LogState", (Parameter("text", "hi"),), outcomes=("completed",),
        flexbe_outcomes={"done": "completed"}, userdata_in={"pose": "target_pose"})})
    variables = [Variable("bd_c", "env"), Variable("bd_a", "sys")]
    strategy = Strategy(variables, [
        StrategyState(0, {"bd_c": False}, {"bd_a": True}, [1], 0, True),
        StrategyState(1, {"bd_c": True}, {"bd_a": True}, [1])], "ud")
    machine = build_machine(strategy, catalog)
    assert machine.userdata_keys == ("target_pose",)
    assert machine.state("0_bd").remapping == {"pose": "target_pose"}
    catalog.capabilities["bd"] = dataclasses.replace(catalog.capabilities["bd"],
                                                     userdata_in={"pose": "a.b"})
    with pytest.raises(InputError, match="userdata"):
        build_machine(strategy, catalog)


def test_encoding_mismatch_is_an_input_error():
    with pytest.raises(InputError, match="capability variable"):
        build_machine(cases.coffee_reduced_onehot(), cases.coffee_catalog(), encoding=ENUMERATED)
    with pytest.raises(InputError, match="not synthesized from this catalog"):
        build_machine(cases.coffee_enumerated_raw(), cases.vending_catalog())


@pytest.mark.parametrize("raw", [cases.coffee_raw_onehot(), cases.coffee_enumerated_raw()],
                         ids=["one-hot", "enumerated"])
def test_reducer_output_realizes_like_the_reference(raw):
    """With the reducer's per-edge inputs, merged states stay exact in both encodings."""
    from bdi_supervisor.reduce import reduce

    machine = build_machine(reduce(raw), cases.coffee_catalog())
    assert machine.ambiguities() == []
    by_cap = {s.name: s.capability for s in machine.states}
    shape = {by_cap[s.name]: {o: by_cap[t] for o, t in s.flexbe_transitions().items()}
             for s in machine.states}
    assert len(machine.states) == 3
    assert shape == {"bd": {"button": "gr", "fail": "bd"}, "gr": {"grind": "br", "fail": "gr"},
                     "br": {"brew": "bd", "fail": "br"}}
    for state in machine.states:  # failures loop on the state itself
        fail = state.flexbe_transitions()["fail"]
        assert fail == state.name
