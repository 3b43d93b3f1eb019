"""Audit verdicts against a brute-force explicit oracle on random one-hot strategies.

The oracle is written from the defect definitions, with different algorithms: reachability by
per-node searches (no SCCs), bounded failures by enumerating paths (no product), livelocks by
pairwise reachability in the goal-free graph, nominal livelocks by enumerating every set of
states and checking it against the definition (no SCCs, no refinement). The nominal oracle reads
edges through ``Strategy.edges``, so it judges reduced strategies as well; every counterexample
of the auditor is replayed as a lasso.
"""

import itertools

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.audit_builders import make_catalog, one_hot, reach_from

from bdi_supervisor.audit import AuditOptions, audit
from bdi_supervisor.audit.record import (
    BOUNDED_FAILURE_VIOLATION,
    DEADLOCK,
    ENVIRONMENT_SUSTAINED_LIVELOCK,
    GOAL_UNREACHABLE_TRAP,
    NOMINAL_LIVELOCK,
    PROTOCOL_VIOLATION,
)
from bdi_supervisor.reduce import reduce
from bdi_supervisor.spec.formula import And, Not, Or, Var

CATALOG = make_catalog({"x": (("completed", "failure"), 1), "y": (("completed",),)},
                       sm_outcomes=("finished", "aborted"))
DECLARED = {"x": ("x_c", "x_f"), "y": ("y_c",)}
OUTCOME_PROPS = ("x_c", "x_f", "y_c")
FAILURES = ("x_f",)
GOALS = ["finished", "aborted"]
#: Fair-Outcome GF(!x_a | x_c') and its pending form GF(!x_p | x_c')
FAIR_X = Or((Not(Var("x_a")), Var("x_c", True)))
PENDING_X = Or((Not(Var("x_p")), Var("x_c", True)))

OUTPUT_CHOICES = ["x_a x_p", "y_a", "finished", "y_a x_p", "aborted", "x_a", "x_a y_a"]
INPUT_CHOICES = ["", "x_c", "x_f", "y_c", "x_c y_c"]


def _consistent(outputs, inputs):
    """Whether arriving with ``inputs`` after ``outputs`` respects the protocol."""
    active = [c for c in ("x", "y") if f"{c}_a" in outputs.split()]
    if not active:
        return inputs == ""
    return len(active) == 1 and inputs in DECLARED[active[0]]


@st.composite
def strategies(draw):
    """Random strategies, mostly protocol-respecting (so the other classes show up too)."""
    n = draw(st.integers(1, 6))
    rows = []
    for i in range(n):
        outputs = draw(st.sampled_from(OUTPUT_CHOICES[:5] if draw(st.integers(0, 9)) else
                                       OUTPUT_CHOICES))
        inputs = "" if i == 0 and draw(st.integers(0, 4)) else draw(st.sampled_from(
            INPUT_CHOICES[:4] if draw(st.integers(0, 9)) else INPUT_CHOICES))
        rows.append([inputs, outputs, []])
    for row in rows:
        good = [j for j, other in enumerate(rows) if _consistent(row[1], other[0])]
        pool = good if good and draw(st.integers(0, 5)) else list(range(n))
        size = draw(st.integers(0 if draw(st.integers(0, 9)) == 0 else 1, 2))
        row[2] = sorted(set(draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))))
    return one_hot(CATALOG, [tuple(r) for r in rows])


def _targets(draw, label, n, ends, working, door_ends):
    """Where an edge may go: an open door out of the mission (when ``door_ends``), a failure
    to an SM outcome half of the time (the way out of a vacuous loop), otherwise mostly to an
    activation."""
    if ends and ((door_ends and label.get("door")) or (label.get("x_f") and draw(st.booleans()))):
        return ends
    return working if working and draw(st.integers(0, 3)) else range(n)


