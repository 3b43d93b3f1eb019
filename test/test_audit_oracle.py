"""Audit verdicts against a brute-force explicit oracle on random one-hot strategies.

The oracle is written from the defect definitions, with different algorithms: reachability by
per-node searches (no SCCs), bounded failures by enumerating paths (no product), livelocks by
pairwise reachability in the goal-free graph.
"""

import itertools
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st
from support.audit_builders import make_catalog, one_hot

from bdi_supervisor.audit import AuditOptions, audit
from bdi_supervisor.audit.record import (
    BOUNDED_FAILURE_VIOLATION,
    DEADLOCK,
    ENVIRONMENT_SUSTAINED_LIVELOCK,
    GOAL_UNREACHABLE_TRAP,
    PROTOCOL_VIOLATION,
)
from bdi_supervisor.spec.formula import Not, Or, Var

CATALOG = make_catalog({"x": (("completed", "failure"), 1), "y": (("completed",),)})
DECLARED = {"x": ("x_c", "x_f"), "y": ("y_c",)}
OUTCOME_PROPS = ("x_c", "x_f", "y_c")
FAIR_X = Or((Not(Var("x_a")), Var("x_c", True)))

OUTPUT_CHOICES = ["x_a x_p", "y_a", "finished", "x_a", "x_a y_a"]
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
        outputs = draw(st.sampled_from(OUTPUT_CHOICES[:4] if draw(st.integers(0, 9)) else
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


def oracle(strategy, fairness):
    states = strategy.states
    act = [[c for c in ("x", "y") if s.outputs[f"{c}_a"]] for s in states]
    seen_props = [[p for p in OUTCOME_PROPS if s.inputs[p]] for s in states]
    finished = [s.outputs["finished"] for s in states]
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
    return kinds


def _fair_x(src, dst):
    return not src.get("x_a") or bool(dst.get("x_c"))


@settings(max_examples=400, deadline=None)
@given(strategies(), st.booleans())
def test_audit_matches_brute_force_oracle(strategy, with_fairness):
    fairness = [_fair_x] if with_fairness else []
    options = AuditOptions(livelock="defect", env_liveness=[FAIR_X] if with_fairness else [])
    record = audit(strategy, CATALOG, ["finished"], options)
    assert set(record.defect_kinds) == oracle(strategy, fairness), record.to_json()
