"""Symbolic CTL-BDI model checking on ``dd.cudd``.

Only true-sets are computed, each restricted to the reachable nodes R; a subformula is false
exactly on R minus its true-set. Until uses least fixpoints for truth only: the falsity of
E[a U b] along an infinite a-path (a lasso) is then the complement, never a
least fixpoint of "false" rules.

    EX a      = R ∧ pre(a)                  AX a  = R ∧ ¬pre(R ∧ ¬a)
    E[a U b]  = μZ. b ∨ (a ∧ pre(Z))        A[a U b] = μZ. b ∨ (a ∧ AX Z)
    EG a      = νZ. a ∧ pre(Z)              EF, AF, AG derived
    bel a     = R ∧ ¬preB(R ∧ ¬a)           (des: D, int: I)

Every path is infinite (structures have no deadlocks), so AX needs no EX true conjunct.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bdi_monitor.logic.ast import (
    FALSE,
    TRUE,
    Atom,
    Binary,
    Const,
    Formula,
    Modal,
    Not,
    Temporal,
    Until,
)
from bdi_monitor.product import ProductNode, initial_node
from bdi_monitor.structure import Structure
from bdi_monitor.symbolic import SymbolicModel
from bdi_supervisor.bdd import cudd


class Checker:
    """Evaluates formulas on one structure; true-sets are memoized per distinct subformula."""

    def __init__(self, structure: Structure | SymbolicModel,
                 check: Callable[[], None] | None = None) -> None:
        """``check``: the budget of a model built here (:attr:`SymbolicModel.check`)."""
        self.model = (structure if isinstance(structure, SymbolicModel)
                      else SymbolicModel(structure, check=check))
        self.structure = self.model.structure
        self.bdd = self.model.bdd
        self.reach = self.model.reachable
        self._sat: dict[Formula, cudd.Function] = {}
        self.iterations = 0  # fixpoint iterations, for statistics

    # -- public API -----------------------------------------------------------------------------
    def sat(self, formula: Formula) -> cudd.Function:
        """[[formula]] ∩ R as a BDD over the current-state variables."""
        cached = self._sat.get(formula)
        if cached is None:
            cached = self._compute(formula)
            self._sat[formula] = cached
        return cached

    def holds(self, formula: Formula, node: ProductNode | None = None) -> bool:
        """Truth of ``formula`` at ``node`` (default u₀, the actual world at the root)."""
        return self.model.contains(node or self.initial_node, self.sat(formula))

    def holds_at_nodes(self, formula: Formula, nodes: list[ProductNode]) -> list[bool]:
        sat = self.sat(formula)
        return [self.model.contains(n, sat) for n in nodes]

    def worlds_where(self, formula: Formula, node: ProductNode) -> set[int]:
        """The worlds j for which (j, node's states, node's automata) satisfies ``formula``:
        with an unknown actual world, compare with the candidate worlds for a 3-valued verdict.
        """
        sat = self.sat(formula)
        return {j for j in range(len(self.structure.worlds))
                if self.model.contains(ProductNode(j, node.states, node.automata), sat)}

    @property
    def initial_node(self) -> ProductNode:
        return initial_node(self.structure)

    def count(self, formula: Formula | None = None) -> int:
        """Number of reachable nodes (satisfying ``formula`` if given)."""
        return self.model.count(self.reach if formula is None else self.sat(formula))

    def forget(self) -> None:
        """Drop memoized true-sets (after a model change)."""
        self._sat.clear()

    # -- operators ------------------------------------------------------------------------------
    def ex(self, u: cudd.Function) -> cudd.Function:
        return self.reach & self.model.pre(u)

    def ax(self, u: cudd.Function) -> cudd.Function:
        return self.reach & ~self.model.pre(self.reach & ~u)

    def eu(self, a: cudd.Function, b: cudd.Function) -> cudd.Function:
        """μZ. b ∨ (a ∧ EX Z), chaining the directions (same least fixpoint: every step adds
        only nodes of it, and the result is closed under a ∧ pre along every direction); after
        the model's ``closure_after`` rounds, along each direction's closure within ``a`` (the
        unrestricted closure where a is R: a path from R stays in R)."""
        model, z = self.model, b
        closures, rounds = None, 0
        while True:
            self._step()
            if rounds == model.closure_after:
                closures = model.closures(None if a == self.reach else a)
            rounds += 1
            old = z
            for d in range(self.structure.k):
                x = (model.pre_along(d, z) if closures is None
                     else model.pre_closed(closures[d], z))
                z = z | (a & x)
            if z == old:
                return z

    def eu_rings(self, a: cudd.Function, b: cudd.Function) -> list[cudd.Function]:
        """The onion rings Z₀ = b ⊆ Z₁ ⊆ … of E[a U b] (for shortest witnesses)."""
        rings = [b]
        while True:
            self._step()
            new = rings[-1] | (self.reach & a & self.model.pre(rings[-1]))
            if new == rings[-1]:
                return rings
            rings.append(new)

    def au(self, a: cudd.Function, b: cudd.Function) -> cudd.Function:
        z = b
        while True:
            self._step()
            new = z | (a & self.ax(z))
            if new == z:
                return z
            z = new

    def eg(self, a: cudd.Function) -> cudd.Function:
        z = a
        while True:
            self._step()
            new = z & self.model.pre(z)
            if new == z:
                return z
            z = new

    def _step(self) -> None:
        """One fixpoint iteration: counted, and the model's budget checked."""
        self.iterations += 1
        self.model.check()

    def box(self, relation: str, u: cudd.Function) -> cudd.Function:
        return self.reach & ~self.model.modal_pre(relation, self.reach & ~u)

    def _compute(self, f: Formula) -> cudd.Function:
        reach = self.reach
        if isinstance(f, Const):
            return reach if f.value else self.bdd.false
        if isinstance(f, Atom):
            return reach & self.model.label(f.name)
        if isinstance(f, Not):
            return reach & ~self.sat(f.arg)
        if isinstance(f, Binary):
            a, b = self.sat(f.left), self.sat(f.right)
            if f.op == "&":
                return a & b
            if f.op == "|":
                return a | b
            if f.op == "->":
                return reach & (~a | b)
            if f.op == "<->":
                return reach & ((a & b) | (~a & ~b))
        if isinstance(f, Temporal):
            a = self.sat(f.arg)
            if f.op == "EX":
                return self.ex(a)
            if f.op == "AX":
                return self.ax(a)
            if f.op == "EF":
                return self.sat(Until("E", TRUE, f.arg))
            if f.op == "AF":
                return self.sat(Until("A", TRUE, f.arg))
            if f.op == "EG":
                return self.eg(a)
            if f.op == "AG":
                return reach & ~self.sat(Until("E", TRUE, Not(f.arg)))
        if isinstance(f, Until):
            a, b = self.sat(f.left), self.sat(f.right)
            return self.eu(a, b) if f.quantifier == "E" else self.au(a, b)
        if isinstance(f, Modal):
            return self.box(f.relation, self.sat(f.arg))
        raise TypeError(f"not a formula: {f!r}")


@dataclass
class CheckResult:
    """The verdict of one property at u₀, with the checker (true-sets per subformula) kept."""

    formula: Formula
    holds: bool
    checker: Checker = field(repr=False)

    def sat(self, subformula: Formula | None = None) -> cudd.Function:
        return self.checker.sat(subformula or self.formula)

    def holds_at(self, node: ProductNode, subformula: Formula | None = None) -> bool:
        return self.checker.holds(subformula or self.formula, node)


def check(structure: Structure | SymbolicModel | Checker, formula: Formula) -> CheckResult:
    """Model-check ``formula`` at the actual world's root: M, w ⊨ φ iff u₀ ∈ [[φ]]."""
    checker = structure if isinstance(structure, Checker) else Checker(structure)
    return CheckResult(formula, checker.holds(formula), checker)


__all__ = ["FALSE", "TRUE", "CheckResult", "Checker", "check"]
