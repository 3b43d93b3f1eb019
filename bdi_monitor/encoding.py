"""Coding a structure's product nodes in BDD variables and building its relations.

An :class:`Encoding` names the variables of the product graph G_M and builds its relations on a
``dd.cudd`` manager: the current world ``w`` and the modal target ``wt`` (same width), the
direction ``d``, and state *fields* whose every current bit has a next-state copy. It provides

- the temporal relation as conjuncts over (current bits, ``d``, next bits), one per field (or per
  variable), which :class:`~bdi_monitor.symbolic.SymbolicModel` clusters and quantifies early;
- enabledness over (``w``, current bits, ``d``): the current world's state has a ``d``-child;
- presence over (``wt``, current bits): world ``wt``'s tree contains the time point;
- the B/D/I outputs over (current bits, ``w``, ``wt``) and the label of every proposition;
- the coding of explicit :class:`~bdi_monitor.product.ProductNode` values and back.

:class:`TableEncoding` codes any structure from its explicit tables: one field per world and per
distinct automaton, every relation built from its rows through a sorted-code trie (one ``ite``
per trie node). Generators that know their rules (the grid,
:mod:`bdi_monitor.models.grid_rules`) provide an encoding that builds the same relations from
per-variable update formulas, without enumerating states.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from bdi_monitor.product import ProductNode
from bdi_monitor.structure import RELATIONS, Structure
from bdi_supervisor.bdd import cudd


def bit_width(size: int) -> int:
    """Bits needed to code ``size`` distinct values."""
    return (size - 1).bit_length() if size > 1 else 0


def code_bits(value: int, width: int) -> list[bool]:
    """The bits of ``value`` on ``width`` bits, most significant first."""
    return [bool((value >> (width - 1 - r)) & 1) for r in range(width)]


def cube(bdd: cudd.BDD, names: Sequence[str], value: int) -> cudd.Function:
    """The conjunction saying that the variables ``names`` (MSB first) code ``value``."""
    return bdd.cube(dict(zip(names, code_bits(value, len(names))))) if names else bdd.true


def equals(bdd: cudd.BDD, functions: Sequence[cudd.Function], value: int) -> cudd.Function:
    """The bit-vector ``functions`` (MSB first) equals the constant ``value``."""
    result = bdd.true
    for f, bit in zip(functions, code_bits(value, len(functions))):
        result &= f if bit else ~f
    return result


def number(values: dict[str, bool], names: Sequence[str]) -> int:
    """The value coded by ``names`` (MSB first) in an assignment."""
    result = 0
    for v in names:
        result = (result << 1) | int(values[v])
    return result


def from_rows(bdd: cudd.BDD, groups: Sequence[tuple[Sequence[str], Sequence[int]]]
              ) -> cudd.Function:
    """The set of tuples whose i-th component is coded on ``groups[i][0]`` (MSB first) and
    ranges over the rows ``zip(*[g[1] for g in groups])``: a trie over the sorted codes, one
    ``ite`` per trie node."""
    levels = {v: bdd.level_of_var(v) for names, _ in groups for v in names}
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
    return _from_codes(bdd, ordered, codes)


def _from_codes(bdd: cudd.BDD, names: list[str], codes: list[int]) -> cudd.Function:
    n = len(names)
    var_nodes = [bdd.var(v) for v in names]
    negated = [~v for v in var_nodes]
    false, true = bdd.false, bdd.true

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


@dataclass
class Field:
    """A group of state bits with their next-state copies (MSB first)."""

    name: str
    size: int  # number of codes in use
    cur: list[str]
    nxt: list[str]
    bottom: int | None = None  # the ⊥ code, for partial worlds

    @classmethod
    def make(cls, name: str, size: int, bottom: int | None = None) -> Field:
        width = bit_width(size)
        return cls(name, size, [f"{name}_{b}" for b in range(width)],
                   [f"{name}_{b}n" for b in range(width)], bottom)

    def bits_of(self, value: int) -> list[bool]:
        return code_bits(value, len(self.cur))


def interleaved(fields: Sequence[Field]) -> list[str]:
    """The fields' bits row by row, most significant bits of all fields first (MSB-aligned),
    every current bit followed by its next copy."""
    order: list[str] = []
    width = max((len(f.cur) for f in fields), default=0)
    for row in range(width):
        for f in fields:
            offset = len(f.cur) - width + row
            if offset >= 0:
                order.extend((f.cur[offset], f.nxt[offset]))
    return order


class Encoding(ABC):
    """The variables of a structure's product graph and the builders of its relations."""

    #: whether long fixpoints should switch to per-direction closures
    #: (:mod:`bdi_monitor.symbolic`): worth it where a direction repeats over long straight runs
    #: of few bits (the grid's shared cell), not on one field per world from tables
    closures = False

    def __init__(self, structure: Structure) -> None:
        self.structure = structure
        m = len(structure.worlds)
        self.world_bits = [f"w{b}" for b in range(bit_width(m))]
        self.target_bits = [f"wt{b}" for b in range(bit_width(m))]
        self.dir_bits = [f"d{b}" for b in range(bit_width(structure.k))]
        self.fields: list[Field] = []

    # -- variables ------------------------------------------------------------------------------
    @abstractmethod
    def order(self) -> list[str]:
        """Every variable, top to bottom."""

    @property
    def state_bits(self) -> list[str]:
        return [v for f in self.fields for v in f.cur]

    def world_cube(self, bdd: cudd.BDD, world: int) -> cudd.Function:
        return cube(bdd, self.world_bits, world)

    def direction_values(self, direction: int) -> dict[str, bool]:
        return dict(zip(self.dir_bits, code_bits(direction, len(self.dir_bits))))

    # -- relations ------------------------------------------------------------------------------
    @abstractmethod
    def transition(self, bdd: cudd.BDD) -> list[cudd.Function]:
        """Conjuncts of the temporal relation over (current bits, d, next bits); together they
        give every field's next value for every valid direction."""

    @abstractmethod
    def enabled(self, bdd: cudd.BDD) -> cudd.Function:
        """(w, current bits, d): the current world's state has a d-child."""

    @abstractmethod
    def present(self, bdd: cudd.BDD) -> cudd.Function:
        """(wt, current bits): world wt's tree contains the time point."""

    @abstractmethod
    def output(self, bdd: cudd.BDD, relation: str) -> cudd.Function:
        """(current bits, w, wt): (w, wt) is in the output of the ``relation`` automaton."""

    @abstractmethod
    def label(self, bdd: cudd.BDD, proposition: str) -> cudd.Function:
        """(w, current bits): the current world's state carries ``proposition``."""

    # -- explicit nodes -------------------------------------------------------------------------
    @abstractmethod
    def assignment(self, node: ProductNode) -> dict[str, bool] | None:
        """The current-state variable values of ``node`` (None if it cannot be coded)."""

    @abstractmethod
    def decode(self, values: dict[str, bool]) -> ProductNode:
        """The product node of a complete current-state assignment."""