@st.composite
def sensor_strategies(draw):
    """Protocol-respecting strategies with labelled edges (as the reducer writes them) and a
    sensor input ``door`` besides the outcomes: each activation has an edge per declared outcome
    for one or both sensor values, to any state, so non-trap cycles, pending bits and
    assumptions on the sensor (met, or merely enabled) are common."""
    n = draw(st.integers(2, 9))
    base = one_hot(CATALOG, [("", draw(st.sampled_from(OUTPUT_CHOICES[:5])), [])
                             for _ in range(n)], extra_inputs=("door",))
    blank = dict(base.states[0].inputs)
    ends = [s.id for s in base.states if not (s.outputs["x_a"] or s.outputs["y_a"])]
    working = [s.id for s in base.states if s.id not in ends]
    #: an open door leads out of the mission (the environment may never open it)
    door_ends = bool(ends) and draw(st.booleans())
    for state in base.states:
        active = [c for c in ("x", "y") if state.outputs[f"{c}_a"]]
        doors = (False, True) if draw(st.booleans()) else (False,)
        labels = [{**blank, prop: True, "door": door}
                  for prop in (DECLARED[active[0]] if active else ()) for door in doors]
        if not active and not draw(st.integers(0, 3)):
            labels = [blank]  # an SM outcome state that loops on itself
        labels = [label for label in labels if draw(st.integers(0, 3))]
        state.successors = [draw(st.sampled_from(_targets(draw, label, n, ends, working,
                                                          door_ends))) for label in labels]
        state.edge_inputs = labels
    return base


def oracle(strategy, fairness):
    states = strategy.states
    act = [[c for c in ("x", "y") if s.outputs[f"{c}_a"]] for s in states]
    seen_props = [[p for p in OUTCOME_PROPS if s.inputs[p]] for s in states]
    finished = [s.outputs["finished"] or s.outputs["aborted"] for s in states]
    adj = {s.id: (list(s.successors) or ([s.id] if finished[s.id] else [])) for s in states}
    virtual = {s.id for s in states if not s.successors and finished[s.id]}
    live = reach_from(adj, 0)
    kinds = set()
    # protocol and deadlock
    if seen_props[0] or any(len(act[u]) > 1 for u in live):
        kinds.add(PROTOCOL_VIOLATION)
    for u in live:
        if not adj[u]:
            kinds.add(DEADLOCK)
        if len(act[u]) > 1 or u in virtual:
            continue
        for t in adj[u]:
            if not act[u] and seen_props[t]:
                kinds.add(PROTOCOL_VIOLATION)
            if act[u] and (len(seen_props[t]) != 1 or seen_props[t][0] not in DECLARED[act[u][0]]):
                kinds.add(PROTOCOL_VIOLATION)
        if act[u] and adj[u]:
            for prop in DECLARED[act[u][0]]:
                if not any(seen_props[t] == [prop] for t in adj[u]):
                    kinds.add(DEADLOCK)
    # bounded failures of x (bound 1): enumerate paths, recomputing the streak from the path
    limit = 2 * len(states) + 2
    stack = [[0]]
    while stack and BOUNDED_FAILURE_VIOLATION not in kinds:
        path = stack.pop()
        streak = 0
        for a, b in itertools.pairwise(path):
            if act[a] == ["x"] and seen_props[b] == ["x_f"] and a not in virtual:
                streak += 1
                if streak > 1:
                    kinds.add(BOUNDED_FAILURE_VIOLATION)
            elif act[a] == ["x"] and seen_props[b] == ["x_c"]:
                streak = 0
            if act[b] and act[b] != ["x"] and len(act[b]) == 1:
                streak = 0
        if len(path) < limit:
            stack.extend([*path, t] for t in adj[path[-1]] if path[-1] not in virtual)
    # traps: a node on a cycle with no goal edge on a cycle reachable from it
    reach = {u: reach_from(adj, u) for u in adj}
    reach_plus = {u: reach_from(adj, u, strict=True) for u in adj}
    goal_edges = [(a, b) for a in adj for b in adj[a] if finished[b]]
    cyclic_goal = [(a, b) for a, b in goal_edges if a in reach[b]]
    can_reach_goal = {u: any(a in reach[u] for a, _ in cyclic_goal) for u in adj}
    for u in live:
        if u in reach_plus[u] and not can_reach_goal[u]:
            kinds.add(GOAL_UNREACHABLE_TRAP)
    # livelocks: a goal-free closed walk meeting every assumption, from which a goal cycle is
    # reachable
    free = {u: [t for t in adj[u] if not finished[t]] for u in adj}
    free_reach = {u: reach_from(free, u) for u in adj}
    free_plus = {u: reach_from(free, u, strict=True) for u in adj}

    def assumption_edges(j):
        fn = fairness[j]
        return [(a, b) for a in free for b in free[a]
                if fn({**states[a].inputs, **states[a].outputs},
                      {**states[b].inputs, **states[b].outputs})]

    edge_sets = [assumption_edges(j) for j in range(len(fairness))]
    for u in live:
        if not can_reach_goal[u] or u not in free_plus[u]:
            continue
        if all(any(a in free_reach[u] and u in free_reach[b] for a, b in edges)
               for edges in edge_sets):
            kinds.add(ENVIRONMENT_SUSTAINED_LIVELOCK)
    if nominal_oracle(strategy, fairness):
        kinds.add(NOMINAL_LIVELOCK)
    return kinds


