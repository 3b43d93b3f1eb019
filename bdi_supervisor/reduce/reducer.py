"""Minimal behaviour-preserving reduction of explicit Mealy strategies.

Two reachable states are merged exactly when they are bisimilar: equal *core* outputs (outputs
with the masked ones — pending bits ``*_p`` by default — left out), the same set of edge input
valuations, and for every input valuation successors that are again merged. The coarsest such
partition is computed by Hopcroft-style partition refinement (a worklist of splitter blocks, the
smaller half re-queued), O(m log n) for m transitions — unlike the reference's single forward
sweep over identical successor lists, it is minimal and independent of state order.

The arrival inputs of merged states may differ (the reference unions them into one label); here
each reduced state keeps the input valuation of every edge in ``edge_inputs``, so output traces
*and* edge labels are those of the raw strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bdi_supervisor.errors import InputError
from bdi_supervisor.graph import bfs_tree
from bdi_supervisor.reduce.partition import RefinablePartition
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

DEFAULT_MASK_SUFFIXES = ("_p",)


def masked_outputs(strategy: Strategy, mask_suffixes: Iterable[str] = DEFAULT_MASK_SUFFIXES,
                   masked: Iterable[str] | Callable[[str], bool] = ()) -> list[str]:
    """Output names ignored when comparing states (suffix match or explicitly named)."""
    suffixes = tuple(mask_suffixes)
    test = masked if callable(masked) else set(masked).__contains__
    return [name for name in strategy.output_names
            if (suffixes and name.endswith(suffixes)) or test(name)]


def _label_key(inputs: dict, names: list[str]) -> tuple:
    return tuple(inputs.get(name) for name in names)


def start_states(strategy: Strategy, determinize: bool = True) -> list[int]:
    """The initial states kept: with ``determinize``, one per initial input valuation.

    Initial states that share the environment's input differ only in the system's choice (e.g.
    an unconstrained initial integer); any one of them is correct, and the lowest id is kept — the
    same choice realization makes. Without initial states, state 0.
    """
    initial = [s for s in strategy.states if s.initial]
    if not initial:
        return [0] if strategy.states else []
    if not determinize:
        return [s.id for s in initial]
    names = sorted(strategy.input_names)
    chosen: dict[tuple, int] = {}
    for s in initial:
        chosen.setdefault(_label_key(s.inputs, names), s.id)
    return sorted(chosen.values())


def coarsest_partition(strategy: Strategy, core_outputs: list[str], roots: list[int] | None = None
                       ) -> tuple[list[int], list[int], list[list[int]]]:
    """``(reachable raw ids in BFS order, block of each of them, members of each block)``."""
    states = strategy.states
    if roots is None:
        roots = start_states(strategy, determinize=False)
    order, _ = bfs_tree([s.successors for s in states], roots)
    local = {raw: index for index, raw in enumerate(order)}
    input_names = sorted(strategy.input_names)
    labels: dict[tuple, int] = {}
    edges: list[list[tuple[int, int]]] = []
    for raw in order:
        seen: dict[int, int] = {}
        row = []
        for inputs, succ in strategy.edges(raw):
            label = labels.setdefault(_label_key(inputs, input_names), len(labels))
            target = local[succ]
            if label in seen:
                if seen[label] != target:
                    raise InputError("strategy is not deterministic: two successors for the same "
                                     "input valuation", file=strategy.name,
                                     key=f"states[{raw}].successors", found=str(inputs))
                continue
            seen[label] = target
            row.append((label, target))
        edges.append(row)
    keys: dict[tuple, int] = {}
    initial: list[list[int]] = []
    for v, raw in enumerate(order):
        outputs = states[raw].outputs
        key = (tuple(outputs.get(name) for name in core_outputs),
               tuple(sorted(label for label, _ in edges[v])))
        b = keys.get(key)
        if b is None:
            b = keys[key] = len(initial)
            initial.append([])
        initial[b].append(v)
    n = len(order)
    inverse: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for v, row in enumerate(edges):
        for label, target in row:
            inverse[target].append((label, v))
    partition = RefinablePartition(n, initial)
    if partition.count:
        largest = max(range(partition.count), key=partition.size)
        work = [b for b in range(partition.count) if b != largest]
    else:
        work = []
    while work:
        splitter = work.pop()
        by_label: dict[int, list[int]] = {}
        for target in partition.members(splitter):
            for label, source in inverse[target]:
                by_label.setdefault(label, []).append(source)
        for sources in by_label.values():
            for source in sources:
                partition.mark(source)
            for _old, new in partition.split():
                work.append(new)
    block = [partition.block[v] for v in range(n)]
    members = [[] for _ in range(partition.count)]
    for v in range(n):
        members[block[v]].append(v)
    return order, block, members


def reduce(strategy: Strategy, mask_suffixes: Iterable[str] = DEFAULT_MASK_SUFFIXES,
           masked: Iterable[str] | Callable[[str], bool] = (),
           determinize_initial: bool = True) -> Strategy:
    """The minimal strategy bisimilar to ``strategy`` on its core outputs.

    With ``determinize_initial`` only one initial state per initial input valuation is kept
    (:func:`start_states`). Unreachable states are dropped; reduced ids are assigned breadth-first
    from the initial states (deterministic). ``metadata["provenance"]`` maps each reduced id (as a
    string, so the JSON round trip is exact) to the sorted raw ids it merges;
    ``metadata["reduced"]`` is True. Each reduced state takes inputs, outputs and rank from its
    representative (its lowest initial raw id, else its lowest raw id); masked outputs are the
    representative's.
    """
    masked_names = masked_outputs(strategy, mask_suffixes, masked)
    hidden = set(masked_names)
    core = [name for name in sorted(strategy.output_names) if name not in hidden]
    roots = start_states(strategy, determinize_initial)
    order, block, members = coarsest_partition(strategy, core, roots)
    states = strategy.states
    kept_initial = set(roots)
    representative = []
    for group in members:
        raws = [order[v] for v in group]
        initials = [r for r in raws if r in kept_initial]
        representative.append(min(initials) if initials else min(raws))
    local = {raw: index for index, raw in enumerate(order)}
    number: dict[int, int] = {}
    queue: list[int] = []
    for v, raw in enumerate(order):
        if raw in kept_initial:
            b = block[v]
            if b not in number:
                number[b] = len(queue)
                queue.append(b)
    head = 0
    while head < len(queue):
        b = queue[head]
        head += 1
        for _inputs, succ in strategy.edges(representative[b]):
            target = block[local[succ]]
            if target not in number:
                number[target] = len(queue)
                queue.append(target)
    reduced_states: list[StrategyState] = []
    provenance: dict[str, list[int]] = {}
    for new_id, b in enumerate(queue):
        rep = states[representative[b]]
        successors: list[int] = []
        edge_inputs: list[dict] = []
        seen: set[tuple] = set()
        for inputs, succ in strategy.edges(rep.id):
            target = number[block[local[succ]]]
            key = (target, tuple(sorted(inputs.items())))
            if key in seen:
                continue
            seen.add(key)
            successors.append(target)
            edge_inputs.append(dict(inputs))
        raws = sorted(order[v] for v in members[b])
        reduced_states.append(StrategyState(
            id=new_id, inputs=dict(rep.inputs), outputs=dict(rep.outputs),
            successors=successors, rank=rep.rank,
            initial=any(r in kept_initial for r in raws), edge_inputs=edge_inputs))
        provenance[str(new_id)] = raws
    metadata = dict(strategy.metadata)
    metadata.update(
        reduced=True, provenance=provenance, masked_outputs=masked_names,
        raw_states=len(states), reachable_raw_states=len(order),
    )
    return Strategy(list(strategy.variables), reduced_states, strategy.name, metadata)
