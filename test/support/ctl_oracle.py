"""Test oracle for the CTL-BDI checker: an explicit product and naive set-based labeling.

Written independently of bdi_monitor.product/symbolic/checker: it walks the structure's tables
directly, keeps every set as a Python set of node tuples and iterates the fixpoints naively.
Also replays certificates (counterexample DAGs and witnesses) against the explicit semantics.
"""

from __future__ import annotations

from bdi_monitor.logic.ast import Atom, Binary, Const, Formula, Modal, Not, Temporal, Until
from bdi_monitor.structure import Structure

REL = ("B", "D", "I")

# a node is (world, states tuple with None = ⊥, (qB, qD, qI))


class Explicit:
    def __init__(self, structure: Structure) -> None:
        self.s = structure
        start = (structure.actual, tuple(w.initial for w in structure.worlds),
                 tuple(structure.automata[r].initial for r in REL))
        self.start = start
        self.nodes = {start}
        todo = [start]
        self._succ: dict = {}
        self._acc: dict = {}
        while todo:
            u = todo.pop()
            succ = self._temporal(u)
            self._succ[u] = succ
            acc = {r: self._modal(u, r) for r in REL}
            self._acc[u] = acc
            for v in [v for _, v in succ] + [v for r in REL for v in acc[r]]:
                if v not in self.nodes:
                    self.nodes.add(v)
                    todo.append(v)
        self.memo: dict[Formula, frozenset] = {}

    def _temporal(self, u):
        world, states, autos = u
        out = []
        for d in range(self.s.k):
            if self.s.worlds[world].delta[states[world]][d] is None:
                continue
            nstates = tuple(None if x is None else self.s.worlds[j].delta[x][d]
                            for j, x in enumerate(states))
            nautos = tuple(self.s.automata[r].tau[q][d] for r, q in zip(REL, autos))
            out.append((d, (world, nstates, nautos)))
        return out

    def _modal(self, u, r):
        world, states, autos = u
        pairs = self.s.automata[r].out[autos[REL.index(r)]]
        return [(j, states, autos) for j in range(len(self.s.worlds))
                if (world, j) in pairs and states[j] is not None]

    def succ(self, u):
        return self._succ[u]

    def access(self, u, r):
        return self._acc[u][r]

    def sat(self, f: Formula) -> frozenset:
        if f not in self.memo:
            self.memo[f] = frozenset(self._sat(f))
        return self.memo[f]

    def holds(self, f: Formula, u=None) -> bool:
        return (u or self.start) in self.sat(f)

    def _pre_e(self, target):
        return {u for u in self.nodes if any(v in target for _, v in self._succ[u])}

    def _pre_a(self, target):
        return {u for u in self.nodes if all(v in target for _, v in self._succ[u])}

    def _sat(self, f: Formula) -> set:
        N = self.nodes
        if isinstance(f, Const):
            return set(N) if f.value else set()
        if isinstance(f, Atom):
            return {u for u in N if f.name in self.s.worlds[u[0]].labels[u[1][u[0]]]}
        if isinstance(f, Not):
            return N - self.sat(f.arg)
        if isinstance(f, Binary):
            a, b = self.sat(f.left), self.sat(f.right)
            return {"&": lambda: a & b, "|": lambda: a | b, "->": lambda: (N - a) | b,
                    "<->": lambda: (a & b) | ((N - a) & (N - b))}[f.op]()
        if isinstance(f, Modal):
            a = self.sat(f.arg)
            return {u for u in N if all(v in a for v in self._acc[u][f.relation])}
        if isinstance(f, Temporal):
            a = self.sat(f.arg)
            if f.op == "EX":
                return self._pre_e(a)
            if f.op == "AX":
                return self._pre_a(a)
            if f.op in ("EF", "AF"):
                return self._until(f.op[0], set(N), a)
            if f.op == "EG":
                return self._greatest(a, self._pre_e)
            if f.op == "AG":  # gfp νZ. a ∧ AX Z, computed directly (not via EF)
                return self._greatest(a, self._pre_a)
        if isinstance(f, Until):
            return self._until(f.quantifier, self.sat(f.left), self.sat(f.right))
        raise TypeError(f)

    @staticmethod
    def _greatest(a: set, pre) -> set:
        """νZ. a ∧ pre(Z), by iteration from ``a``."""
        z = set(a)
        while True:
            new = z & pre(z)
            if new == z:
                return z
            z = new

    def _until(self, q, a, b):
        z = set(b)
        pre = self._pre_e if q == "E" else self._pre_a
        while True:
            new = z | (a & pre(z))
            if new == z:
                return z
            z = new

    def reachable_from(self, u, inside):
        """Nodes reachable from u by temporal edges through nodes of ``inside`` (u included)."""
        seen = {u}
        todo = [u]
        while todo:
            x = todo.pop()
            if x not in inside:
                continue
            for _, v in self._succ[x]:
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        return seen


def as_tuple(node):
    return (node.world, tuple(node.states), tuple(node.automata))


