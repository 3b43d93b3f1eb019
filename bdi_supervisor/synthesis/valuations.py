"""Valuations of a BDD without building one per valuation: the value at a point, the paths to
TRUE, and the assignments of some variables in lexicographic order (False first, in the order
the names are given). Strategy extraction and the explanation's counter-strategy and
counter-run read their explicit states this way.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.synthesis.gr1 import Budget
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame


def smallest(game: SymbolicGame, u: Function, names: list[str]) -> dict[str, bool]:
    """The lexicographically smallest assignment of ``names`` in ``u`` (False first)."""
    choice: dict[str, bool] = {}
    for name in names:
        low = game.bdd.let({name: False}, u)
        if low != game.false:
            choice[name] = False
            u = low
        else:
            choice[name] = True
            u = game.bdd.let({name: True}, u)
    return choice


def paths(u: Function, given: dict[str, bool] | None = None) -> Iterator[dict[str, bool]]:
    """The paths from the root of ``u`` to TRUE, as partial assignments, in one walk of the
    BDD; with ``given``, those of ``u`` restricted to that valuation (no BDD is built).

    CUDD's nodes store their else-edge possibly complemented: the walk carries the parity of
    the complemented edges taken, and a path ends in TRUE when it reaches the constant node
    with even parity. A path is kept as a linked list of its choices until it ends.
    """
    given = given or {}
    Path = tuple[str, bool, "Path"] | None
    stack: list[tuple[Function, bool, Path]] = [(u, False, None)]
    while stack:
        node, odd, path = stack.pop()
        while True:
            if node.negated:
                odd = not odd
            var = node.var
            if var is None or var not in given:
                break
            node = node.high if given[var] else node.low
        if var is None:
            if not odd:
                cube = {}
                while path is not None:
                    name, value, path = path
                    cube[name] = value
                yield cube
            continue
        for value, child in ((True, node.high), (False, node.low)):
            if child.var is None and odd != child.negated:
                continue  # the constant FALSE
            stack.append((child, odd, (var, value, path)))


def holds(u: Function, values: dict[str, bool]) -> bool:
    """``u`` at a total assignment of its support (one root-to-leaf walk)."""
    odd = False
    while True:
        if u.negated:
            odd = not odd
        var = u.var
        if var is None:
            return not odd
        u = u.high if values[var] else u.low


def advance(clauses: list[Function], index: int, values: dict[str, bool]) -> int:
    """slugs' rank advance after a move: from clause ``index`` on, past every clause the move
    (``values``, a total assignment of the clauses' bits) satisfies, at most once around."""
    nxt, first = index, True
    while (nxt != index or first) and holds(clauses[nxt], values):
        nxt = (nxt + 1) % len(clauses)
        first = False
    return nxt


def expand(cubes: Iterable[dict[str, bool]], names: list[str]) -> Iterator[dict[str, bool]]:
    """Total assignments of ``names`` in the ``cubes``: each name a cube leaves out both ways."""
    for cube in cubes:
        missing = [name for name in names if name not in cube]
        if not missing:
            yield cube
            continue
        for values in itertools.product((False, True), repeat=len(missing)):
            yield {**cube, **dict(zip(missing, values))}


def sorted_lazily(game: SymbolicGame, u: Function, names: list[str],
                  budget: Budget | None = None) -> Iterator[dict[str, bool]]:
    """The assignments of ``names`` in ``u`` (a function of ``names`` only) in lexicographic
    order (False first), one at a time: a caller that needs the first few never enumerates
    the rest (a predicate of 2^24 assignments gives its first at once). Each comes from one
    restriction per name, and the time budget is checked every 256."""
    stack: list[tuple[Function, int, dict[str, bool]]] = [(u, 0, {})]
    given = 0
    while stack:
        node, index, partial = stack.pop()
        if node == game.false:
            continue
        if index == len(names):
            given += 1
            if budget is not None and given % 256 == 0:
                budget.check(game)
            yield partial
            continue
        name = names[index]
        for value in (True, False):  # False is popped first
            stack.append((game.bdd.let({name: value}, node), index + 1,
                          {**partial, name: value}))


def all_sorted(game: SymbolicGame, u: Function, names: list[str],
                budget: Budget | None = None, limit: int | None = None) -> list[dict[str, bool]]:
    """All assignments of ``names`` in ``u`` (a function of ``names`` only) in lexicographic
    order (False first).

    More than ``limit`` assignments raise :class:`BudgetExceeded` before any is enumerated
    (counted on the BDD), and the time budget is checked while enumerating, so a predicate with
    2^40 satisfying assignments stops at once instead of filling memory.
    """
    if limit is not None and u != game.false and names and \
            game.bdd.count(u, nvars=len(names)) > limit:
        raise BudgetExceeded("strategy state", limit)
    found = []
    for assignment in expand(paths(u), names):
        found.append(assignment)
        if budget is not None and len(found) % 256 == 0:
            budget.check(game)
    found.sort(key=lambda a: tuple(map(a.__getitem__, names)))
    return found
