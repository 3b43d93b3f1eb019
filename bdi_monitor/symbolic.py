"""The symbolic encoding of a structure's product graph on ``dd.cudd`` (notes §5.1).

Variables, top to bottom: the current world ``w``, the modal target world ``wt``, the direction
``d``, then every *field* (one per world's state, one per distinct automaton) with its next-state
copy interleaved, bit by bit, most significant bits of all fields first (worlds that move in
lockstep then give linear-size equalities). Identical automata (same transitions, e.g. I = B)
share one field. A ⊥ code is added to a world's field only when the world is partial.

The temporal relation stays partitioned (enabledness, one part per field) and the preimage is a
chain of ``and_exists`` with early quantification. Modal preimages rename and quantify only the
world bits. Every relation is built from explicit tables through a sorted-code trie, so building
costs one ``ite`` per trie node rather than one BDD operation per table row.
"""

from __future__ import annotations

import warnings
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from dd import cudd

from bdi_monitor.product import ProductNode, initial_node
from bdi_monitor.structure import RELATIONS, Structure


def bit_width(size: int) -> int:
    """Bits needed to code ``size`` distinct values."""
    return (size - 1).bit_length() if size > 1 else 0


@dataclass
class Field:
    """A group of state bits: a world's state or an automaton's state (MSB first)."""

    name: str
    size: int  # number of codes in use
    cur: list[str]
    nxt: list[str]
    bottom: int | None = None  # the ⊥ code, for partial worlds

    def bits_of(self, value: int) -> list[bool]:
        width = len(self.cur)
        return [bool((value >> (width - 1 - r)) & 1) for r in range(width)]


