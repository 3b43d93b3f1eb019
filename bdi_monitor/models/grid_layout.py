"""The grid beer robot's layout: cells, obstacles, objects and world instances.

An n×n grid with the lounge, the door and the fridge on cells; directions 1 N, 2 E, 3 S, 4 W,
5 stay (a blocked move stays). World instances: the four (br, pd) combinations, then further
instances of the same four with the fridge moved to another free cell (variants). Free cells
are numbered row by row (y, then x), skipping obstacles.
"""

from __future__ import annotations

import random
from array import array
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass
from functools import cached_property

from bdi_monitor.models.beer import BASE_FACTS, Facts
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

    @cached_property
    def _free_ids(self) -> array:
        """Row-major ids y·n + x of the free cells, ascending."""
        return array("q", (y * self.n + x for y in range(self.n) for x in range(self.n)
                           if (x, y) not in self.obstacles))

    @property
    def count(self) -> int:
        """Number of free cells."""
        return self.n * self.n - len(self.obstacles)

    def index(self, cell: Cell) -> int:
        """The number of a free cell (row by row, obstacles skipped)."""
        x, y = cell
        if not self.obstacles:
            return y * self.n + x
        ids = self._free_ids
        i = bisect_left(ids, y * self.n + x)
        if i == len(ids) or ids[i] != y * self.n + x:
            raise ValueError(f"not a free cell: {cell}")
        return i

    def cell(self, index: int) -> Cell:
        """The free cell numbered ``index``."""
        linear = index if not self.obstacles else self._free_ids[index]
        y, x = divmod(linear, self.n)
        return x, y


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
        taken = sorted(y * n + x for x, y in (lounge, door, fridge))
        spare_count = n * n - len(taken)
        if spare_count < variants - 1:
            raise InputError("too many world instances for the grid", key="worlds",
                             found=str(worlds), expected=f"at most {4 * (spare_count + 1)}")
        rng = random.Random(n * 1000 + variants)
        for rank in shuffled_tail(spare_count, variants - 1, rng):
            cell_id = _nth_spare(rank, taken)
            fridges.append((cell_id % n, cell_id // n))
    blocked = obstacle_cells(n, obstacles, [lounge, door, *fridges])
    return GridLayout(n, blocked, lounge, door, tuple(fridges))


def shuffled_tail(size: int, count: int, rng: random.Random) -> list[int]:
    """The last ``count`` entries of ``list(range(size))`` shuffled in place by ``rng`` (last
    first), in O(count): Fisher–Yates fixes the tail first, so only the swapped entries are
    kept (``random.shuffle`` draws the same numbers, and gives the same tail)."""
    moved: dict[int, int] = {}
    tail = []
    for i in range(size - 1, max(size - 1 - count, 0), -1):
        j = rng.randrange(i + 1)
        tail.append(moved.get(j, j))
        moved[j] = moved.get(i, i)
    if count >= size > 0:
        tail.append(moved.get(0, 0))
    return tail


def _nth_spare(rank: int, taken: list[int]) -> int:
    """The ``rank``-th id (0-based, ascending) that is not in the sorted list ``taken``."""
    cell_id = rank
    for t in taken:
        if t <= cell_id:
            cell_id += 1
    return cell_id


def world_facts(worlds: int) -> list[Facts]:
    """(br, pd, fridge variant) of the world instances w1..w{worlds}."""
    return [Facts(*BASE_FACTS[t % 4], variant=t // 4) for t in range(worlds)]
