"""Nominal livelocks: goal-free cycles that a failure-free, fair environment keeps the robot in.

The search behind ``NOMINAL_LIVELOCK`` (docs/audit-reduction.md), on plain adjacency data so
that it knows nothing of strategies: the auditor says which edges are *inner* (nominal, no
success goal, inside a non-trap SCC), which environment liveness assumptions each edge meets
(a bit mask) and which assumptions each state *enables* (some nominal edge of the state meets
them, wherever it goes).

A run that stays in a set ``D`` of states forever treats the environment fairly when every
assumption enabled infinitely often is met infinitely often (compassion, a Streett condition):
an assumption the environment is never given a chance to meet is not held against it. The
search is the usual Streett emptiness refinement: take the non-trivial SCCs of the inner
edges; an SCC that enables an assumption it never meets loses the states that enable it, and
the rest is decomposed again. Each round removes at least one state, so the cost is
O(n·(n + m)) in the worst case and one pass of SCCs when nothing is removed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bdi_supervisor.graph import tarjan_scc


@dataclass
class FairSet:
    """A fair, strongly connected set of states and a lasso's cycle through it.

    ``cycle`` lists the edges ``(state, edge index)`` of a closed walk from ``entry`` back to it
    that meets every assumption the set enables; ``unmet`` is the mask of the assumptions no
    state of the set enables (the environment never gets a chance to meet them there).
    """

    states: list[int]
    entry: int
    cycle: list[tuple[int, int]]
    unmet: int


def _components(group: Sequence[int], adj: Sequence[Sequence[int]],
                inner: Sequence[Sequence[int]]) -> list[list[int]]:
    """The non-trivial SCCs of the inner edges between the states of ``group``."""
    local = {u: i for i, u in enumerate(group)}
    sub = [[local[adj[u][k]] for k in inner[u] if adj[u][k] in local] for u in group]
    comp, count = tarjan_scc(sub)
    members: list[list[int]] = [[] for _ in range(count)]
    for i, c in enumerate(comp):
        members[c].append(group[i])
    return [m for m in members
            if len(m) > 1 or local[m[0]] in sub[local[m[0]]]]


def _path(start: int, goal: int, states: set[int], adj: Sequence[Sequence[int]],
          inner: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Shortest walk of inner edges inside ``states`` from ``start`` to ``goal`` (at least one
    edge when they are equal)."""
    parent: dict[int, tuple[int, int]] = {}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for k in inner[u]:
            t = adj[u][k]
            if t not in states or t in parent:
                continue
            parent[t] = (u, k)
            if t == goal:
                walk = [(u, k)]
                while walk[-1][0] != start:
                    walk.append(parent[walk[-1][0]])
                walk.reverse()
                return walk
            queue.append(t)
    raise AssertionError("the states are strongly connected")


def _cycle(states: list[int], entry: int, need: int, adj: Sequence[Sequence[int]],
           inner: Sequence[Sequence[int]], meets: Sequence[Sequence[int]]
           ) -> list[tuple[int, int]]:
    """A closed walk from ``entry`` through an edge meeting each assumption of ``need``."""
    members = set(states)
    cycle: list[tuple[int, int]] = []
    here = entry
    while need:
        u, k = next((u, k) for u in states for k in inner[u]
                    if adj[u][k] in members and meets[u][k] & need)
        if u != here:
            cycle += _path(here, u, members, adj, inner)
        cycle.append((u, k))
        need &= ~meets[u][k]
        here = adj[u][k]
    if here != entry or not cycle:
        cycle += _path(here, entry, members, adj, inner)
    return cycle


def fair_sets(candidates: Sequence[int], adj: Sequence[Sequence[int]],
              inner: Sequence[Sequence[int]], meets: Sequence[Sequence[int]],
              enabled: Sequence[int], rank: Sequence[int], assumptions: int,
              check: Callable[[], None]) -> list[FairSet]:
    """The maximal fair sets among ``candidates``, in the order their first state is reached.

    ``inner[u]`` are the indices ``k`` of ``u``'s inner edges (target ``adj[u][k]``),
    ``meets[u][k]`` the mask of the assumptions edge ``k`` meets, ``enabled[u]`` the mask of the
    assumptions ``u`` enables, ``rank`` the order in which states are first reached (the entry
    of a set is its first reached state), ``assumptions`` the number of assumptions; ``check``
    is called once per round (the audit's deadline).
    """
    everything = (1 << assumptions) - 1
    found: list[FairSet] = []
    work = [list(candidates)]
    while work:
        check()
        for states in _components(work.pop(), adj, inner):
            members = set(states)
            met = 0
            wanted = 0
            for u in states:
                wanted |= enabled[u]
                for k in inner[u]:
                    if adj[u][k] in members:
                        met |= meets[u][k]
            bad = wanted & ~met
            if bad:
                rest = [u for u in states if not enabled[u] & bad]
                if rest:
                    work.append(rest)
                continue
            entry = min(states, key=lambda v: rank[v])
            found.append(FairSet(sorted(states), entry,
                                 _cycle(states, entry, wanted, adj, inner, meets),
                                 everything & ~met))
    found.sort(key=lambda s: rank[s.entry])
    return found
