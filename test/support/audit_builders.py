"""Hand-built catalogs and strategies for the audit and reduction tests."""

from __future__ import annotations

from collections import deque

from bdi_supervisor.catalog.model import Capability, Catalog
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState


def make_catalog(caps: dict[str, tuple], sm_outcomes: tuple[str, ...] = ("finished",)) -> Catalog:
    """``caps``: name → (outcomes tuple[, max_consecutive_failures])."""
    capabilities = {}
    for name, spec in caps.items():
        outcomes = spec[0]
        bound = spec[1] if len(spec) > 1 else None
        capabilities[name] = Capability(name, "LogState", outcomes=tuple(outcomes),
                                        max_consecutive_failures=bound)
    return Catalog("test", capabilities,
                   sm_outcome_mappings={o: o for o in sm_outcomes})


def _parse(text: str) -> dict:
    values: dict = {}
    for token in text.split():
        if "=" in token:
            name, value = token.split("=")
            values[name] = int(value)
        else:
            values[token] = True
    return values


def one_hot(catalog: Catalog, rows: list[tuple], initial: tuple[int, ...] = (0,),
            extra_inputs: tuple[str, ...] = (), extra_outputs: tuple[str, ...] = ()) -> Strategy:
    """Rows ``(inputs, outputs, successors)``; inputs/outputs are space-separated true props."""
    env = [f"{c}_{catalog.outcome_suffix(o)}" for c in sorted(catalog.capabilities)
           for o in catalog.capabilities[c].outcomes] + list(extra_inputs)
    sys = [f"{c}_a" for c in sorted(catalog.capabilities)]
    sys += [f"{c}_p" for c in sorted(catalog.capabilities)
            if catalog.capabilities[c].failure_capable]
    sys += sorted(set(catalog.sm_outcome_mappings.values())) + list(extra_outputs)
    variables = [Variable(n, "env") for n in env] + [Variable(n, "sys") for n in sys]
    states = []
    for index, (inputs, outputs, succs) in enumerate(rows):
        given_in, given_out = _parse(inputs), _parse(outputs)
        states.append(StrategyState(
            index, {n: given_in.get(n, False) for n in env},
            {n: given_out.get(n, False) for n in sys}, list(succs), 0, index in initial))
    return Strategy(variables, states, "hand")


def enumerated(catalog: Catalog, rows: list[tuple], initial: tuple[int, ...] = (0,)) -> Strategy:
    """Rows ``(inputs, outputs, successors)`` with outputs like ``"capability=2 finished"``."""
    env = list(catalog.transition_outcomes)
    n = len(catalog.capabilities)
    sm = sorted(set(catalog.sm_outcome_mappings.values()))
    variables = [Variable(x, "env") for x in env]
    variables += [Variable("capability", "sys", "int", 0, n)]
    variables += [Variable(x, "sys") for x in sm]
    states = []
    for index, (inputs, outputs, succs) in enumerate(rows):
        given_in, given_out = _parse(inputs), _parse(outputs)
        out = {"capability": given_out.get("capability", 0)}
        out.update({x: given_out.get(x, False) for x in sm})
        states.append(StrategyState(index, {x: given_in.get(x, False) for x in env}, out,
                                    list(succs), 0, index in initial))
    return Strategy(variables, states, "hand-enumerated")


#: coffee base: bd → gr → br, all completion-only, no SM outcome (goal GF br_c)
COFFEE = make_catalog({"bd": (("completed",),), "gr": (("completed",),),
                       "br": (("completed",),)}, sm_outcomes=())


def coffee_strategy() -> Strategy:
    """The 4-state coffee capability strategy (reduces to 3: the start merges with 'after br')."""
    return one_hot(COFFEE, [
        ("", "bd_a", [1]),
        ("bd_c", "gr_a", [2]),
        ("gr_c", "br_a", [3]),
        ("br_c", "bd_a", [1]),
    ])


def reach_from(adj, start, strict=False):
    """Nodes reachable from ``start`` (in at least one step when ``strict``)."""
    seen = set() if strict else {start}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for t in adj[u]:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return seen