def _fair_x(src, dst):
    return not src.get("x_a") or bool(dst.get("x_c"))


def _pending_x(src, dst):
    return not src.get("x_p") or bool(dst.get("x_c"))


def _door(src, dst):
    return bool(dst.get("door"))


def _door_x(src, dst):
    return bool(dst.get("door") and dst.get("x_c"))


ASSUMPTIONS = {"none": ([], []), "fair": ([FAIR_X], [_fair_x]),
               "pending": ([PENDING_X], [_pending_x]),
               "both": ([FAIR_X, PENDING_X], [_fair_x, _pending_x]),
               "door": ([Var("door", True)], [_door]),
               "door&x": ([And((Var("door", True), Var("x_c", True)))], [_door_x]),
               "pending+door": ([PENDING_X, Var("door", True)], [_pending_x, _door])}


def _ends(state) -> bool:
    """The state asserts an SM outcome: the run ends there."""
    return bool(state.outputs["finished"] or state.outputs["aborted"])


def nominal_oracle(strategy, fairness) -> list[frozenset]:
    """Every set S of states that a lasso can repeat forever: reachable, inside a part of the
    graph from which a goal cycle is reachable, no state ending the run, strongly connected by
    edges that observe no failure and do not arrive at ``finished`` (the one success goal), and
    fair: each assumption is met on such an edge inside S or is met by no failure-free edge of
    any state of S. Found by trying every set of states."""
    states = strategy.states
    edges = {s.id: strategy.edges(s.id) for s in states}
    adj = {u: [t for _, t in edges[u]] or ([u] if _ends(states[u]) else []) for u in edges}
    reach = {u: reach_from(adj, u) for u in adj}
    live = set().union(*(reach[s.id] for s in states if s.initial)) if states else set()
    on_goal_cycle = {a for a in adj for b in adj[a] if _ends(states[b]) and a in reach[b]}
    candidates = sorted(u for u in live if u in reach_from(adj, u, strict=True)
                        and reach[u] & on_goal_cycle and not _ends(states[u]))

    def valuation(u, inputs=None):
        return {**(states[u].inputs if inputs is None else inputs), **states[u].outputs}

    def nominal(inputs):
        return not any(inputs.get(p) for p in FAILURES)

    enabled = {u: [any(nominal(i) and fn(valuation(u), valuation(t, i)) for i, t in edges[u])
                   for fn in fairness] for u in candidates}
    found = []
    for size in range(1, len(candidates) + 1):
        for group in itertools.combinations(candidates, size):
            inside = set(group)
            inner = [(u, i, t) for u in group for i, t in edges[u]
                     if t in inside and nominal(i) and not states[t].outputs["finished"]]
            graph = {u: [t for a, _, t in inner if a == u] for u in group}
            if not inner or any(reach_from(graph, u) != inside for u in group):
                continue
            if all(any(fn(valuation(u), valuation(t, i)) for u, i, t in inner)
                   or not any(enabled[u][j] for u in group) for j, fn in enumerate(fairness)):
                found.append(frozenset(group))
    return found


