"""Hand-built catalogs and strategies for the realization tests (no loader, no synthesis).

The strategies follow the reference's published realizations (docs/realization.md):
coffee-extended one-hot System-Goal + pending reduces to three capability states, vending-extended
to four capability states plus the ``finished`` outcome.
"""

from __future__ import annotations

import dataclasses

from bdi_supervisor.catalog.model import Capability, Catalog, EnumVariable, Parameter
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

C, F = "completed", "failure"


def decision(name: str, ok: str, fail: str, hint: str) -> Capability:
    return Capability(
        name=name,
        interface="OperatorDecisionState",
        parameters=(Parameter("outcomes", [ok, fail]), Parameter("hint", hint),
                    Parameter("suggestion", ok)),
        outcomes=(C, F),
        flexbe_outcomes={ok: C, fail: F},
        autonomy={ok: 2, fail: 3},
    )


def log(name: str, text: str) -> Capability:
    return Capability(name=name, interface="LogState", parameters=(Parameter("text", text),),
                      outcomes=(C,), flexbe_outcomes={"done": C})


def coffee_catalog() -> Catalog:
    caps = {
        "bd": decision("bd", "button", "fail", "Detect button press"),
        "gr": decision("gr", "grind", "fail", "Grind"),
        "br": decision("br", "brew", "fail", "Brew"),
    }
    return Catalog("coffee_maker", caps,
                   state_outcome_mappings={"button": C, "grind": C, "brew": C, "fail": F})


def _variables(inputs: list[str], outputs: list[str], ints: dict[str, tuple[int, int]] = {}):  # noqa: B006
    found = [Variable(n, "env") for n in inputs]
    for name in outputs:
        low, high = ints.get(name, (0, 1))
        found.append(Variable(name, "sys", "int" if name in ints else "bool", low, high))
    return found


COFFEE_IN = ["bd_c", "bd_f", "br_c", "br_f", "gr_c", "gr_f"]
COFFEE_OUT = ["bd_a", "bd_m", "bd_p", "br_a", "br_p", "gr_a", "gr_m", "gr_p"]


def _onehot(inputs_true, outputs_true, all_in, all_out, ints=None):
    ints = ints or {}
    inputs = {n: n in inputs_true for n in all_in}
    outputs = {n: ints.get(n, n in outputs_true) for n in all_out}
    return inputs, outputs


def coffee_raw_onehot() -> Strategy:
    """A raw coffee-extended one-hot strategy: 7 states, one per (arrival, activation)."""
    rows = [  # (arrival outcomes, activations+memory, successors)
        ((), ("bd_a", "bd_p"), [1, 2]),
        (("bd_c",), ("gr_a", "gr_p", "bd_m"), [3, 4]),
        (("bd_f",), ("bd_a", "bd_p"), [1, 2]),
        (("gr_c",), ("br_a", "br_p", "gr_m"), [5, 6]),
        (("gr_f",), ("gr_a", "gr_p", "bd_m"), [3, 4]),
        (("br_c",), ("bd_a", "bd_p"), [1, 2]),
        (("br_f",), ("br_a", "br_p", "gr_m"), [5, 6]),
    ]
    states = []
    for index, (arrival, active, succ) in enumerate(rows):
        inputs, outputs = _onehot(arrival, active, COFFEE_IN, COFFEE_OUT)
        states.append(StrategyState(index, inputs, outputs, succ, 0, index == 0))
    return Strategy(_variables(COFFEE_IN, COFFEE_OUT), states, "coffee_raw")


#: reduced id → raw ids it merges
COFFEE_MEMBERS = {0: [0, 2, 5], 1: [1, 4], 2: [3, 6]}


def coffee_reduced_onehot() -> Strategy:
    """Reduced coffee-extended one-hot: merged arrival labels are unions (as the reference)."""
    rows = [
        (("bd_f", "br_c"), ("bd_a", "bd_p"), [0, 1]),
        (("bd_c", "gr_f"), ("gr_a", "gr_p", "bd_m"), [1, 2]),
        (("gr_c", "br_f"), ("br_a", "br_p", "gr_m"), [2, 0]),
    ]
    states = []
    for index, (arrival, active, succ) in enumerate(rows):
        inputs, outputs = _onehot(arrival, active, COFFEE_IN, COFFEE_OUT)
        states.append(StrategyState(index, inputs, outputs, succ, 0, index == 0))
    return Strategy(_variables(COFFEE_IN, COFFEE_OUT), states, "coffee_reduced")


#: expected FlexBE wiring of coffee (reference §6, names as ours)
COFFEE_EXPECTED = {
    "0_bd": {"button": "1_gr", "fail": "0_bd"},
    "1_gr": {"grind": "2_br", "fail": "1_gr"},
    "2_br": {"brew": "0_bd", "fail": "2_br"},
}


