"""The reference pipeline's one-pass reducer, re-implemented for comparison.

Kept only to reproduce the paper's ``|Reduced|`` column next to :func:`reduce`'s numbers; do not
deploy its result. The reference (1) picks an initial root (no incoming edge; lowest rank, tagged
initial first), (2) repeatedly deletes other roots, (3) makes ONE forward pass in state order,
merging a state into an earlier kept one with the same outputs (``*_p`` masked) and the same
sorted successor list — input valuations ignored — redirecting predecessors as it goes. It is not
iterated, so it is not minimal in general and depends on state order. Its merges are sound for
raw strategies (a successor's inputs are its edge label, so equal successor lists mean equal
labelled edges).
"""

from __future__ import annotations

from bdi_supervisor.reduce.reducer import DEFAULT_MASK_SUFFIXES, masked_outputs
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState


def reference_sweep(strategy: Strategy, mask_suffixes=DEFAULT_MASK_SUFFIXES) -> Strategy:
    """The reference's single-sweep reduction (provenance in ``metadata``, like :func:`reduce`)."""
    states = strategy.states
    succ = {s.id: list(s.successors) for s in states}
    incoming = {s.id: 0 for s in states}
    for s in states:
        for t in s.successors:
            incoming[t] += 1
    roots = [s for s in states if incoming[s.id] == 0 and s.successors]
    candidates = [s for s in roots if s.initial] or roots
    start = min(candidates, key=lambda s: (s.rank, s.id)).id if candidates else 0
    incoming[start] += 1  # sentinel edge protects the initial state
    alive = {s.id for s in states}
    changed = True
    while changed:
        changed = False
        for v in sorted(alive):
            if incoming[v] == 0:
                alive.discard(v)
                for t in succ[v]:
                    incoming[t] -= 1
                changed = True
    hidden = set(masked_outputs(strategy, mask_suffixes))
    core = sorted(n for n in strategy.output_names if n not in hidden)
    merged_into = {v: v for v in alive}
    kept: list[int] = []
    for v in sorted(alive):
        key = tuple(states[v].outputs.get(n) for n in core)
        target = next((k for k in kept if sorted(succ[k]) == sorted(succ[v])
                       and tuple(states[k].outputs.get(n) for n in core) == key), None)
        if target is None:
            kept.append(v)
            continue
        for u in alive:  # redirect predecessors of v to the earlier state
            succ[u] = [target if t == v else t for t in succ[u]]
        for w, into in merged_into.items():
            if into == v:
                merged_into[w] = target
    number = {old: new for new, old in enumerate(kept)}
    reduced = []
    provenance: dict[str, list[int]] = {}
    for old in kept:
        s = states[old]
        members = sorted(w for w, into in merged_into.items() if into == old)
        successors = list(dict.fromkeys(number[merged_into[t]] for t in succ[old]))
        reduced.append(StrategyState(number[old], dict(s.inputs), dict(s.outputs), successors,
                                     s.rank, any(states[w].initial for w in members)
                                     or old == start))
        provenance[str(number[old])] = members
    metadata = dict(strategy.metadata)
    metadata.update(reduced=True, provenance=provenance, reducer="reference-sweep",
                    raw_states=len(states))
    return Strategy(list(strategy.variables), reduced, strategy.name, metadata)
