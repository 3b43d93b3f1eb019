"""Graph helpers on adjacency lists (nodes ``0..n-1``): BFS trees and iterative Tarjan SCCs."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence


def bfs_tree(adjacency: Sequence[Sequence[int]],
             roots: Iterable[int]) -> tuple[list[int], list[int]]:
    """Breadth-first search from ``roots``: ``(order, parent)``.

    ``order`` lists the reached nodes in visiting order; ``parent[v]`` is the predecessor on a
    shortest path (``-1`` for roots, ``-2`` for unreached nodes).
    """
    parent = [-2] * len(adjacency)
    order: list[int] = []
    queue: deque[int] = deque()
    for root in roots:
        if parent[root] == -2:
            parent[root] = -1
            order.append(root)
            queue.append(root)
    while queue:
        node = queue.popleft()
        for succ in adjacency[node]:
            if parent[succ] == -2:
                parent[succ] = node
                order.append(succ)
                queue.append(succ)
    return order, parent


def path_to(parent: Sequence[int], node: int) -> list[int]:
    """The BFS-tree path from a root to ``node`` (inclusive)."""
    path = [node]
    while parent[path[-1]] >= 0:
        path.append(parent[path[-1]])
    path.reverse()
    return path


def tarjan_scc(adjacency: Sequence[Sequence[int]], nodes: Iterable[int] | None = None
               ) -> tuple[list[int], int]:
    """Strongly connected components without recursion: ``(component, count)``.

    ``component[v]`` is the SCC index of ``v`` (``-1`` for nodes not searched). Indices follow
    Tarjan's emission order, a reverse topological order of the condensation: every edge
    ``u -> v`` between different SCCs has ``component[u] > component[v]``. ``nodes`` restricts
    the start points (all nodes by default); every node reachable from them is searched.
    """
    n = len(adjacency)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    component = [-1] * n
    stack: list[int] = []
    count = 0
    counter = 0
    starts = range(n) if nodes is None else nodes
    for start in starts:
        if index[start] != -1:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        path = [start]
        iters = [iter(adjacency[start])]
        while iters:
            node = path[-1]
            for succ in iters[-1]:
                if index[succ] == -1:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack[succ] = True
                    path.append(succ)
                    iters.append(iter(adjacency[succ]))
                    break
                if on_stack[succ] and index[succ] < low[node]:
                    low[node] = index[succ]
            else:
                path.pop()
                iters.pop()
                if path and low[node] < low[path[-1]]:
                    low[path[-1]] = low[node]
                if low[node] == index[node]:
                    while True:
                        member = stack.pop()
                        on_stack[member] = False
                        component[member] = count
                        if member == node:
                            break
                    count += 1
    return component, count
