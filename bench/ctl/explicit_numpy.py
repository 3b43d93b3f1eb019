"""Explicit-state peer of the CTL-BDI checker: the product graph G_M enumerated into numpy
arrays and checked by plain fixpoint iteration.

- **Tables**: the structure's explicit tables (worlds' successors and labels, the automata's
  successors and outputs) read into arrays (for the grid: its generator's rows).
- **Product**: the nodes (current world, every world's state with -1 for ⊥, the B, D, I
  automaton states) found breadth-first from u₀: the successor rows of a whole frontier are
  computed at once with array operations, and a dict from row bytes to node number
  deduplicates them. ``succ[u, d]`` is the node number of u's successor along d (-1 if the
  current world's state has no d-child); the modal edges of each relation are a pair of arrays
  (sources, targets).
- **Fixpoints**: Z ← F(Z) on boolean arrays until stable, with the symbolic checker's semantics
  (true-sets only): EX a = any of a over the successors, AX with totality, E/A until as least
  fixpoints, EG as the greatest, AG = ¬EF¬, bel/des/int = a at every accessible node.

Same product and same verdicts as :mod:`bdi_monitor.checker` (bench/ctl/run.py checks both on
every size; ``test/test_ctl_bench_peer.py`` checks it against the explicit test oracle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bdi_monitor.logic.ast import Atom, Binary, Const, Formula, Modal, Not, Temporal, Until
from bdi_monitor.structure import RELATIONS, Structure


@dataclass
class Tables:
    """A structure's tables as arrays."""

    k: int
    m: int
    actual: int
    initial: list[int]  # per world
    delta: list[np.ndarray]  # per world: (states, k), -1 = no successor
    labels: dict[str, list[np.ndarray]]  # proposition -> per world: (states,) bool
    tau: list[np.ndarray]  # per relation (B, D, I): (automaton states, k)
    access: list[np.ndarray]  # per relation: (automaton states, m, m) bool
    automaton_initial: list[int]


def read_tables(structure: Structure) -> Tables:
    """Read every row of ``structure``'s tables into arrays."""
    k, m = structure.k, len(structure.worlds)
    delta, labels = [], {p: [] for p in sorted(structure.propositions)}
    for world in structure.worlds:
        rows = [[-1 if t is None else t for t in row] for row in world.delta]
        delta.append(np.array(rows, dtype=np.int64).reshape(len(rows), k))
        state_labels = list(world.labels)
        for p, per_world in labels.items():
            per_world.append(np.array([p in ls for ls in state_labels], dtype=bool))
    tau, access = [], []
    for relation in RELATIONS:
        automaton = structure.automata[relation]
        rows = list(automaton.tau)
        tau.append(np.array(rows, dtype=np.int64).reshape(len(rows), k))
        table = np.zeros((len(rows), m, m), dtype=bool)
        by_output: dict[frozenset, list[int]] = {}
        for q, out in enumerate(automaton.out):
            by_output.setdefault(out, []).append(q)
        for out, qs in by_output.items():
            for i, j in out:
                table[qs, i, j] = True
        access.append(table)
    return Tables(k, m, structure.actual, [w.initial for w in structure.worlds], delta, labels,
                  tau, access, [structure.automata[r].initial for r in RELATIONS])


@dataclass
class Product:
    """The reachable product graph: node rows, temporal successors, modal edges."""

    rows: np.ndarray  # (nodes, 1 + m + 3): world, states, automaton states
    succ: np.ndarray  # (nodes, k)
    modal: dict[str, tuple[np.ndarray, np.ndarray]]

    def __len__(self) -> int:
        return len(self.rows)