def check_lasso(strategy, defect, fairness) -> None:
    """The counterexample is a lasso of real edges: the prefix from an initial state to the
    cycle's first state, the cycle back to it with no failure and no ``finished``, each
    assumption met on the cycle or met by no failure-free edge of a state on it."""
    states = strategy.states
    trace = defect.trace
    assert states[trace[0].state].initial
    steps = [*trace, *defect.cycle]
    assert defect.cycle and defect.cycle[-1].state == trace[-1].state
    for before, after in itertools.pairwise(steps):
        labels = [{k: v for k, v in i.items() if v is not False}
                  for i, t in strategy.edges(before.state) if t == after.state]
        assert after.inputs in labels, (before, after)
    on_cycle = [trace[-1].state, *(step.state for step in defect.cycle[:-1])]
    assert set(on_cycle) <= set(defect.states)
    for step in defect.cycle:
        assert not any(step.inputs.get(p) for p in FAILURES)
        assert not states[step.state].outputs["finished"] and not _ends(states[step.state])
    cycle_edges = list(zip(on_cycle, defect.cycle))
    for fn in fairness:
        met = any(fn({**states[u].inputs, **states[u].outputs},
                     {**step.inputs, **states[step.state].outputs}) for u, step in cycle_edges)
        chance = any(not any(i.get(p) for p in FAILURES)
                     and fn({**states[u].inputs, **states[u].outputs}, {**i, **states[t].outputs})
                     for u in on_cycle for i, t in strategy.edges(u))
        assert met or not chance


@settings(max_examples=400, deadline=None)
@given(strategies(), st.sampled_from(sorted(ASSUMPTIONS)))
def test_audit_matches_brute_force_oracle(strategy, assumptions):
    formulas, fairness = ASSUMPTIONS[assumptions]
    options = AuditOptions(livelock="defect", env_liveness=formulas)
    record = audit(strategy, CATALOG, GOALS, options)
    assert set(record.defect_kinds) == oracle(strategy, fairness), record.to_json()
    for defect in record.defects:
        if defect.kind == NOMINAL_LIVELOCK:
            check_lasso(strategy, defect, fairness)
    for warning in record.warnings:
        assert warning.kind != NOMINAL_LIVELOCK


@settings(max_examples=400, deadline=None)
@given(st.one_of(strategies(), sensor_strategies()), st.sampled_from(sorted(ASSUMPTIONS)))
def test_nominal_livelocks_are_the_maximal_fair_sets(strategy, assumptions):
    """Each reported set is fair and no fair set lies outside the reported ones (each is
    maximal: the union of two fair sets that share a state is fair as well)."""
    formulas, fairness = ASSUMPTIONS[assumptions]
    record = audit(strategy, CATALOG, GOALS, AuditOptions(env_liveness=formulas,
                                                          max_defects_per_kind=100))
    fair = nominal_oracle(strategy, fairness)
    reported = [frozenset(d.states) for d in record.defects if d.kind == NOMINAL_LIVELOCK]
    assert all(group in fair for group in reported)
    assert all(any(group <= r for r in reported) for group in fair)
    assert len(set(reported)) == len(reported)


@settings(max_examples=300, deadline=None)
@given(st.one_of(strategies(), sensor_strategies()), st.sampled_from(["none", "fair", "door"]))
def test_reduced_strategy_keeps_its_nominal_livelocks(strategy, assumptions):
    """The second audit (structural, on the reduced strategy) finds a nominal livelock exactly
    when the raw strategy has one: for assumptions over capability outputs and outcomes
    (not the pending bits the reduction masks) the reduction preserves them, and the oracle
    judges the reduced strategy on its own edges."""
    formulas, fairness = ASSUMPTIONS[assumptions]
    assume(all(len({tuple(sorted(i.items())) for i, _ in strategy.edges(s.id)})
               == len(s.successors) for s in strategy.states))  # the reducer's input
    reduced = reduce(strategy)
    record = audit(reduced, CATALOG, GOALS, AuditOptions(env_liveness=formulas))
    assert record.mode == "structural"
    found = NOMINAL_LIVELOCK in record.defect_kinds
    assert found == bool(nominal_oracle(reduced, fairness)) == bool(
        nominal_oracle(strategy, fairness)), record.to_json()
    for defect in record.defects:
        if defect.kind == NOMINAL_LIVELOCK:
            check_lasso(reduced, defect, fairness)
