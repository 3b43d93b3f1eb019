"""Certificates for verdicts: counterexample DAGs and witnesses.

A certificate is a DAG of *obligations* — (product node, subformula, truth value) — joined by
edges of four kinds: ``L`` (same node, a subformula that justifies the parent), ``T`` (a temporal
edge along a direction), ``B``/``D``/``I`` (a modal edge). Existential evidence is explicit: a
shortest path from the until fixpoint's onion rings (E[..U..] and EF true, AG and A[..U..] false),
a lasso for EG true and AF/A[..U..] false (``back`` marks the edge that closes the loop),
one successor for EX/¬AX, one accessible world for ¬bel, all accessible worlds for bel. Universal
claims with no finite path certificate (AG, AF, A[..U..] true; EF, EG, E[..U..] false) end in
an ``invariant`` leaf: every node reachable from it stays in the fixpoint's set, which a replay
can check with one exploration.

:func:`explain` gives the certificate of the actual truth value: a counterexample when the
formula is false at the node, a witness when it is true.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bdi_monitor.checker import Checker
from bdi_monitor.logic.ast import TRUE, Atom, Binary, Const, Formula, Modal, Not, Temporal, Until
from bdi_monitor.product import (
    ProductNode,
    describe,
    modal_successors,
    temporal_successors,
)
from bdi_supervisor.bdd import cudd


@dataclass
class Obligation:
    id: int
    node: ProductNode
    formula: Formula
    holds: bool
    rule: str


@dataclass
class Edge:
    source: int
    target: int
    kind: str  # "L", "T", "B", "D", "I"
    direction: int | None = None  # 1-based, for T edges
    back: bool = False  # closes a lasso


@dataclass
class Certificate:
    """Evidence that ``obligations[root]`` has its truth value."""

    root: int
    obligations: list[Obligation] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    @property
    def verdict(self) -> bool:
        return self.obligations[self.root].holds

    def children(self, oid: int) -> list[Edge]:
        return [e for e in self.edges if e.source == oid]

    def to_json(self, checker: Checker) -> dict[str, Any]:
        structure = checker.structure
        return {
            "verdict": self.verdict,
            "root": self.root,
            "nodes": [{"id": o.id, **describe(structure, o.node), "formula": str(o.formula),
                       "holds": o.holds, "rule": o.rule} for o in self.obligations],
            "edges": [{"from": e.source, "to": e.target, "kind": e.kind,
                       **({"direction": e.direction,
                           "direction_name": structure.directions[e.direction - 1]}
                          if e.direction else {}),
                       **({"lasso": True} if e.back else {})} for e in self.edges],
        }

    def render(self, checker: Checker) -> str:
        """An indented text tree; a path or lasso is listed step by step at one depth (shared
        obligations are printed once, then referred to)."""
        structure = checker.structure
        lines: list[str] = []
        printed: set[int] = set()

        def label(e: Edge) -> str:
            if e.kind == "T":
                return f"T({structure.directions[(e.direction or 1) - 1]}) "
            return "" if e.kind == "L" else f"{e.kind} "

        def show(oid: int, depth: int, via: str) -> None:
            while True:
                o = self.obligations[oid]
                d = describe(structure, o.node)
                states = " ".join(f"{w}:{'⊥' if s is None else s}" for w, s in d["states"].items())
                autos = " ".join(f"{a[0].upper()}:{q}" for a, q in d["automata"].items())
                head = f"{'  ' * depth}{via}#{oid} [{d['world']} | {states} | {autos}] "
                verdict = "⊨" if o.holds else "⊭"
                if oid in printed:
                    lines.append(f"{head}{verdict} {o.formula}  (see above)")
                    return
                printed.add(oid)
                lines.append(f"{head}{verdict} {o.formula}  ({o.rule})")
                chain = None
                for e in self.children(oid):
                    if e.back:
                        lines.append(f"{'  ' * (depth + 1)}{label(e)}↺ back to #{e.target} (lasso)")
                    elif e.kind == "T" and self.obligations[e.target].formula == o.formula \
                            and chain is None:
                        chain = e
                    else:
                        show(e.target, depth + 1, label(e))
                if chain is None:
                    return
                oid, via = chain.target, label(chain)

        show(self.root, 0, "")
        return "\n".join(lines)


class _Builder:
    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        self.structure = checker.structure
        self.model = checker.model
        self.cert = Certificate(root=0)
        self.memo: dict[tuple[ProductNode, Formula, bool], int] = {}

    # -- helpers --------------------------------------------------------------------------------
    def holds(self, node: ProductNode, formula: Formula) -> bool:
        return self.model.contains(node, self.checker.sat(formula))

    def new(self, node: ProductNode, formula: Formula, holds: bool, rule: str) -> int:
        oid = len(self.cert.obligations)
        self.cert.obligations.append(Obligation(oid, node, formula, holds, rule))
        self.memo[(node, formula, holds)] = oid
        return oid

    def edge(self, source: int, target: int, kind: str = "L", direction: int | None = None,
             back: bool = False) -> None:
        self.cert.edges.append(Edge(source, target, kind, direction, back))

    def truth_set(self, formula: Formula, truth: bool) -> cudd.Function:
        sat = self.checker.sat(formula)
        return sat if truth else self.checker.reach & ~sat

    # -- main recursion -------------------------------------------------------------------------
    def explain(self, node: ProductNode, formula: Formula) -> int:
        holds = self.holds(node, formula)
        key = (node, formula, holds)
        if key in self.memo:
            return self.memo[key]
        f = formula
        if isinstance(f, Const):
            return self.new(node, f, holds, "constant")
        if isinstance(f, Atom):
            return self.new(node, f, holds, "label")
        if isinstance(f, Not):
            oid = self.new(node, f, holds, "negation")
            self.edge(oid, self.explain(node, f.arg))
            return oid
        if isinstance(f, Binary):
            return self.binary(node, f, holds)
        if isinstance(f, Modal):
            return self.modal(node, f, holds)
        if isinstance(f, Temporal) and f.op in ("EX", "AX"):
            return self.next_step(node, f, holds)
        return self.path_formula(node, f, holds)

    def binary(self, node: ProductNode, f: Binary, holds: bool) -> int:
        left = self.holds(node, f.left)
        if f.op == "<->":
            chosen = [f.left, f.right]
        elif f.op == "&":
            chosen = [f.left, f.right] if holds else [f.left if not left else f.right]
        elif f.op == "|":
            chosen = [f.left if left else f.right] if holds else [f.left, f.right]
        else:  # ->
            chosen = ([f.left] if not left else [f.right]) if holds else [f.left, f.right]
        oid = self.new(node, f, holds, {"&": "conjunction", "|": "disjunction",
                                        "->": "implication", "<->": "equivalence"}[f.op])
        for sub in chosen:
            self.edge(oid, self.explain(node, sub))
        return oid

    def modal(self, node: ProductNode, f: Modal, holds: bool) -> int:
        targets = modal_successors(self.structure, node, f.relation)
        if holds:
            oid = self.new(node, f, holds, f"all {f.relation}-accessible worlds")
            chosen = targets
        else:
            oid = self.new(node, f, holds, f"an {f.relation}-accessible world refutes")
            chosen = [next(t for t in targets if not self.holds(t, f.arg))]
        for target in chosen:
            self.edge(oid, self.explain(target, f.arg), f.relation)
        return oid

    def next_step(self, node: ProductNode, f: Temporal, holds: bool) -> int:
        successors = temporal_successors(self.structure, node)
        universal = (f.op == "AX") == holds
        if universal:
            chosen = successors
            rule = "every successor"
        else:
            want = holds  # EX true: one a-successor; AX false: one ¬a-successor
            chosen = [next((d, s) for d, s in successors if self.holds(s, f.arg) == want)]
            rule = "one successor"
        oid = self.new(node, f, holds, rule)
        for d, succ in chosen:
            self.edge(oid, self.explain(succ, f.arg), "T", d + 1)
        return oid

    def path_formula(self, node: ProductNode, f: Formula, holds: bool) -> int:
        kind, a, b = _until_view(f)
        # existential evidence exists for: E-until/EF true, EG true, A-until/AF/AG false
        if kind == "EU" and holds:
            return self.path(node, f, holds, side=(a, True), goals=[(b, True)])
        if kind == "AG" and not holds:
            return self.path(node, f, holds, side=None, goals=[(a, False)])
        if kind == "EG" and holds:
            return self.lasso(node, f, holds, side=(a, True), around=a)
        if kind == "AU" and not holds:
            escape = Binary("&", Not(a), Not(b))
            if self.holds(node, Until("E", Not(b), escape)):
                return self.path(node, f, holds, side=(b, False),
                                 goals=[(a, False), (b, False)])
            return self.lasso(node, f, holds, side=(b, False), around=Not(b))
        return self.new(node, f, holds, "invariant")

    def path(self, node: ProductNode, f: Formula, holds: bool,
             side: tuple[Formula, bool] | None, goals: list[tuple[Formula, bool]]) -> int:
        """A shortest path through side-nodes to a node meeting every goal."""
        side_set = (self.checker.reach if side is None or side[0] == TRUE
                    else self.truth_set(*side))
        goal_set = self.checker.reach
        for formula, truth in goals:
            goal_set &= self.truth_set(formula, truth)
        rings = self.checker.eu_rings(side_set, goal_set)
        current = node
        previous: int | None = None
        first: int | None = None
        direction: int | None = None
        while True:
            key = (current, f, holds)
            existing = self.memo.get(key)
            if existing is not None:
                if previous is not None:
                    self.edge(previous, existing, "T", direction)
                return first if first is not None else existing
            level = next(i for i, ring in enumerate(rings) if self.model.contains(current, ring))
            oid = self.new(current, f, holds, "path: goal reached" if level == 0 else "path")
            if previous is not None:
                self.edge(previous, oid, "T", direction)
            if first is None:
                first = oid
            if level == 0:
                for formula, _ in goals:
                    self.edge(oid, self.explain(current, formula))
                return first
            if side is not None and side[0] != TRUE:
                self.edge(oid, self.explain(current, side[0]))
            direction, current = next((d + 1, s) for d, s in
                                      temporal_successors(self.structure, current)
                                      if self.model.contains(s, rings[level - 1]))
            previous = oid

    def lasso(self, node: ProductNode, f: Formula, holds: bool, side: tuple[Formula, bool],
              around: Formula) -> int:
        """A path that stays in [[EG around]] and closes a loop (``back`` edge)."""
        inside = self.checker.sat(Temporal("EG", around))
        on_path: dict[ProductNode, int] = {}
        current = node
        previous: int | None = None
        first: int | None = None
        direction = None
        while True:
            oid = self.new(current, f, holds, "lasso")
            on_path[current] = oid
            if previous is not None:
                self.edge(previous, oid, "T", direction)
            if first is None:
                first = oid
            self.edge(oid, self.explain(current, side[0]))
            successors = [(d + 1, s) for d, s in temporal_successors(self.structure, current)
                          if self.model.contains(s, inside)]
            closing = next(((d, s) for d, s in successors if s in on_path), None)
            if closing is not None:
                self.edge(oid, on_path[closing[1]], "T", closing[0], back=True)
                return first
            fresh = next(((d, s) for d, s in successors
                          if (s, f, holds) not in self.memo), None)
            if fresh is None:  # every way on joins an existing lasso of the same obligation
                d, s = successors[0]
                self.edge(oid, self.memo[(s, f, holds)], "T", d)
                return first
            direction, current = fresh
            previous = oid


def _until_view(f: Formula) -> tuple[str, Formula, Formula]:
    """Classify a path formula as EU/AU (with its operands), EG or AG (operand in ``a``)."""
    if isinstance(f, Until):
        return ("EU" if f.quantifier == "E" else "AU"), f.left, f.right
    assert isinstance(f, Temporal)
    if f.op == "EF":
        return "EU", TRUE, f.arg
    if f.op == "AF":
        return "AU", TRUE, f.arg
    return f.op, f.arg, f.arg  # EG, AG


def explain(checker: Checker, formula: Formula, node: ProductNode | None = None) -> Certificate:
    """The certificate of ``formula``'s truth value at ``node`` (default u₀)."""
    builder = _Builder(checker)
    builder.cert.root = builder.explain(node or checker.initial_node, formula)
    return builder.cert