def explore(t: Tables) -> Product:
    """Breadth-first enumeration of the nodes reachable from u₀ (node 0)."""
    m, k = t.m, t.k
    start = np.array([[t.actual, *t.initial, *t.automaton_initial]], dtype=np.int64)
    width = start.shape[1]
    void = np.dtype((np.void, 8 * width))
    index: dict[bytes, int] = {start.view(void)[0, 0].tobytes(): 0}
    blocks = [start]
    temporal: list[tuple[np.ndarray, int, np.ndarray]] = []
    modal: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {r: [] for r in RELATIONS}
    frontier, frontier_ids = start, np.zeros(1, dtype=np.int64)
    while len(frontier):
        sources, rows, kinds = [], [], []
        world = frontier[:, 0]
        states = frontier[:, 1:1 + m]
        autos = frontier[:, 1 + m:]
        current = states[np.arange(len(frontier)), world]
        for d in range(k):
            child = np.full(len(frontier), -1, dtype=np.int64)
            for j in range(m):
                here = world == j
                child[here] = t.delta[j][current[here], d]
            enabled = child >= 0
            row = frontier[enabled].copy()
            for j in range(m):
                s = row[:, 1 + j]
                row[:, 1 + j] = np.where(s >= 0, t.delta[j][np.maximum(s, 0), d], -1)
            for r in range(3):
                row[:, 1 + m + r] = t.tau[r][row[:, 1 + m + r], d]
            sources.append(frontier_ids[enabled])
            rows.append(row)
            kinds.append(("T", d, len(row)))
        for r, relation in enumerate(RELATIONS):
            for j in range(m):
                ok = t.access[r][autos[:, r], world, j] & (states[:, j] >= 0)
                row = frontier[ok].copy()
                row[:, 0] = j
                sources.append(frontier_ids[ok])
                rows.append(row)
                kinds.append((relation, j, len(row)))
        candidates = np.concatenate(rows)
        before = len(index)
        keys = np.ascontiguousarray(candidates).view(void).ravel().tolist()
        ids = np.fromiter((index.setdefault(key, len(index)) for key in keys), dtype=np.int64,
                          count=len(keys))
        fresh = ids >= before
        new_ids, first = np.unique(ids[fresh], return_index=True)
        frontier = candidates[fresh][first]
        frontier_ids = new_ids
        blocks.append(frontier)
        offset = 0
        for (kind, d, count), source in zip(kinds, sources):
            target = ids[offset:offset + count]
            offset += count
            if kind == "T":
                temporal.append((source, d, target))
            else:
                modal[kind].append((source, target))
    rows_all = np.concatenate(blocks)
    succ = np.full((len(rows_all), k), -1, dtype=np.int64)
    for source, d, target in temporal:
        succ[source, d] = target
    edges = {r: (np.concatenate([s for s, _ in pairs] or [np.zeros(0, np.int64)]),
                 np.concatenate([g for _, g in pairs] or [np.zeros(0, np.int64)]))
             for r, pairs in modal.items()}
    return Product(rows_all, succ, edges)


class ExplicitChecker:
    """Plain fixpoint iteration on the explicit product; true-sets memoized per subformula."""

    def __init__(self, tables: Tables, product: Product) -> None:
        self.t = tables
        self.p = product
        self.n = len(product)
        self._sat: dict[Formula, np.ndarray] = {}
        self.iterations = 0

    def holds(self, f: Formula) -> bool:
        return bool(self.sat(f)[0])

    def sat(self, f: Formula) -> np.ndarray:
        cached = self._sat.get(f)
        if cached is None:
            cached = self._compute(f)
            self._sat[f] = cached
        return cached

    def _label(self, proposition: str) -> np.ndarray:
        result = np.zeros(self.n, dtype=bool)
        per_world = self.t.labels.get(proposition)
        if per_world is None:
            return result
        rows = self.p.rows
        world = rows[:, 0]
        current = rows[np.arange(self.n), 1 + world]
        for j, table in enumerate(per_world):
            here = world == j
            result[here] = table[current[here]]
        return result

    def ex(self, a: np.ndarray) -> np.ndarray:
        return np.append(a, False)[self.p.succ].any(axis=1)

    def ax(self, a: np.ndarray) -> np.ndarray:
        return np.append(a, True)[self.p.succ].all(axis=1)

    def box(self, relation: str, a: np.ndarray) -> np.ndarray:
        source, target = self.p.modal[relation]
        refuted = np.zeros(self.n, dtype=bool)
        refuted[source[~a[target]]] = True
        return ~refuted

    def _least(self, a: np.ndarray, b: np.ndarray, step) -> np.ndarray:
        z = b.copy()
        while True:
            self.iterations += 1
            new = z | (a & step(z))
            if np.array_equal(new, z):
                return z
            z = new

    def eg(self, a: np.ndarray) -> np.ndarray:
        z = a.copy()
        while True:
            self.iterations += 1
            new = z & self.ex(z)
            if np.array_equal(new, z):
                return z
            z = new

    def _compute(self, f: Formula) -> np.ndarray:
        every = np.ones(self.n, dtype=bool)
        if isinstance(f, Const):
            return every if f.value else ~every
        if isinstance(f, Atom):
            return self._label(f.name)
        if isinstance(f, Not):
            return ~self.sat(f.arg)
        if isinstance(f, Binary):
            a, b = self.sat(f.left), self.sat(f.right)
            return {"&": lambda: a & b, "|": lambda: a | b, "->": lambda: ~a | b,
                    "<->": lambda: a == b}[f.op]()
        if isinstance(f, Modal):
            return self.box(f.relation, self.sat(f.arg))
        if isinstance(f, Temporal):
            a = self.sat(f.arg)
            if f.op == "EX":
                return self.ex(a)
            if f.op == "AX":
                return self.ax(a)
            if f.op == "EF":
                return self._least(every, a, self.ex)
            if f.op == "AF":
                return self._least(every, a, self.ax)
            if f.op == "EG":
                return self.eg(a)
            if f.op == "AG":
                return ~self._least(every, ~a, self.ex)
        if isinstance(f, Until):
            a, b = self.sat(f.left), self.sat(f.right)
            return self._least(a, b, self.ex if f.quantifier == "E" else self.ax)
        raise TypeError(f"not a formula: {f!r}")
