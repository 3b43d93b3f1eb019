"""The grid beer robot: the seed's benchmark generalized (docs/ctl-bdi.md).

An n×n grid with the lounge, the door and the fridge on cells (:mod:`.grid_layout`); directions
1 N, 2 E, 3 S, 4 W, 5 stay (a blocked move stays, so every state has all five successors). A
world's state is (cell, holding a beer), numbered ``2·cell + h``; the robot picks up a beer on
reaching a fridge with beer and hands it over on leaving the lounge. The belief/intention
automaton tracks (cell, looked into each fridge variant, been at the door), numbered
``cell·2^(variants+1) + flags`` (flag bit 0: door, bit v+1: fridge variant v).

The structure's tables are computed on demand (:class:`~bdi_monitor.structure.Computed`), so a
1024×1024 grid costs nothing until a certificate reads a few rows; its symbolic encoding comes
from the per-variable rules of :mod:`.grid_rules`, not from the tables.
"""

from __future__ import annotations

from functools import partial

from bdi_monitor.models.beer import Facts, believed, desired, intended, labels_at, pairs
from bdi_monitor.models.grid_layout import DIRECTIONS, GridLayout, make_layout, world_facts
from bdi_monitor.models.grid_rules import GridEncoding
from bdi_monitor.structure import Automaton, Computed, Structure, World
from bdi_supervisor.errors import InputError

Cell = tuple[int, int]


class GridTables:
    """The explicit tables of a grid instance, row by row."""

    def __init__(self, layout: GridLayout, facts: list[Facts]) -> None:
        self.layout = layout
        self.facts = facts
        self.lounge = layout.index(layout.lounge)
        self.door = layout.index(layout.door)
        self.fridges = [layout.index(f) for f in layout.fridges]
        self.flag_count = 1 << (len(layout.fridges) + 1)
        self._outputs: dict[int, tuple[frozenset, frozenset]] = {}

    def moves(self, c: int) -> list[int]:
        cell = self.layout.cell(c)
        return [self.layout.index(self.layout.move(cell, d)) for d in range(len(DIRECTIONS))]

    def world_row(self, j: int, s: int) -> list[int]:
        c, h = divmod(s, 2)
        fact = self.facts[j]
        fridge = self.fridges[fact.variant]
        row = []
        for c2 in self.moves(c):
            if c2 == fridge and fact.br:
                h2 = 1
            elif c == self.lounge and c2 != self.lounge:
                h2 = 0
            else:
                h2 = h
            row.append(2 * c2 + h2)
        return row

    def world_labels(self, j: int, s: int) -> frozenset[str]:
        c, h = divmod(s, 2)
        fact = self.facts[j]
        places = ((self.lounge, "L"), (self.fridges[fact.variant], "F"), (self.door, "D"))
        return frozenset(labels_at([name for cell, name in places if cell == c], h, fact))

    def state_name(self, s: int) -> str:
        x, y = self.layout.cell(s // 2)
        return f"x{x}y{y}h{s % 2}"

    def tracker_row(self, q: int) -> list[int]:
        flags = q % self.flag_count
        row = []
        for c2 in self.moves(q // self.flag_count):
            new = flags
            for v, f in enumerate(self.fridges):
                if c2 == f:
                    new |= 1 << (v + 1)
            if c2 == self.door:
                new |= 1
            row.append(c2 * self.flag_count + new)
        return row

    def tracker_name(self, q: int) -> str:
        x, y = self.layout.cell(q // self.flag_count)
        return f"x{x}y{y}f{q % self.flag_count}"

    def outputs(self, flags: int) -> tuple[frozenset, frozenset]:
        """(belief, intention) output relations at automaton flags ``flags``."""
        cached = self._outputs.get(flags)
        if cached is None:
            facts, m = self.facts, len(self.facts)
            door_seen = bool(flags & 1)
            looked = [bool(flags >> (facts[i].variant + 1) & 1) for i in range(m)]
            cached = (pairs([believed(facts, i, looked[i], door_seen) for i in range(m)]),
                      pairs([intended(facts, i, looked[i], door_seen) for i in range(m)]))
            self._outputs[flags] = cached
        return cached

    def propositions(self) -> frozenset[str]:
        props = {"atL", "bb", "atF", "atD", "hb"}
        if any(f.br for f in self.facts):
            props.add("br")
        if any(f.pd for f in self.facts):
            props |= {"pd", "od"}
        return frozenset(props)


def grid_structure(n: int, worlds: int = 4, obstacles: str = "none", actual: int = 0,
                   lounge: Cell | None = None, door: Cell | None = None,
                   fridge: Cell | None = None) -> Structure:
    """The n×n grid beer robot with ``worlds`` instances; world ``actual`` (0-based) is actual."""
    layout = make_layout(n, worlds, obstacles, lounge, door, fridge)
    facts = world_facts(worlds)
    if not 0 <= actual < worlds:
        raise InputError("actual world out of range", key="actual", found=str(actual + 1),
                         expected=f"1..{worlds}")
    tables = GridTables(layout, facts)
    size = 2 * layout.count
    names = Computed(size, tables.state_name)
    world_list = [World(f"w{j + 1}", names, 2 * tables.lounge,
                        Computed(size, partial(tables.world_row, j)),
                        Computed(size, partial(tables.world_labels, j)))
                  for j in range(worlds)]
    fc = tables.flag_count
    q_count = layout.count * fc
    q_names = Computed(q_count, tables.tracker_name)
    tau = Computed(q_count, tables.tracker_row)
    q0 = tables.lounge * fc
    k = len(DIRECTIONS)
    desire = Automaton(["q0"], 0, [[0] * k], [pairs([desired(facts, i) for i in range(worlds)])])
    automata = {
        "B": Automaton(q_names, q0, tau, Computed(q_count, lambda q: tables.outputs(q % fc)[0])),
        "D": desire,
        "I": Automaton(q_names, q0, tau, Computed(q_count, lambda q: tables.outputs(q % fc)[1])),
    }
    return Structure(list(DIRECTIONS), world_list, automata, actual, name=f"grid{n}",
                     propositions=tables.propositions(),
                     encoder=partial(GridEncoding, layout=layout, facts=tuple(facts)))
