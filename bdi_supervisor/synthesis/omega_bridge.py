"""The same GR(1) game solved by ``omega`` (the peer solver used by tests and ``bench/synthesis``).

A :class:`~bdi_supervisor.spec.gr1.GR1Spec` is translated to omega's TLA+-style expressions,
independently of :mod:`bdi_supervisor.synthesis.symbolic` (omega does its own bit-blasting and
fixpoints). The settings reproduce slugs' semantics:

- ``qinit = '\\A \\E'`` — for every initial input some initial output;
- ``moore = False`` — the system moves after seeing the next input (Mealy);
- ``plus_one = False`` — ``env_trans -> (sys_trans & target')``, as in slugs' cpre.

An integer ``x:low...high`` is declared as omega integer ``x`` over ``0 .. 2**b - 1`` (slugs'
``b`` bits holding ``value - low``); every occurrence reads ``(x + low)``, and slugs' range limits
``x <= high - low`` go to the owner's init and action (current and next). omega's recurrence
goals and persistence sets are state predicates, whereas slugs' liveness clauses may mention
next values: such a clause ``phi`` gets a fresh system Boolean ``_live_k`` with ``~ _live_k``
initially and ``_live_k' <=> phi`` in the system's action, and ``GF _live_k`` replaces it
(the recorded value is forced, so the game is unchanged up to a one-step delay).

``omega`` is a test dependency; import this module only where it is installed.
"""

from __future__ import annotations

from collections.abc import Iterator

from bdi_supervisor.spec.formula import FormulaFold, Var, has_prime
from bdi_supervisor.spec.gr1 import GR1Spec, Variable


def _name(var: str, primed: bool) -> str:
    return f"{var}'" if primed else var


class _Translator(FormulaFold[str, str]):
    """Formulas to omega's TLA-like syntax; integer variables are offset by their lower bound
    (omega's ranges start at 0)."""

    def __init__(self, variables: dict[str, Variable]) -> None:
        self.variables = variables

    def const(self, value: bool) -> str:
        return "TRUE" if value else "FALSE"

    def var(self, node: Var) -> str:
        return _name(node.name, node.primed)

    def not_(self, arg: str) -> str:
        return f"(~ {arg})"

    def and_(self, args: Iterator[str]) -> str:
        return "(" + r" /\ ".join(args) + ")"

    def or_(self, args: Iterator[str]) -> str:
        return "(" + r" \/ ".join(args) + ")"

    def xor(self, left: str, right: str) -> str:
        return f"(~ ({left} <=> {right}))"

    def implies(self, left: str, right: str) -> str:
        return f"({left} => {right})"

    def iff(self, left: str, right: str) -> str:
        return f"({left} <=> {right})"

    def compare(self, op: str, left: str, right: str) -> str:
        if op in (">", ">="):
            left, right, op = right, left, "<" if op == ">" else "<="
        return f"({left} {op} {right})"

    def num(self, value: int) -> str:
        return str(value) if value >= 0 else f"(0 - {-value})"

    def int_var(self, node: Var) -> str:
        low = self.variables[node.name].low
        name = _name(node.name, node.primed)
        if low == 0:
            return name
        return f"({name} + {low})" if low > 0 else f"({name} - {-low})"

    def add(self, left: str, right: str) -> str:
        return f"({left} + {right})"


def _conj(parts: list[str]) -> str:
    return "(" + r" /\ ".join(parts) + ")" if parts else "TRUE"


def build_automaton(spec: GR1Spec):
    """An omega ``temporal.Automaton`` for ``spec`` with slugs' semantics."""
    from omega.symbolic import temporal as trl

    translate = _Translator({v.name: v for v in spec.variables})
    aut = trl.Automaton()
    declared: dict[str, object] = {}
    limits: dict[str, list[str]] = {"env": [], "sys": []}
    for var in spec.variables:
        if var.kind == "bool":
            declared[var.name] = "bool"
        else:
            declared[var.name] = (0, (1 << var.bits) - 1)
            if (1 << var.bits) != var.high - var.low + 1:
                limits[var.owner].append(f"{var.name} <= {var.high - var.low}")
    env_init = [translate.formula(c.formula) for c in spec.env_init] + limits["env"]
    sys_init = [translate.formula(c.formula) for c in spec.sys_init] + limits["sys"]
    env_action = [translate.formula(c.formula) for c in spec.env_safety]
    env_action += [x for lim in limits["env"] for x in (lim, _prime_limit(lim))]
    sys_action = [translate.formula(c.formula) for c in spec.sys_safety]
    sys_action += [x for lim in limits["sys"] for x in (lim, _prime_limit(lim))]
    recorders: list[str] = []

    def goal(clause_formula) -> str:
        if not has_prime(clause_formula):
            return translate.formula(clause_formula)
        name = f"_live_{len(recorders)}"
        recorders.append(name)
        declared[name] = "bool"
        sys_init.append(f"~ {name}")
        sys_action.append(f"({name}' <=> {translate.formula(clause_formula)})")
        return name

    assumptions = [goal(c.formula) for c in spec.env_liveness] or ["TRUE"]
    guarantees = [goal(c.formula) for c in spec.sys_liveness] or ["TRUE"]
    if not declared:
        declared["_unused"] = "bool"
        recorders.append("_unused")
    aut.declare_variables(**declared)
    aut.varlist["env"] = [v.name for v in spec.inputs]
    aut.varlist["sys"] = [v.name for v in spec.outputs] + recorders
    aut.prime_varlists()
    aut.init["env"] = _conj(env_init)
    aut.init["sys"] = _conj(sys_init)
    aut.action["env"] = _conj(env_action)
    aut.action["sys"] = _conj(sys_action)
    aut.win["<>[]"] = aut.bdds_from(*[f"~ ({a})" for a in assumptions])
    aut.win["[]<>"] = aut.bdds_from(*guarantees)
    aut.qinit = r"\A \E"
    aut.moore = False
    aut.plus_one = False
    return aut


def _prime_limit(limit: str) -> str:
    name, rest = limit.split(" ", 1)
    return f"{name}' {rest}"


def omega_realizable(spec: GR1Spec) -> bool:
    """Whether omega finds ``spec`` realizable (slugs' semantics, see the module docstring)."""
    import contextlib
    import io
    import logging
    import sys

    from omega.games import gr1

    logging.getLogger("omega").setLevel(logging.ERROR)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 50000))  # omega's parser recurses per operator
    try:
        aut = build_automaton(spec)
        z, _, _ = gr1.solve_streett_game(aut)
        with contextlib.redirect_stdout(io.StringIO()):  # omega prints why init fails
            return bool(gr1.is_realizable(z, aut))
    finally:
        sys.setrecursionlimit(limit)
