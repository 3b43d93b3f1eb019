"""Generated specs are realizable (and broken ones are not), checked with omega as an oracle.

omega's GR(1) solver needs state predicates as liveness goals; liveness clauses over transitions
(``!(c_a -> c_c')``) are shifted by one step with ``prev_x`` copies (``prev_x' <-> x``), which does
not change what "infinitely often" means. Semantics are slugs': for all environment initial
states some system initial state wins; the system sees the next input before choosing
(``moore = False``) and wins when the environment violates its safety first (``plus_one = False``).
"""

import copy
import dataclasses
from pathlib import Path

import pytest
from omega.games import gr1 as omega_gr1
from omega.symbolic import temporal as trl

from bdi_supervisor.mission import load_mission
from bdi_supervisor.mission.model import MissionFormula
from bdi_supervisor.spec.formula import (
    Add,
    And,
    Compare,
    Const,
    Iff,
    Implies,
    Not,
    Num,
    Or,
    Var,
    Xor,
    has_prime,
    map_vars,
)
from bdi_supervisor.spec.generate import generate_spec
from bdi_supervisor.spec.gr1 import Clause, Variable
from bdi_supervisor.spec.structuredslugs import parse_formula

MISSIONS = Path(__file__).resolve().parents[1] / "config" / "missions"
OURS = ["coffee", "coffee_extended", "vending", "vending_extended", "two_rivers"]
_OPS = {"=": "=", "!=": "#", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def tla(f):
    if isinstance(f, Const):
        return "TRUE" if f.value else "FALSE"
    if isinstance(f, Var):
        return f.name + ("'" if f.primed else "")
    if isinstance(f, Num):
        return str(f.value)
    if isinstance(f, Add):
        return f"({tla(f.left)} + {tla(f.right)})"
    if isinstance(f, Compare):
        return f"({tla(f.left)} {_OPS[f.op]} {tla(f.right)})"
    if isinstance(f, Not):
        return f"~ ({tla(f.arg)})"
    if isinstance(f, (And, Or)):
        return "(" + (r" /\ " if isinstance(f, And) else r" \/ ").join(tla(a) for a in f.args) + ")"
    if isinstance(f, Implies):
        return f"({tla(f.left)} => {tla(f.right)})"
    if isinstance(f, Iff):
        return f"({tla(f.left)} <=> {tla(f.right)})"
    if isinstance(f, Xor):
        return f"~ ({tla(f.left)} <=> {tla(f.right)})"
    raise TypeError(f)


def _shift_liveness(spec):
    spec = copy.deepcopy(spec)
    used = set()

    def back(var):
        if var.primed:
            return Var(var.name)
        used.add(var.name)
        return Var("prev_" + var.name)

    for section in ("env_liveness", "sys_liveness"):
        spec.section(section)[:] = [Clause(map_vars(c.formula, back), c.origin) if has_prime(c.formula) else c
                                    for c in spec.section(section)]
    for name in sorted(used):
        var = spec.variable(name)
        spec.variables.append(Variable("prev_" + name, "sys", var.kind, var.low, var.high))
        copy_rule = (Iff(Var("prev_" + name, True), Var(name)) if var.kind == "bool"
                     else Compare("=", Var("prev_" + name, True), Var(name)))
        spec.sys_safety.append(Clause(copy_rule))
    return spec


def realizable(spec) -> bool:
    spec = _shift_liveness(spec)
    aut = trl.Automaton()
    aut.declare_variables(**{v.name: "bool" if v.kind == "bool" else (v.low, v.high) for v in spec.variables})
    aut.varlist["env"] = [v.name for v in spec.inputs]
    aut.varlist["sys"] = [v.name for v in spec.outputs]

    def conj(clauses):
        return r" /\ ".join(tla(c.formula) for c in clauses) or "TRUE"

    aut.init["env"], aut.init["sys"] = conj(spec.env_init), conj(spec.sys_init)
    aut.action["env"], aut.action["sys"] = conj(spec.env_safety), conj(spec.sys_safety)
    aut.win["<>[]"] = aut.bdds_from(*[f"~ ({tla(c.formula)})" for c in spec.env_liveness] or ["FALSE"])
    aut.win["[]<>"] = aut.bdds_from(*[tla(c.formula) for c in spec.sys_liveness] or ["TRUE"])
    aut.qinit, aut.moore, aut.plus_one = r"\A \E", False, False
    aut.prime_varlists()
    win, _, _ = omega_gr1.solve_streett_game(aut)
    return bool(omega_gr1.is_realizable(win, aut))


CONFIGS = [(e, lv, p) for e in ("one-hot", "enumerated") for lv in ("system-goal", "fair-outcome")
           for p in (False, True)]


@pytest.mark.parametrize("name", OURS)
@pytest.mark.parametrize("encoding, liveness, pending", CONFIGS)
def test_shipped_missions_are_realizable(name, encoding, liveness, pending):
    mission = load_mission(MISSIONS / f"{name}.yaml")
    assert realizable(generate_spec(mission, encoding=encoding, liveness=liveness, pending=pending))


def _with(mission, section, text):
    constraints = dict(mission.constraints)
    constraints[section] = (*constraints.get(section, ()), MissionFormula(text, parse_formula(text), "test"))
    return dataclasses.replace(mission, constraints=constraints)


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
@pytest.mark.parametrize("extra", [
    "item' != 2",                     # the goat must cross, so it must be carried
    "item' != 1 & item' != 3",        # the wolf and the corn must be carried too
    "!move_a -> item' = 1",           # taking the wolf first leaves the goat with the corn
])
def test_two_rivers_without_a_solution_is_unrealizable(encoding, extra):
    mission = _with(load_mission(MISSIONS / "two_rivers.yaml"), "sys_safety", extra)
    assert not realizable(generate_spec(mission, encoding=encoding))


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
def test_two_rivers_safety_rule_is_what_makes_it_a_puzzle(encoding):
    mission = load_mission(MISSIONS / "two_rivers.yaml")
    # taking the wolf first is fine once the rule is gone
    free = dataclasses.replace(mission, constraints={})
    assert realizable(generate_spec(_with(free, "sys_safety", "!move_a -> item' = 1"), encoding=encoding))


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
def test_goal_that_needs_a_forbidden_capability_is_unrealizable(encoding):
    mission = _with(load_mission(MISSIONS / "vending_extended.yaml"), "sys_safety", "!soda_a'")
    assert not realizable(generate_spec(mission, encoding=encoding))
