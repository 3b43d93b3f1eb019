"""The grid beer robot: the seed's benchmark generalized (``notes/ctl_bdi.md`` §2.3).

An n×n grid with the lounge, the door and the fridge on cells; directions 1 N, 2 E, 3 S, 4 W,
5 stay (a blocked move stays, so every state has all five successors). A world's state is
(cell, holding a beer); the robot picks up a beer on reaching a fridge with beer and hands it over
on leaving the lounge. The belief/intention automaton tracks (cell, looked into each fridge
variant, been at the door). World instances: the four (br, pd) combinations, then further
instances of the same four with the fridge moved to another free cell (variants).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from bdi_monitor.models.beer import BASE_FACTS, Facts, believed, desired, intended, pairs
from bdi_monitor.structure import Automaton, Structure, World, validate
from bdi_supervisor.errors import InputError

Cell = tuple[int, int]
DIRECTIONS = ["north", "east", "south", "west", "stay"]
_MOVES = ((0, 1), (1, 0), (0, -1), (-1, 0), (0, 0))


@dataclass(frozen=True)
class GridLayout:
    """Cells of a grid instance: size, blocked cells, lounge, door, fridge per variant."""

    n: int
    obstacles: frozenset[Cell]
    lounge: Cell
    door: Cell
    fridges: tuple[Cell, ...]

    def free(self, cell: Cell) -> bool:
        x, y = cell
        return 0 <= x < self.n and 0 <= y < self.n and cell not in self.obstacles

    def move(self, cell: Cell, direction: int) -> Cell:
        dx, dy = _MOVES[direction]
        target = (cell[0] + dx, cell[1] + dy)
        return target if self.free(target) else cell

    def cells(self) -> list[Cell]:
        return [(x, y) for y in range(self.n) for x in range(self.n) if self.free((x, y))]


def _connected(n: int, obstacles: set[Cell], start: Cell, goals: list[Cell]) -> bool:
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in _MOVES[:4]:
            c = (x + dx, y + dy)
            if 0 <= c[0] < n and 0 <= c[1] < n and c not in obstacles and c not in seen:
                seen.add(c)
                queue.append(c)
    return all(g in seen for g in goals)


def obstacle_cells(n: int, layout: str, keep: list[Cell]) -> frozenset[Cell]:
    """Blocked cells: ``none``; ``wall`` (column n/2, rows 1..n-2, for n ≥ 4); ``random:SEED``
    (about a fifth of the cells, redrawn until the kept cells stay connected)."""
    if layout == "none":
        return frozenset()
    if layout == "wall":
        if n < 4:
            return frozenset()
        return frozenset((n // 2, y) for y in range(1, n - 1)) - set(keep)
    if layout.startswith("random:"):
        seed_text = layout.split(":", 1)[1]
        try:
            seed = int(seed_text)
        except ValueError:
            raise InputError("bad obstacle seed", key="obstacles", found=repr(seed_text),
                             expected="random:<integer>") from None
        rng = random.Random(seed)
        candidates = [(x, y) for x in range(n) for y in range(n) if (x, y) not in keep]
        for _ in range(200):
            blocked = {c for c in candidates if rng.random() < 0.2}
            if _connected(n, blocked, keep[0], keep[1:]):
                return frozenset(blocked)
        return frozenset()
    raise InputError("unknown obstacle layout", key="obstacles", found=repr(layout),
                     expected="wall, none or random:SEED")


def make_layout(n: int, worlds: int = 4, obstacles: str = "none", lounge: Cell | None = None,
                door: Cell | None = None, fridge: Cell | None = None) -> GridLayout:
    """Place the objects (defaults: lounge (0,0), door (0,n-1), fridge (n-1,n-1)) and obstacles;
    fridge variants for instances beyond four are spread over other free cells."""
    if n < 2:
        raise InputError("grid size must be at least 2", key="size", found=str(n))
    if worlds < 1:
        raise InputError("at least one world instance", key="worlds", found=str(worlds))
    lounge = lounge or (0, 0)
    door = door or (0, n - 1)
    fridge = fridge or (n - 1, n - 1)
    for name, cell in (("lounge", lounge), ("door", door), ("fridge", fridge)):
        if not (0 <= cell[0] < n and 0 <= cell[1] < n):
            raise InputError(f"{name} outside the grid", key=name, found=str(cell),
                             expected=f"x, y in 0..{n - 1}")
    if len({lounge, door, fridge}) < 3:
        raise InputError("lounge, door and fridge need distinct cells", key="fridge")
    variants = (worlds + 3) // 4
    fridges = [fridge]
    if variants > 1:
        spare = [(x, y) for y in range(n) for x in range(n)
                 if (x, y) not in (lounge, door, fridge)]
        rng = random.Random(n * 1000 + variants)
        rng.shuffle(spare)
        if len(spare) < variants - 1:
            raise InputError("too many world instances for the grid", key="worlds",
                             found=str(worlds), expected=f"at most {4 * (len(spare) + 1)}")
        fridges.extend(spare[: variants - 1])
    blocked = obstacle_cells(n, obstacles, [lounge, door, *fridges])
    return GridLayout(n, blocked, lounge, door, tuple(fridges))


def grid_structure(n: int, worlds: int = 4, obstacles: str = "none", actual: int = 0,
                   lounge: Cell | None = None, door: Cell | None = None,
                   fridge: Cell | None = None) -> Structure:
    """The n×n grid beer robot with ``worlds`` instances; world ``actual`` (0-based) is actual."""
    layout = make_layout(n, worlds, obstacles, lounge, door, fridge)
    facts = [Facts(*BASE_FACTS[t % 4], variant=t // 4) for t in range(worlds)]
    if not 0 <= actual < worlds:
        raise InputError("actual world out of range", key="actual", found=str(actual + 1),
                         expected=f"1..{worlds}")
    cells = layout.cells()
    cell_index = {c: i for i, c in enumerate(cells)}
    k = len(DIRECTIONS)
    moves = [[cell_index[layout.move(c, d)] for d in range(k)] for c in cells]
    lounge_i, door_i = cell_index[layout.lounge], cell_index[layout.door]
    fridge_i = [cell_index[f] for f in layout.fridges]
    state_names = [f"x{x}y{y}h{h}" for x, y in cells for h in (0, 1)]
    world_list = []
    for w, fact in enumerate(facts):
        fridge_w = fridge_i[fact.variant]
        delta, labels = [], []
        for c in range(len(cells)):
            for h in (0, 1):
                row = []
                for d in range(k):
                    c2 = moves[c][d]
                    if c2 == fridge_w and fact.br:
                        h2 = 1
                    elif c == lounge_i and c2 != lounge_i:
                        h2 = 0
                    else:
                        h2 = h
                    row.append(2 * c2 + h2)
                delta.append(row)
                label = set()
                if c == lounge_i:
                    label.add("atL")
                    if h:
                        label.add("bb")
                if c == fridge_w:
                    label.add("atF")
                if c == door_i:
                    label.add("atD")
                    if fact.pd:
                        label.add("od")
                if fact.br:
                    label.add("br")
                if fact.pd:
                    label.add("pd")
                if h:
                    label.add("hb")
                labels.append(frozenset(label))
        world_list.append(World(f"w{w + 1}", list(state_names), 2 * lounge_i, delta, labels))
    # automaton: (cell, looked-into flags per fridge variant, been at the door)
    variants = len(fridge_i)
    flag_count = 1 << (variants + 1)
    tau, q_names = [], []
    belief_out, intention_out = [], []
    looked_cache: dict[int, tuple[frozenset, frozenset]] = {}
    m = len(facts)
    for c, (x, y) in enumerate(cells):
        for flags in range(flag_count):
            row = []
            for d in range(k):
                c2 = moves[c][d]
                new = flags
                for v, f in enumerate(fridge_i):
                    if c2 == f:
                        new |= 1 << (v + 1)
                if c2 == door_i:
                    new |= 1
                row.append(c2 * flag_count + new)
            tau.append(row)
            q_names.append(f"x{x}y{y}f{flags}")
            if flags not in looked_cache:
                door_seen = bool(flags & 1)
                looked = [bool(flags >> (facts[i].variant + 1) & 1) for i in range(m)]
                looked_cache[flags] = (
                    pairs([believed(facts, i, looked[i], door_seen) for i in range(m)]),
                    pairs([intended(facts, i, looked[i], door_seen) for i in range(m)]))
            belief_out.append(looked_cache[flags][0])
            intention_out.append(looked_cache[flags][1])
    q0 = lounge_i * flag_count
    desire = Automaton(["q0"], 0, [[0] * k], [pairs([desired(facts, i) for i in range(m)])])
    automata = {"B": Automaton(q_names, q0, tau, belief_out), "D": desire,
                "I": Automaton(list(q_names), q0, [list(r) for r in tau], intention_out)}
    return validate(Structure(list(DIRECTIONS), world_list, automata, actual, name=f"grid{n}"))
