"""Reducer properties on random Mealy strategies, checked by searches written here.

- output-trace equivalence with the raw strategy (synchronous product search over state pairs);
- minimality: no two reduced states are bisimilar (naive greatest-fixpoint bisimulation);
- the reduced size equals the number of bisimulation classes of the raw reachable states;
- independence of state order, idempotence, deterministic numbering, provenance.
"""

from collections import deque

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.audit_builders import coffee_strategy

from bdi_supervisor.reduce import reduce
from bdi_supervisor.reduce.sweep import reference_sweep
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis import strategy as strategy_io
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

INPUTS = ("x", "y")
OUTPUTS = ("a", "b", "c_p")  # c_p is a pending bit: masked
VALUATIONS = [{"x": x, "y": y} for x in (False, True) for y in (False, True)]


@st.composite
def mealy(draw, max_states=12):
    """A random raw strategy: each edge's input valuation is its target's arrival inputs."""
    n = draw(st.integers(1, max_states))
    arrival = [draw(st.integers(0, 3)) for _ in range(n)]
    arrival[0] = 0
    outs = [draw(st.tuples(st.booleans(), st.booleans(), st.booleans())) for _ in range(n)]
    by_valuation = {v: [i for i in range(n) if arrival[i] == v] for v in range(4)}
    present = [v for v in range(4) if by_valuation[v]]
    states = []
    for i in range(n):
        labels = draw(st.lists(st.sampled_from(present), max_size=len(present), unique=True))
        if not labels and draw(st.integers(0, 9)) > 0:
            labels = [present[0]]
        succs = [draw(st.sampled_from(by_valuation[v])) for v in labels]
        states.append(StrategyState(i, dict(VALUATIONS[arrival[i]]),
                                    dict(zip(OUTPUTS, outs[i])), succs, 0, i == 0))
    variables = [Variable(v, "env") for v in INPUTS] + [Variable(v, "sys") for v in OUTPUTS]
    return Strategy(variables, states, "random")


def core(outputs):
    return tuple(sorted((k, v) for k, v in outputs.items() if not k.endswith("_p")))


def labelled_edges(strategy, state_id):
    return {tuple(sorted(i.items())): t for i, t in strategy.edges(state_id)}


def reachable(strategy):
    seen = {s.id for s in strategy.states if s.initial}
    queue = deque(seen)
    while queue:
        u = queue.popleft()
        for t in strategy.state(u).successors:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return seen


def trace_equivalent(raw, reduced):
    """Product search: every reachable pair agrees on core outputs and on the edge label sets."""
    (start,) = [s.id for s in reduced.initial_states]
    if reduced.state(start).inputs != raw.state(0).inputs:
        return False
    seen = {(0, start)}
    queue = deque(seen)
    while queue:
        r, q = queue.popleft()
        if core(raw.state(r).outputs) != core(reduced.state(q).outputs):
            return False
        raw_edges, red_edges = labelled_edges(raw, r), labelled_edges(reduced, q)
        if raw_edges.keys() != red_edges.keys():
            return False
        for label, target in raw_edges.items():
            pair = (target, red_edges[label])
            if pair not in seen:
                seen.add(pair)
                queue.append(pair)
    return True


def bisimulation(strategy, ids):
    """Naive greatest fixpoint over all pairs of ``ids``."""
    edges = {i: labelled_edges(strategy, i) for i in ids}
    relation = {(p, q) for p in ids for q in ids
                if core(strategy.state(p).outputs) == core(strategy.state(q).outputs)
                and edges[p].keys() == edges[q].keys()}
    changed = True
    while changed:
        changed = False
        for p, q in list(relation):
            if any((edges[p][a], edges[q][a]) not in relation for a in edges[p]):
                relation.discard((p, q))
                changed = True
    return relation


def classes(relation, ids):
    return len({frozenset(q for q in ids if (p, q) in relation) for p in ids})


def permuted(strategy, order):
    """The same machine with state ids renamed by ``order`` (state ``order[k]`` becomes ``k``)."""
    rename = {old: new for new, old in enumerate(order)}
    states = [StrategyState(rename[s.id], s.inputs, s.outputs,
                            [rename[t] for t in s.successors], s.rank, s.initial)
              for s in sorted(strategy.states, key=lambda s: rename[s.id])]
    return Strategy(strategy.variables, states, strategy.name)