def replay(certificate, oracle: Explicit) -> None:
    """Assert that a certificate is sound evidence on the explicit semantics: every obligation
    has the claimed truth, every edge exists, every obligation is locally justified by its
    children, paths end at goals and lassos close."""
    obs = certificate.obligations
    children: dict[int, list] = {o.id: [] for o in obs}
    for e in certificate.edges:
        children[e.source].append(e)
        src, dst = as_tuple(obs[e.source].node), as_tuple(obs[e.target].node)
        if e.kind == "T":
            assert (e.direction - 1, dst) in oracle.succ(src), "no such temporal edge"
        elif e.kind in REL:
            assert dst in oracle.access(src, e.kind), "no such modal edge"
        else:
            assert e.kind == "L" and src == dst
    for o in obs:
        u = as_tuple(o.node)
        assert u in oracle.nodes
        assert oracle.holds(o.formula, u) == o.holds, f"wrong truth claimed for {o.formula}"
        _justified(o, children[o.id], obs, oracle)
    _paths_well_founded(certificate, children)


def _sub(children, obs, kind="L"):
    return [(obs[e.target].formula, obs[e.target].holds, e) for e in children if e.kind == kind]


def _justified(o, edges, obs, oracle) -> None:
    f, h = o.formula, o.holds
    u = as_tuple(o.node)
    logical = {(g, t) for g, t, _ in _sub(edges, obs)}
    if isinstance(f, Const | Atom) or o.rule == "invariant":
        assert not edges
        return
    if isinstance(f, Not):
        assert logical == {(f.arg, not h)}
        return
    if isinstance(f, Binary):
        vals = {g: t for g, t in logical}
        if f.op == "&":
            assert (vals == {f.left: True, f.right: True}) if h else False in vals.values()
        elif f.op == "|":
            assert True in vals.values() if h else (vals == {f.left: False, f.right: False})
        elif f.op == "->":
            assert (vals.get(f.left) is False or vals.get(f.right) is True) if h else \
                (vals.get(f.left) is True and vals.get(f.right) is False)
        else:
            assert set(vals) == {f.left, f.right} and (vals[f.left] == vals[f.right]) == h
        return
    if isinstance(f, Modal):
        targets = {as_tuple(obs[e.target].node) for e in edges if e.kind == f.relation}
        subs = {(obs[e.target].formula, obs[e.target].holds) for e in edges}
        assert subs <= {(f.arg, h)}
        if h:
            assert targets == set(oracle.access(u, f.relation))
        else:
            assert len(targets) == 1
        return
    temporal = [(obs[e.target], e) for e in edges if e.kind == "T"]
    if isinstance(f, Temporal) and f.op in ("EX", "AX"):
        assert all(t.formula == f.arg and t.holds == h for t, _ in temporal)
        if (f.op == "AX") == h:
            assert {(e.direction - 1, as_tuple(t.node)) for t, e in temporal} == \
                set(oracle.succ(u))
        else:
            assert len(temporal) == 1
        return
    # path and lasso obligations: a temporal step to the same obligation, or a goal
    steps = [(t, e) for t, e in temporal if t.formula == f and t.holds == h]
    kind, a, b = _view(f)
    if (kind, h) in (("EU", True), ("AG", False)):
        goal = {(b, True)} if kind == "EU" else {(a, False)}
        if logical >= goal and not steps:
            return
        assert len(steps) == 1
        if kind == "EU" and a != Const(True):
            assert (a, True) in logical
        return
    if (kind, h) in (("EG", True), ("AU", False)):
        side = (a, True) if kind == "EG" else (b, False)
        assert side in logical
        if kind == "AU" and not steps:
            assert (a, False) in logical and (b, False) in logical
            return
        assert len(steps) == 1
        return
    raise AssertionError(f"unjustified obligation {f} = {h} ({o.rule})")


def _view(f):
    if isinstance(f, Until):
        return ("EU" if f.quantifier == "E" else "AU"), f.left, f.right
    if f.op == "EF":
        return "EU", Const(True), f.arg
    if f.op == "AF":
        return "AU", Const(True), f.arg
    return f.op, f.arg, f.arg


def _paths_well_founded(certificate, children) -> None:
    """Existential-until evidence must end at a goal (no cycle); EG evidence must loop."""
    obs = certificate.obligations
    for o in obs:
        f = o.formula
        if o.rule == "invariant" or not isinstance(f, Temporal | Until):
            continue
        if isinstance(f, Temporal) and f.op in ("EX", "AX"):
            continue
        kind = _view(f)[0]
        seen = []
        current = o.id
        looped = False
        while True:
            seen.append(current)
            nxt = [e.target for e in children[current]
                   if e.kind == "T" and obs[e.target].formula == f]
            if not nxt:
                break
            current = nxt[0]
            if current in seen:
                looped = True
                break
        if (kind, o.holds) in (("EU", True), ("AG", False)):
            assert not looped, "until witness loops instead of reaching its goal"
        elif (kind, o.holds) == ("EG", True):
            assert looped, "EG lasso does not close"
        # AU false: either a finite escape path or a lasso; both checked locally
