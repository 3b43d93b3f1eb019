"""Proposition names of generated specs, and the enumerated encoding rewrite.

Generation (:mod:`bdi_supervisor.specgen.generate`) always builds its formulas over the *one-hot*
names: activation ``<cap>_a``, outcome ``<cap>_<t>`` (``t`` = first letter of the normalized
outcome), memory ``<x>_m``, pending ``<cap>_p``, SM-outcome propositions, catalog integers. For the
enumerated encoding :func:`to_enumerated` then replaces, on the syntax tree,

- ``<cap>_a`` (primed or not) by ``capability = i`` (same prime), capabilities numbered 1..N in
  alphabetical order (0 is the start-up / no-capability slot, or ``begin_game`` if present);
- ``<cap>_t'`` by ``capability = i & t'`` (the capability active in the current step and the
  generic outcome ``t`` — ``completed``, ``failure`` — observed in the next);
- an unprimed ``<cap>_t`` in a liveness clause by the same (a one-step shift, which does not change
  what "infinitely often" means); anywhere else it cannot be expressed without an extra memory
  and is an error.

The rewrite never edits text, so primes are always on the right variables.
"""

from __future__ import annotations

from dataclasses import dataclass

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.spec.formula import (
    And,
    Compare,
    Const,
    Formula,
    Implies,
    Not,
    Num,
    Or,
    Var,
    conj,
    disj,
    map_vars,
)
from bdi_supervisor.spec.gr1 import Origin

CAPABILITY_VARIABLE = "capability"
BOOTSTRAP_CAPABILITY = "begin_game"


def activation(cap: str) -> str:
    return f"{cap}_a"


def outcome_prop(catalog: Catalog, cap: str, outcome: str) -> str:
    return f"{cap}_{catalog.outcome_suffix(outcome)}"


def memory_prop(name: str) -> str:
    return f"{name}_m"


def pending_prop(cap: str) -> str:
    return f"{cap}_p"


def capability_numbers(catalog: Catalog) -> dict[str, int]:
    """Enumerated values: sorted real capabilities 1..N; ``begin_game`` (if any) is 0."""
    real = sorted(c for c in catalog.capabilities if c != BOOTSTRAP_CAPABILITY)
    numbers = {c: i for i, c in enumerate(real, start=1)}
    if BOOTSTRAP_CAPABILITY in catalog.capabilities:
        numbers[BOOTSTRAP_CAPABILITY] = 0
    return numbers


@dataclass(frozen=True)
class OutcomeRef:
    capability: str
    outcome: str  # normalized outcome


def outcome_index(catalog: Catalog) -> dict[str, OutcomeRef]:
    """One-hot outcome proposition → (capability, normalized outcome)."""
    return {outcome_prop(catalog, c, o): OutcomeRef(c, o)
            for c, cap in catalog.capabilities.items() for o in cap.outcomes}


Facts = dict[tuple[str, bool], object]  # (variable, primed) -> known value (bool or int)


def _literal(formula: Formula) -> tuple[tuple[str, bool], object] | None:
    if isinstance(formula, Var):
        return (formula.name, formula.primed), True
    if isinstance(formula, Not) and isinstance(formula.arg, Var):
        return (formula.arg.name, formula.arg.primed), False
    if (isinstance(formula, Compare) and formula.op == "=" and isinstance(formula.left, Var)
            and isinstance(formula.right, Num)):
        return (formula.left.name, formula.left.primed), formula.right.value
    return None


def _known(formula: Formula, facts: Facts) -> Formula:
    """``TRUE``/``FALSE`` when ``facts`` decide a literal or ``x = n``; else ``formula``."""
    if isinstance(formula, Var) and (formula.name, formula.primed) in facts:
        return Const(bool(facts[(formula.name, formula.primed)]))
    if (isinstance(formula, Compare) and formula.op == "=" and isinstance(formula.left, Var)
            and isinstance(formula.right, Num)):
        key = (formula.left.name, formula.left.primed)
        if key in facts and not isinstance(facts[key], bool):
            return Const(facts[key] == formula.right.value)
    return formula


def _facts_of(formula: Formula) -> Facts:
    parts = formula.args if isinstance(formula, And) else (formula,)
    out: Facts = {}
    for part in parts:
        literal = _literal(part)
        if literal is not None:
            out[literal[0]] = literal[1]
    return out


def simplify(formula: Formula, facts: Facts | None = None) -> Formula:
    """Flatten ``&``/``|``, drop duplicates and constants, and use what an implication's premise
    (or an earlier conjunct) already says: ``c = 1 -> (c = 1 & x)`` becomes ``c = 1 -> x``.
    The result is equivalent to ``formula``."""
    facts = facts or {}
    if isinstance(formula, (Var, Compare)):
        return _known(formula, facts)
    if isinstance(formula, Const):
        return formula
    if isinstance(formula, Not):
        inner = simplify(formula.arg, facts)
        return Const(not inner.value) if isinstance(inner, Const) else neg_(inner)
    if isinstance(formula, (And, Or)):
        is_and = isinstance(formula, And)
        unit, zero = Const(is_and), Const(not is_and)
        local = dict(facts)
        items: list[Formula] = []
        for arg in formula.args:
            arg = simplify(arg, local)
            parts = arg.args if type(arg) is type(formula) else (arg,)
            for part in parts:
                if part == zero:
                    return zero
                if part != unit and part not in items:
                    items.append(part)
                    if is_and:
                        local.update(_facts_of(part))
        return conj(items) if is_and else disj(items)
    if isinstance(formula, Implies):
        left = simplify(formula.left, facts)
        right = simplify(formula.right, {**facts, **_facts_of(left)})
        if left == Const(True):
            return right
        if left == Const(False) or right == Const(True):
            return Const(True)
        if right == Const(False):
            return neg_(left)
        return Implies(left, right)
    left, right = simplify(formula.left, facts), simplify(formula.right, facts)
    return type(formula)(left, right)  # type: ignore[call-arg]


def neg_(formula: Formula) -> Formula:
    return formula.arg if isinstance(formula, Not) else Not(formula)


def to_enumerated(formula: Formula, catalog: Catalog, *, liveness: bool, origin: Origin) -> Formula:
    """Rewrite a one-hot formula into the enumerated encoding (see module doc)."""
    numbers = capability_numbers(catalog)
    outcomes = outcome_index(catalog)
    activations = {activation(c): n for c, n in numbers.items()}

    def replace(leaf: Var) -> Formula:
        if leaf.name in activations:
            return Compare("=", Var(CAPABILITY_VARIABLE, leaf.primed), Num(activations[leaf.name]))
        ref = outcomes.get(leaf.name)
        if ref is None:
            return leaf
        if not leaf.primed and not liveness:
            raise InputError(
                f"outcome proposition '{leaf.name}' is used in the current state; the enumerated "
                "encoding can only express an outcome in the next state (write it primed, or use a "
                "memory proposition)", key=origin.key, file=origin.file, line=origin.line,
                found=leaf.name, expected=f"{leaf.name}'")
        return And((Compare("=", Var(CAPABILITY_VARIABLE), Num(numbers[ref.capability])),
                    Var(ref.outcome, True)))

    return simplify(map_vars(formula, replace))  # type: ignore[arg-type]
