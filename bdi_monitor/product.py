"""The product graph G_M of a structure, explicitly (docs/ctl-bdi.md).

A node is the current world, every world's state at the same time point (``None`` = ⊥: the time
point is not in that world's tree) and the B, D, I automaton states. A temporal edge along
direction d exists when the current world's state has a d-successor; every world and automaton
advances along d. A modal edge X keeps the time point and moves to a world j accessible in the
X automaton's output whose tree contains the time point.

This module is used to replay and print certificates and to step the live monitor; the checker
works on the symbolic encoding (:mod:`bdi_monitor.symbolic`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from bdi_monitor.structure import RELATION_KEYS, RELATIONS, Structure


@dataclass(frozen=True)
class ProductNode:
    world: int
    states: tuple[int | None, ...]
    automata: tuple[int, int, int]  # B, D, I


def initial_node(structure: Structure, world: int | None = None) -> ProductNode:
    """u₀ = (actual world, every world's initial state, initial automaton states)."""
    return ProductNode(structure.actual if world is None else world,
                       tuple(w.initial for w in structure.worlds),
                       tuple(structure.automata[r].initial for r in RELATIONS))


def step(structure: Structure, node: ProductNode, direction: int) -> ProductNode | None:
    """The temporal successor along ``direction`` (0-based), or None if the current world's state
    has no such child."""
    current = node.states[node.world]
    if current is None or structure.worlds[node.world].delta[current][direction] is None:
        return None
    states = tuple(None if s is None else w.delta[s][direction]
                   for w, s in zip(structure.worlds, node.states))
    automata = tuple(structure.automata[r].tau[q][direction]
                     for r, q in zip(RELATIONS, node.automata))
    return ProductNode(node.world, states, automata)  # type: ignore[arg-type]


def temporal_successors(structure: Structure, node: ProductNode) -> list[tuple[int, ProductNode]]:
    """All (direction, successor) pairs of ``node`` (direction 0-based)."""
    result = []
    for d in range(structure.k):
        succ = step(structure, node, d)
        if succ is not None:
            result.append((d, succ))
    return result


def accessible_worlds(structure: Structure, node: ProductNode, relation: str) -> list[int]:
    """Worlds j with (current, j) in out_X(q_X) whose tree contains the time point."""
    automaton = structure.automata[relation]
    q = node.automata[RELATIONS.index(relation)]
    pairs = automaton.out[q]
    return [j for j in range(len(structure.worlds))
            if (node.world, j) in pairs and node.states[j] is not None]


def modal_successors(structure: Structure, node: ProductNode, relation: str) -> list[ProductNode]:
    """The targets of the modal edges of kind ``relation`` ("B", "D" or "I")."""
    return [ProductNode(j, node.states, node.automata)
            for j in accessible_worlds(structure, node, relation)]


def explore(structure: Structure, start: ProductNode | None = None) -> list[ProductNode]:
    """Every node reachable from ``start`` (default u₀) over temporal and modal edges."""
    start = start or initial_node(structure)
    seen = {start}
    order = [start]
    queue = deque([start])
    while queue:
        node = queue.popleft()
        successors = [s for _, s in temporal_successors(structure, node)]
        for relation in RELATIONS:
            successors.extend(modal_successors(structure, node, relation))
        for succ in successors:
            if succ not in seen:
                seen.add(succ)
                order.append(succ)
                queue.append(succ)
    return order


def describe(structure: Structure, node: ProductNode) -> dict[str, Any]:
    """Names instead of indices: world, every world's state (None = ⊥), automaton states."""
    return {
        "world": structure.worlds[node.world].name,
        "states": {w.name: (None if s is None else w.states[s])
                   for w, s in zip(structure.worlds, node.states)},
        "automata": {RELATION_KEYS[r]: structure.automata[r].states[q]
                     for r, q in zip(RELATIONS, node.automata)},
    }


def labels(structure: Structure, node: ProductNode) -> frozenset[str]:
    """The propositions true at ``node`` (those of the current world's state)."""
    state = node.states[node.world]
    return frozenset() if state is None else structure.worlds[node.world].labels[state]
