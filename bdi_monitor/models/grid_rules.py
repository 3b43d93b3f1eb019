"""The grid beer robot's symbolic encoding, built from its rules (per-variable update formulas).

The product node (current world, every world's (cell, h), the automata's (cell, flags)) is coded
on the variables the rules speak about, with the invariant that every world and the belief /
intention automaton stand on the same cell (they all start on the lounge and every direction
moves them alike; a modal edge changes only the current world):

    w, wt      current and modal target world            d    direction (1 N, 2 E, 3 S, 4 W, 5 stay)
    h_j        world j's robot holds a beer              f    flags: door seen, fridge v looked into
    x, y       the shared cell

Every variable's next value is a formula over the current bits and ``d``: a move adds or
subtracts one unless the target is outside the grid or an obstacle (the blocked-cell sets are
shifted copies of the obstacle set); ``h_j' = (br_j ∧ cell' = fridge_j) ∨ (h_j ∧ ¬(cell =
lounge ∧ cell' ≠ lounge))``; ``f' = f ∨ (cell' = door | fridge_v)``. Nothing is enumerated per
cell except the obstacles. Order, top to bottom: ``w``, ``wt``, ``d``, the flag and h bits,
then the cell bits with x and y interleaved (most significant first), every current bit followed
by its next copy; the world bits sit above the cell bits, so a set is a few cell predicates
shared by the (world, h, flags) combinations that reach them.
"""

from __future__ import annotations

from collections.abc import Sequence

from bdi_monitor.encoding import (
    Encoding,
    Field,
    code_bits,
    cube,
    equals,
    from_rows,
    number,
)
from bdi_monitor.models.beer import Facts, believed, desired, intended
from bdi_monitor.models.grid_layout import DIRECTIONS, GridLayout
from bdi_monitor.product import ProductNode
from bdi_monitor.structure import Structure
from bdi_supervisor.bdd import cudd

_NORTH, _EAST, _SOUTH, _WEST = 0, 1, 2, 3


def _increment(bdd: cudd.BDD, bits: Sequence[cudd.Function], step: int) -> list[cudd.Function]:
    """The bits of ``bits + step`` (step ±1, modulo the width), MSB first."""
    out: list[cudd.Function] = [bdd.false] * len(bits)
    carry = bdd.true
    for r in range(len(bits) - 1, -1, -1):
        out[r] = bdd.apply("xor", bits[r], carry)
        carry = (bits[r] if step > 0 else ~bits[r]) & carry
    return out