class SymbolicModel:
    """BDD encoding of G_M with preimage, image and reachability operations."""

    def __init__(self, structure: Structure, bdd: cudd.BDD | None = None,
                 reordering: bool = False) -> None:
        self.structure = structure
        self.bdd = bdd if bdd is not None else cudd.BDD()
        self.bdd.configure(reordering=False)
        m, k = len(structure.worlds), structure.k
        self.world_bits = [f"w{b}" for b in range(bit_width(m))]
        self.target_bits = [f"wt{b}" for b in range(bit_width(m))]
        self.dir_bits = [f"d{b}" for b in range(bit_width(k))]
        # fields: one per world, one per distinct automaton
        self.world_fields: list[Field] = []
        for j, world in enumerate(structure.worlds):
            partial = not world.is_total()
            size = len(world.states) + (1 if partial else 0)
            width = bit_width(size)
            self.world_fields.append(Field(f"s{j}", size, [f"s{j}_{b}" for b in range(width)],
                                           [f"s{j}_{b}n" for b in range(width)],
                                           len(world.states) if partial else None))
        self.tracker_of: dict[str, int] = {}
        self.trackers: list[tuple[Field, str]] = []  # (field, representative relation)
        for relation in RELATIONS:
            automaton = structure.automata[relation]
            for t, (_, rep) in enumerate(self.trackers):
                if structure.automata[rep].same_transitions(automaton):
                    self.tracker_of[relation] = t
                    break
            else:
                t = len(self.trackers)
                width = bit_width(len(automaton.states))
                self.trackers.append((Field(f"q{t}", len(automaton.states),
                                            [f"q{t}_{b}" for b in range(width)],
                                            [f"q{t}_{b}n" for b in range(width)]), relation))
                self.tracker_of[relation] = t
        self.fields = self.world_fields + [f for f, _ in self.trackers]
        self._declare()
        self.cur_vars = self.world_bits + [v for f in self.fields for v in f.cur]
        self.cur_to_next = {c: n for f in self.fields for c, n in zip(f.cur, f.nxt)}
        self.next_to_cur = {n: c for c, n in self.cur_to_next.items()}
        self.w_to_target = dict(zip(self.world_bits, self.target_bits))
        self.target_to_w = dict(zip(self.target_bits, self.world_bits))
        self._build_relations()
        self._reach: cudd.Function | None = None
        self._labels: dict[str, cudd.Function] = {}
        if reordering:
            self.bdd.configure(reordering=True)

    # -- construction ---------------------------------------------------------------------------
    def _declare(self) -> None:
        order = [*self.world_bits, *self.target_bits, *self.dir_bits]
        width = max((len(f.cur) for f in self.fields), default=0)
        for row in range(width):
            for f in self.fields:
                offset = len(f.cur) - width + row  # MSB-aligned
                if offset >= 0:
                    order.extend((f.cur[offset], f.nxt[offset]))
        self.bdd.declare(*order)
        self.var_count = len(order)

    def _table(self, groups: Sequence[tuple[list[str], Sequence[int]]]) -> cudd.Function:
        """The set of tuples whose i-th component is coded on ``groups[i][0]`` (MSB first) and
        ranges over the rows ``zip(*[g[1] for g in groups])``."""
        levels = {v: self.bdd.level_of_var(v) for names, _ in groups for v in names}
        ordered = sorted(levels, key=levels.get)
        n = len(ordered)
        position = {v: n - 1 - i for i, v in enumerate(ordered)}
        spreads = []
        for names, values in groups:
            width = len(names)
            shifts = [position[v] for v in names]
            spread = {}
            for value in set(values):
                code = 0
                for r, shift in enumerate(shifts):
                    if (value >> (width - 1 - r)) & 1:
                        code |= 1 << shift
                spread[value] = code
            spreads.append(list(map(spread.__getitem__, values)))
        codes = sorted(set(map(sum, zip(*spreads))))
        return self._from_codes(ordered, codes)

    def _from_codes(self, names: list[str], codes: list[int]) -> cudd.Function:
        bdd = self.bdd
        n = len(names)
        var_nodes = [bdd.var(v) for v in names]
        false, true = bdd.false, bdd.true

        negated = [~v for v in var_nodes]

        def single(code: int, depth: int) -> cudd.Function:
            u = true
            for level in range(n - 1, depth - 1, -1):
                u = (var_nodes[level] if (code >> (n - 1 - level)) & 1 else negated[level]) & u
            return u

        def build(lo: int, hi: int, depth: int) -> cudd.Function:
            if lo == hi:
                return false
            if depth == n or hi - lo == 1 << (n - depth):
                return true
            if hi - lo == 1:
                return single(codes[lo], depth)
            bit = 1 << (n - 1 - depth)
            base = codes[lo] & ~((bit << 1) - 1)
            mid = bisect_left(codes, base | bit, lo, hi)
            low = build(lo, mid, depth + 1)
            high = build(mid, hi, depth + 1)
            return low if low == high else bdd.ite(var_nodes[depth], high, low)

        return build(0, len(codes), 0)

    def _build_relations(self) -> None:
        s = self.structure
        k = s.k
        dirs = range(k)
        bdd = self.bdd
        self.parts: list[tuple[cudd.Function, list[str], list[str]]] = []
        enabled = bdd.false
        present = bdd.false
        for j, (world, f) in enumerate(zip(s.worlds, self.world_fields)):
            rows_s, rows_d, rows_t = [], [], []
            def_s, def_d = [], []
            for state, row in enumerate(world.delta):
                for d in dirs:
                    t = row[d]
                    if t is None:
                        t = f.bottom
                    else:
                        def_s.append(state)
                        def_d.append(d)
                    rows_s.append(state)
                    rows_d.append(d)
                    rows_t.append(t)
            if f.bottom is not None:
                rows_s.extend([f.bottom] * k)
                rows_d.extend(dirs)
                rows_t.extend([f.bottom] * k)
            delta = self._table([(self.dir_bits, rows_d), (f.cur, rows_s), (f.nxt, rows_t)])
            self.parts.append((delta, f.cur, f.nxt))
            is_j = self.world_cube(j)
            enabled |= is_j & self._table([(self.dir_bits, def_d), (f.cur, def_s)])
            here = self._rename(self.w_to_target, is_j)
            if f.bottom is not None:
                here &= ~self._table([(f.cur, [f.bottom])])
            present |= here
        for f, rep in self.trackers:
            automaton = s.automata[rep]
            rows_q, rows_d, rows_t = [], [], []
            for q, row in enumerate(automaton.tau):
                for d in dirs:
                    rows_q.append(q)
                    rows_d.append(d)
                    rows_t.append(row[d])
            tau = self._table([(self.dir_bits, rows_d), (f.cur, rows_q), (f.nxt, rows_t)])
            self.parts.append((tau, f.cur, f.nxt))
        self.enabled = enabled
        width = len(self.dir_bits)
        #: enabledness restricted to one direction each (for chained images and preimages)
        self.enabled_by_direction = [
            enabled & bdd.cube({v: bool((d >> (width - 1 - r)) & 1)
                                for r, v in enumerate(self.dir_bits)}) for d in dirs]
        self.present = present
        self.modal: dict[str, cudd.Function] = {}
        for relation in RELATIONS:
            f = self.trackers[self.tracker_of[relation]][0]
            automaton = s.automata[relation]
            rows_q, rows_i, rows_j = [], [], []
            for q, pairs in enumerate(automaton.out):
                for i, j in pairs:
                    rows_q.append(q)
                    rows_i.append(i)
                    rows_j.append(j)
            out = (self._table([(f.cur, rows_q), (self.world_bits, rows_i),
                                (self.target_bits, rows_j)]) if rows_q else bdd.false)
            self.modal[relation] = out & present
        self.initial = self.node_cube(initial_node(s))

    # -- coding of nodes ------------------------------------------------------------------------
    def world_cube(self, world: int) -> cudd.Function:
        width = len(self.world_bits)
        return self.bdd.cube({v: bool((world >> (width - 1 - r)) & 1)
                              for r, v in enumerate(self.world_bits)})

    def node_assignment(self, node: ProductNode) -> dict[str, bool] | None:
        """The current-state variable values of ``node`` (None if it cannot be coded)."""
        width = len(self.world_bits)
        values = {v: bool((node.world >> (width - 1 - r)) & 1)
                  for r, v in enumerate(self.world_bits)}
        for f, state in zip(self.world_fields, node.states):
            if state is None:
                if f.bottom is None:
                    return None
                state = f.bottom
            values.update(zip(f.cur, f.bits_of(state)))
        tracked: dict[int, int] = {}
        for relation, q in zip(RELATIONS, node.automata):
            t = self.tracker_of[relation]
            if tracked.setdefault(t, q) != q:
                return None
        for t, q in tracked.items():
            f = self.trackers[t][0]
            values.update(zip(f.cur, f.bits_of(q)))
        return values

    def node_cube(self, node: ProductNode) -> cudd.Function:
        values = self.node_assignment(node)
        return self.bdd.false if values is None else self.bdd.cube(values)

    def contains(self, node: ProductNode, u: cudd.Function) -> bool:
        """Is ``node`` in the set ``u``? (one cofactor walk, microseconds)"""
        values = self.node_assignment(node)
        return values is not None and (self.bdd.let(values, u) if values else u) == self.bdd.true

    def decode(self, values: dict[str, bool]) -> ProductNode:
        """The product node of a (complete) current-state assignment."""
        def number(names: list[str]) -> int:
            result = 0
            for v in names:
                result = (result << 1) | int(values[v])
            return result
        world = number(self.world_bits)
        states = []
        for f in self.world_fields:
            value = number(f.cur)
            states.append(None if value == f.bottom else value)
        automata = tuple(number(self.trackers[self.tracker_of[r]][0].cur) for r in RELATIONS)
        return ProductNode(world, tuple(states), automata)  # type: ignore[arg-type]

    def nodes(self, u: cudd.Function, limit: int | None = None) -> list[ProductNode]:
        """Enumerate the product nodes in ``u`` (at most ``limit``)."""
        result = []
        for values in self.bdd.pick_iter(u, care_vars=self.cur_vars):
            result.append(self.decode(values))
            if limit is not None and len(result) >= limit:
                break
        return result

    def count(self, u: cudd.Function) -> int:
        """Number of product nodes in ``u``."""
        return int(self.bdd.count(u, nvars=len(self.cur_vars))) if u != self.bdd.false else 0

    # -- relations ------------------------------------------------------------------------------
    def label(self, proposition: str) -> cudd.Function:
        """Nodes whose current world's state carries ``proposition``."""
        cached = self._labels.get(proposition)
        if cached is not None:
            return cached
        result = self.bdd.false
        for j, (world, f) in enumerate(zip(self.structure.worlds, self.world_fields)):
            states = [s for s, ls in enumerate(world.labels) if proposition in ls]
            if states:
                result |= self.world_cube(j) & self._table([(f.cur, states)])
        self._labels[proposition] = result
        return result

    def _rename(self, mapping: dict[str, str], u: cudd.Function) -> cudd.Function:
        return self.bdd.let(mapping, u) if mapping else u

    def pre(self, u: cudd.Function) -> cudd.Function:
        """EX: nodes with a temporal successor in ``u``."""
        x = self._rename(self.cur_to_next, u)
        for part, _, nxt in self.parts:
            x = cudd.and_exists(x, part, nxt)
        return cudd.and_exists(x, self.enabled, self.dir_bits)

    def pre_along(self, direction: int, u: cudd.Function) -> cudd.Function:
        """Nodes whose successor along ``direction`` (0-based) is in ``u``."""
        x = self._rename(self.cur_to_next, u)
        for part, _, nxt in self.parts:
            x = cudd.and_exists(x, part, nxt)
        return cudd.and_exists(x, self.enabled_by_direction[direction], self.dir_bits)

    def image(self, u: cudd.Function, enabled: cudd.Function | None = None) -> cudd.Function:
        """Temporal successors of the nodes in ``u`` (along the directions of ``enabled``)."""
        x = u & (self.enabled if enabled is None else enabled)
        for part, cur, _ in self.parts:
            x = cudd.and_exists(x, part, cur)
        x = self.bdd.exist(self.dir_bits, x)
        return self._rename(self.next_to_cur, x)

    def modal_pre(self, relation: str, u: cudd.Function) -> cudd.Function:
        """⟨X⟩: nodes with an X-successor in ``u``."""
        if not self.world_bits:
            return cudd.and_exists(u, self.modal[relation], [])
        return cudd.and_exists(self._rename(self.w_to_target, u), self.modal[relation],
                               self.target_bits)

    def modal_image(self, relation: str, u: cudd.Function) -> cudd.Function:
        """X-successors of the nodes in ``u``."""
        if not self.world_bits:
            return u & self.modal[relation]
        x = cudd.and_exists(u, self.modal[relation], self.world_bits)
        return self._rename(self.target_to_w, x)

    @property
    def reachable(self) -> cudd.Function:
        """R: nodes reachable from u₀ over temporal and modal edges (frontier search, chaining
        the directions: each direction's image is taken from the set grown by the previous)."""
        if self._reach is None:
            reach = frontier = self.initial
            while frontier != self.bdd.false:
                new = frontier
                for enabled in self.enabled_by_direction:
                    new |= self.image(new, enabled)
                for relation in RELATIONS:
                    new |= self.modal_image(relation, new)
                frontier = new & ~reach
                reach |= frontier
            self._reach = reach
        return self._reach

    def peak_nodes(self) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return int(self.bdd.statistics()["peak_live_nodes"])