def coffee_enumerated_raw() -> Strategy:
    """Enumerated coffee: capability 0 bootstrap, bd=1, br=2, gr=3; generic outcomes."""
    ins = ["completed", "failure"]
    outs = ["bd_m", "bd_p", "br_p", "capability", "gr_m", "gr_p"]
    ints = {"capability": (0, 3)}
    rows = [  # (arrival, capability, successors)
        ((), 0, [1, 2, 3]),
        ((), 1, [4, 5]),
        (("completed",), 1, [4, 5]),
        (("failure",), 1, [4, 5]),
        (("completed",), 3, [6, 7]),   # gr after bd completed
        (("failure",), 1, [4, 5]),     # bd again after bd failed
        (("completed",), 2, [8, 9]),   # br after gr completed
        (("failure",), 3, [6, 7]),
        (("completed",), 1, [4, 5]),   # bd after br completed
        (("failure",), 2, [8, 9]),
    ]
    states = []
    for index, (arrival, cap, succ) in enumerate(rows):
        inputs = {n: n in arrival for n in ins}
        outputs = {n: False for n in outs}
        outputs["capability"] = cap
        states.append(StrategyState(index, inputs, outputs, succ, 0, index == 0))
    return Strategy(_variables(ins, outs, ints), states, "coffee_enum")


def coffee_enumerated_reduced() -> tuple[Strategy, dict[int, list[int]]]:
    """The enumerated coffee strategy merged by outputs, labels unioned; with its provenance."""
    raw = coffee_enumerated_raw()
    members = {0: [0], 1: [1, 2, 3, 5, 8], 2: [4, 7], 3: [6, 9]}
    block = {r: b for b, rs in members.items() for r in rs}
    states = []
    for rid, raw_ids in members.items():
        first = raw.state(raw_ids[0])
        inputs = {k: any(raw.state(r).inputs[k] for r in raw_ids) for k in first.inputs}
        succ = sorted({block[s] for s in first.successors})
        states.append(StrategyState(rid, inputs, dict(first.outputs), succ, 0, rid == 0))
    return Strategy(raw.variables, states, "coffee_enum_reduced"), members


VEND_IN = ["beer_c", "beer_f", "pay_c", "pay_f", "prep_pay_c", "select_c", "snack_c", "snack_f",
           "soda_c", "soda_f"]
VEND_OUT = ["beer_a", "finished", "item", "pay_a", "pay_p", "prep_pay_a", "select_a", "snack_a",
            "soda_a", "soda_p"]


def vending_catalog() -> Catalog:
    caps = {
        "prep_pay": log("prep_pay", "Ready to go"),
        "pay": decision("pay", "pay", "failed", "Pay the fee."),
        "select": log("select", "Select a Beverage"),
        "soda": decision("soda", "soda", "failed", "Vending soda."),
    }
    item = EnumVariable("item", "sys", {0: "None", 1: "soda", 2: "beer", 3: "snack"})
    return Catalog("vending_demo", caps, variables={"item": item},
                   sm_outcome_mappings={"finished": "finished"})


def vending_reduced_onehot() -> Strategy:
    """Vending-extended one-hot S+P, reduced: ids as the reference (0, 1, 3, 4; 5 = finished)."""
    rows = [  # (arrival, outputs true, item, successors)
        ((), ("prep_pay_a",), 0, [1]),
        (("prep_pay_c", "pay_f"), ("pay_a", "pay_p"), 0, [1, 3]),
        ((), (), 0, [2]),  # unreachable leftover kept to test pruning (no activation)
        (("pay_c",), ("select_a",), 0, [4]),
        (("select_c", "soda_f"), ("soda_a", "soda_p"), 1, [4, 5]),
        (("soda_c",), ("finished",), 0, [5]),
    ]
    states = []
    for index, (arrival, active, item, succ) in enumerate(rows):
        inputs, outputs = _onehot(arrival, active, VEND_IN, VEND_OUT, {"item": item})
        states.append(StrategyState(index, inputs, outputs, succ, 0, index == 0))
    return Strategy(_variables(VEND_IN, VEND_OUT, {"item": (0, 3)}), states, "vending_reduced")


VENDING_EXPECTED = {
    "0_prep_pay": {"done": "1_pay"},
    "1_pay": {"pay": "3_select", "failed": "1_pay"},
    "3_select": {"done": "4_soda"},
    "4_soda": {"soda": "finished", "failed": "4_soda"},
}


def bind_states(catalog: Catalog, interface: str) -> Catalog:
    """``catalog`` with every capability bound to the state class ``interface`` (a module path),
    which takes the capability's FlexBE outcomes as its one parameter ``outcomes`` (the test
    states of ``test/flexbe_support``)."""
    caps = {name: dataclasses.replace(
        cap, interface=interface, parameters=(Parameter("outcomes", list(cap.flexbe_outcomes)),))
        for name, cap in catalog.capabilities.items()}
    return dataclasses.replace(catalog, capabilities=caps)