class GridEncoding(Encoding):
    """The grid's product coded on (w, wt, d, h_j, flags, x, y)."""

    closures = True  # a move repeats along a row or column: about n single steps per direction

    def __init__(self, structure: Structure, layout: GridLayout, facts: Sequence[Facts]) -> None:
        super().__init__(structure)
        self.layout = layout
        self.facts = list(facts)
        n = layout.n
        self.flag_count = 1 << (len(layout.fridges) + 1)
        self.x = Field.make("x", n)
        self.y = Field.make("y", n)
        self.h = [Field.make(f"h{j}", 2) for j in range(len(self.facts))]
        self.flags = Field.make("f", self.flag_count)
        self.fields = [self.flags, *self.h, self.x, self.y]

    def order(self) -> list[str]:
        small = [v for f in (self.flags, *self.h) for pair in zip(f.cur, f.nxt) for v in pair]
        cell = [v for r in range(len(self.x.cur))
                for v in (self.x.cur[r], self.x.nxt[r], self.y.cur[r], self.y.nxt[r])]
        return [*self.world_bits, *self.target_bits, *self.dir_bits, *small, *cell]

    # -- cells ----------------------------------------------------------------------------------
    def _cell(self, bdd: cudd.BDD, cell: tuple[int, int]) -> cudd.Function:
        return cube(bdd, self.x.cur, cell[0]) & cube(bdd, self.y.cur, cell[1])

    def _cells(self, bdd: cudd.BDD, cells: Sequence[tuple[int, int]]) -> cudd.Function:
        if not cells:
            return bdd.false
        return from_rows(bdd, [(self.x.cur, [c[0] for c in cells]),
                               (self.y.cur, [c[1] for c in cells])])

    def _blocked(self, bdd: cudd.BDD, direction: int) -> cudd.Function:
        """Cells whose move along ``direction`` is blocked (edge of the grid or obstacle)."""
        n = self.layout.n
        dx, dy = ((0, 1), (1, 0), (0, -1), (-1, 0))[direction]
        edge = {_NORTH: cube(bdd, self.y.cur, n - 1), _SOUTH: cube(bdd, self.y.cur, 0),
                _EAST: cube(bdd, self.x.cur, n - 1), _WEST: cube(bdd, self.x.cur, 0)}[direction]
        shifted = [(x - dx, y - dy) for x, y in self.layout.obstacles
                   if 0 <= x - dx < n and 0 <= y - dy < n]
        return edge | self._cells(bdd, shifted)

    def next_cell(self, bdd: cudd.BDD) -> tuple[list[cudd.Function], list[cudd.Function]]:
        """The next x and y bits as functions of (d, x, y)."""
        xs = [bdd.var(v) for v in self.x.cur]
        ys = [bdd.var(v) for v in self.y.cur]
        go = [cube(bdd, self.dir_bits, d) & ~self._blocked(bdd, d) for d in range(4)]
        east, west = _increment(bdd, xs, 1), _increment(bdd, xs, -1)
        north, south = _increment(bdd, ys, 1), _increment(bdd, ys, -1)
        nx = [bdd.ite(go[_EAST], e, bdd.ite(go[_WEST], w, x))
              for e, w, x in zip(east, west, xs)]
        ny = [bdd.ite(go[_NORTH], a, bdd.ite(go[_SOUTH], b, y))
              for a, b, y in zip(north, south, ys)]
        return nx, ny

    # -- relations ------------------------------------------------------------------------------
    def transition(self, bdd: cudd.BDD) -> list[cudd.Function]:
        nx, ny = self.next_cell(bdd)

        def after(cell: tuple[int, int]) -> cudd.Function:
            return equals(bdd, nx, cell[0]) & equals(bdd, ny, cell[1])

        lounge = self._cell(bdd, self.layout.lounge)
        leaves_lounge = lounge & ~after(self.layout.lounge)
        at_fridge = [after(c) for c in self.layout.fridges]
        parts = []
        f_next = [bdd.var(v) for v in self.flags.cur]
        width = len(f_next)
        f_next[width - 1] |= after(self.layout.door)
        for v, reached in enumerate(at_fridge):
            f_next[width - 2 - v] |= reached
        parts.append(self._assign(bdd, self.flags.nxt, f_next))
        for fact, h in zip(self.facts, self.h):
            held = bdd.var(h.cur[0]) & ~leaves_lounge
            if fact.br:
                held |= at_fridge[fact.variant]
            parts.append(self._assign(bdd, h.nxt, [held]))
        parts.append(self._assign(bdd, self.x.nxt, nx))
        parts.append(self._assign(bdd, self.y.nxt, ny))
        return parts

    @staticmethod
    def _assign(bdd: cudd.BDD, names: Sequence[str], functions: Sequence[cudd.Function]
                ) -> cudd.Function:
        result = bdd.true
        for name, f in zip(names, functions):
            result &= bdd.var(name).equiv(f)
        return result

    def enabled(self, bdd: cudd.BDD) -> cudd.Function:
        result = bdd.false
        for d in range(len(DIRECTIONS)):
            result |= cube(bdd, self.dir_bits, d)
        return result

    def present(self, bdd: cudd.BDD) -> cudd.Function:
        return bdd.true  # every world is total

    def output(self, bdd: cudd.BDD, relation: str) -> cudd.Function:
        facts, m = self.facts, len(self.facts)
        result = bdd.false
        flag_values = range(self.flag_count) if relation != "D" else [None]
        for flags in flag_values:
            if flags is None:
                relation_pairs = [(i, j) for i in range(m) for j in desired(facts, i)]
                here = bdd.true
            else:
                door_seen = bool(flags & 1)
                looked = [bool(flags >> (facts[i].variant + 1) & 1) for i in range(m)]
                pick = believed if relation == "B" else intended
                relation_pairs = [(i, j) for i in range(m)
                                  for j in pick(facts, i, looked[i], door_seen)]
                here = cube(bdd, self.flags.cur, flags)
            for i, j in relation_pairs:
                result |= here & self.world_cube(bdd, i) & cube(bdd, self.target_bits, j)
        return result

    def label(self, bdd: cudd.BDD, proposition: str) -> cudd.Function:
        layout = self.layout
        worlds = range(len(self.facts))

        def where(test) -> cudd.Function:
            result = bdd.false
            for j in worlds:
                value = test(j)
                if value is not False:
                    result |= self.world_cube(bdd, j) & (bdd.true if value is True else value)
            return result

        def holds(j: int) -> cudd.Function:
            return bdd.var(self.h[j].cur[0])

        lounge = self._cell(bdd, layout.lounge)
        door = self._cell(bdd, layout.door)
        rules = {
            "atL": lambda: lounge,
            "bb": lambda: lounge & where(holds),
            "atF": lambda: where(lambda j: self._cell(bdd, layout.fridges[self.facts[j].variant])),
            "atD": lambda: door,
            "od": lambda: door & where(lambda j: bool(self.facts[j].pd)),
            "br": lambda: where(lambda j: bool(self.facts[j].br)),
            "pd": lambda: where(lambda j: bool(self.facts[j].pd)),
            "hb": lambda: where(holds),
        }
        rule = rules.get(proposition)
        return rule() if rule is not None else bdd.false

    # -- explicit nodes -------------------------------------------------------------------------
    def assignment(self, node: ProductNode) -> dict[str, bool] | None:
        if any(s is None for s in node.states) or node.automata[1] != 0:
            return None
        cells = {s // 2 for s in node.states}  # type: ignore[operator]
        q_b, _, q_i = node.automata
        if len(cells) != 1 or q_b != q_i:
            return None
        c = cells.pop()
        if q_b // self.flag_count != c:
            return None
        x, y = self.layout.cell(c)
        values = dict(zip(self.world_bits, code_bits(node.world, len(self.world_bits))))
        values.update(zip(self.x.cur, self.x.bits_of(x)))
        values.update(zip(self.y.cur, self.y.bits_of(y)))
        values.update(zip(self.flags.cur, self.flags.bits_of(q_b % self.flag_count)))
        for h, s in zip(self.h, node.states):
            values[h.cur[0]] = bool(s % 2)  # type: ignore[operator]
        return values

    def decode(self, values: dict[str, bool]) -> ProductNode:
        c = self.layout.index((number(values, self.x.cur), number(values, self.y.cur)))
        q = c * self.flag_count + number(values, self.flags.cur)
        states = tuple(2 * c + int(values[h.cur[0]]) for h in self.h)
        return ProductNode(number(values, self.world_bits), states, (q, 0, q))