class TableEncoding(Encoding):
    """Any structure, from its explicit tables.

    Variables, top to bottom: ``w``, ``wt``, ``d``, then one field per world's state and per
    distinct automaton (identical automata, e.g. I = B, share a field), interleaved bit by bit
    with every next copy after its current bit. A ⊥ code is added to a partial world's field.
    """

    def __init__(self, structure: Structure) -> None:
        super().__init__(structure)
        self.world_fields: list[Field] = []
        for j, world in enumerate(structure.worlds):
            partial = not world.is_total()
            size = len(world.states) + (1 if partial else 0)
            self.world_fields.append(Field.make(f"s{j}", size,
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
                self.tracker_of[relation] = len(self.trackers)
                self.trackers.append((Field.make(f"q{len(self.trackers)}",
                                                 len(automaton.states)), relation))
        self.fields = self.world_fields + [f for f, _ in self.trackers]

    def order(self) -> list[str]:
        return [*self.world_bits, *self.target_bits, *self.dir_bits, *interleaved(self.fields)]

    def transition(self, bdd: cudd.BDD) -> list[cudd.Function]:
        s = self.structure
        dirs = range(s.k)
        parts = []
        for world, f in zip(s.worlds, self.world_fields):
            rows_s, rows_d, rows_t = [], [], []
            for state, row in enumerate(world.delta):
                for d in dirs:
                    t = row[d]
                    rows_s.append(state)
                    rows_d.append(d)
                    rows_t.append(f.bottom if t is None else t)
            if f.bottom is not None:
                rows_s.extend([f.bottom] * s.k)
                rows_d.extend(dirs)
                rows_t.extend([f.bottom] * s.k)
            parts.append(from_rows(bdd, [(self.dir_bits, rows_d), (f.cur, rows_s),
                                         (f.nxt, rows_t)]))
        for f, rep in self.trackers:
            automaton = s.automata[rep]
            rows_q, rows_d, rows_t = [], [], []
            for q, row in enumerate(automaton.tau):
                for d in dirs:
                    rows_q.append(q)
                    rows_d.append(d)
                    rows_t.append(row[d])
            parts.append(from_rows(bdd, [(self.dir_bits, rows_d), (f.cur, rows_q),
                                         (f.nxt, rows_t)]))
        return parts

    def enabled(self, bdd: cudd.BDD) -> cudd.Function:
        result = bdd.false
        for j, (world, f) in enumerate(zip(self.structure.worlds, self.world_fields)):
            rows_s, rows_d = [], []
            for state, row in enumerate(world.delta):
                for d, t in enumerate(row):
                    if t is not None:
                        rows_s.append(state)
                        rows_d.append(d)
            result |= self.world_cube(bdd, j) & from_rows(bdd, [(self.dir_bits, rows_d),
                                                               (f.cur, rows_s)])
        return result

    def present(self, bdd: cudd.BDD) -> cudd.Function:
        result = bdd.false
        for j, f in enumerate(self.world_fields):
            here = cube(bdd, self.target_bits, j)
            if f.bottom is not None:
                here &= ~cube(bdd, f.cur, f.bottom)
            result |= here
        return result

    def output(self, bdd: cudd.BDD, relation: str) -> cudd.Function:
        f = self.trackers[self.tracker_of[relation]][0]
        rows_q, rows_i, rows_j = [], [], []
        for q, pairs in enumerate(self.structure.automata[relation].out):
            for i, j in pairs:
                rows_q.append(q)
                rows_i.append(i)
                rows_j.append(j)
        if not rows_q:
            return bdd.false
        return from_rows(bdd, [(f.cur, rows_q), (self.world_bits, rows_i),
                               (self.target_bits, rows_j)])

    def label(self, bdd: cudd.BDD, proposition: str) -> cudd.Function:
        result = bdd.false
        for j, (world, f) in enumerate(zip(self.structure.worlds, self.world_fields)):
            states = [s for s, ls in enumerate(world.labels) if proposition in ls]
            if states:
                result |= self.world_cube(bdd, j) & from_rows(bdd, [(f.cur, states)])
        return result

    def assignment(self, node: ProductNode) -> dict[str, bool] | None:
        values = dict(zip(self.world_bits, code_bits(node.world, len(self.world_bits))))
        for f, state in zip(self.world_fields, node.states):
            if state is None:
                if f.bottom is None:
                    return None
                state = f.bottom
            values.update(zip(f.cur, f.bits_of(state)))
        tracked: dict[int, int] = {}
        for relation, q in zip(RELATIONS, node.automata):
            if tracked.setdefault(self.tracker_of[relation], q) != q:
                return None
        for t, q in tracked.items():
            f = self.trackers[t][0]
            values.update(zip(f.cur, f.bits_of(q)))
        return values

    def decode(self, values: dict[str, bool]) -> ProductNode:
        world = number(values, self.world_bits)
        states = []
        for f in self.world_fields:
            value = number(values, f.cur)
            states.append(None if value == f.bottom else value)
        automata = tuple(number(values, self.trackers[self.tracker_of[r]][0].cur)
                         for r in RELATIONS)
        return ProductNode(world, tuple(states), automata)  # type: ignore[arg-type]


def encoding_of(structure: Structure) -> Encoding:
    """The structure's own encoding (a generator's rules) or the table encoding."""
    if structure.encoder is not None:
        return structure.encoder(structure)
    return TableEncoding(structure)