@settings(max_examples=200, deadline=None)
@given(mealy())
def test_reduced_is_trace_equivalent_and_minimal(raw):
    reduced = reduce(raw)
    assert reduced.metadata["reduced"] is True
    assert trace_equivalent(raw, reduced)
    ids = [s.id for s in reduced.states]
    relation = bisimulation(reduced, ids)
    assert all(p == q for p, q in relation), "two reduced states are equivalent"
    live = sorted(reachable(raw))
    assert len(reduced.states) == classes(bisimulation(raw, live), live)
    merged = sorted(r for ids in reduced.metadata["provenance"].values() for r in ids)
    assert merged == live


@settings(max_examples=100, deadline=None)
@given(mealy(), st.randoms(use_true_random=False))
def test_reduction_is_order_independent_and_idempotent(raw, rnd):
    reduced = reduce(raw)
    order = [0, *rnd.sample(range(1, len(raw.states)), len(raw.states) - 1)]
    assert len(reduce(permuted(raw, order)).states) == len(reduced.states)
    again = reduce(reduced)
    assert len(again.states) == len(reduced.states)
    assert reduce(raw) == reduced  # deterministic numbering


def test_coffee_reduces_four_to_three_and_round_trips(tmp_path):
    raw = coffee_strategy()
    reduced = reduce(raw)
    assert (len(raw.states), len(reduced.states)) == (4, 3)
    assert reduced.metadata["provenance"] == {"0": [0, 3], "1": [1], "2": [2]}
    # the merged start state keeps the initial inputs; its edge labels are the raw ones
    assert reduced.state(2).edge_inputs == [raw.state(3).inputs]
    path = tmp_path / "reduced.json"
    strategy_io.save(reduced, path)
    assert strategy_io.load(path) == reduced


def test_pending_bits_masked_only_when_asked():
    raw = Strategy(
        [Variable("x", "env"), Variable("a", "sys"), Variable("c_p", "sys")],
        [StrategyState(0, {"x": False}, {"a": True, "c_p": False}, [1], 0, True),
         StrategyState(1, {"x": True}, {"a": True, "c_p": True}, [1])])
    assert len(reduce(raw).states) == 1
    assert len(reduce(raw, mask_suffixes=()).states) == 2
    assert len(reduce(raw, mask_suffixes=(), masked=["c_p"]).states) == 1


def _two_branches():
    """X -x-> A1 -> B1 -> C, X -y-> A2 -> B2 -> C; A1~A2 and B1~B2 (C loops)."""
    variables = [Variable("x", "env"), Variable("y", "env"), Variable("o", "sys",
                                                                                "int", 0, 3)]
    rows = [({}, 0, [1, 2]), ({"x": True}, 1, [3]), ({"y": True}, 1, [4]), ({}, 2, [5]),
            ({}, 2, [5]), ({}, 3, [5])]
    states = [StrategyState(i, {"x": False, "y": False, **inp}, {"o": out}, succ, 0, i == 0)
              for i, (inp, out, succ) in enumerate(rows)]
    return Strategy(variables, states, "branches")


def test_reference_sweep_is_single_pass_and_order_dependent():
    raw = _two_branches()
    assert len(reduce(raw).states) == 4
    swept = reference_sweep(raw)
    assert len(swept.states) == 5  # B1/B2 merge, but A1/A2 are not revisited
    assert trace_equivalent(raw, reduce(raw))
    # listing the B states first lets the sweep find both merges: order dependence
    assert len(reference_sweep(permuted(raw, [0, 3, 4, 1, 2, 5])).states) == 4
    assert len(reference_sweep(coffee_strategy()).states) == 3


@settings(max_examples=100, deadline=None)
@given(mealy())
def test_reference_sweep_never_beats_the_partition(raw):
    swept = reference_sweep(raw)
    # the sweep starts from a root without incoming edges; compare only when that is state 0
    assume(any(0 in ids for ids in swept.metadata["provenance"].values()))
    assert len(reduce(raw).states) <= len(swept.states)


def test_one_initial_state_per_initial_input():
    variables = [Variable("x", "env"), Variable("item", "sys", "int", 0, 3)]
    states = [StrategyState(0, {"x": False}, {"item": 1}, [3], 0, True),
              StrategyState(1, {"x": False}, {"item": 3}, [3], 0, True),   # same input: dropped
              StrategyState(2, {"x": True}, {"item": 2}, [3], 0, True),    # other input: kept
              StrategyState(3, {"x": False}, {"item": 0}, [3])]
    raw = Strategy(variables, states)
    reduced = reduce(raw)
    assert [ids for ids in reduced.metadata["provenance"].values()] == [[0], [2], [3]]
    assert [s.initial for s in reduced.states] == [True, True, False]
    assert reduced.state(1).inputs == {"x": True}
    assert len(reduce(raw, determinize_initial=False).states) == 4
