"""The strategy auditor: protocol, deadlock, bounded-failure, trap and livelock checks.

Semantics (notes/reference_pipeline.md §4.3, extended): the strategy is run against a protocol
monitor. The pending capability on an edge ``s -> t`` is the one ``s`` activates (a function of
``s``), so the monitor's only extra state is the vector of consecutive-failure counters of the
capabilities with a finite ``max_consecutive_failures``; the product ``state × counters`` is built
only when such capabilities exist (``B = Π(bound+1)`` nodes per state at most).

- ``PROTOCOL_VIOLATION``: more than one activation; an edge leaving an activation of ``c`` that
  does not observe exactly one declared outcome of ``c``; an outcome observed with nothing pending
  (except generic outcomes leaving the enumerated start-up slot ``capability = 0``) or at an
  initial state.
- ``DEADLOCK``: a reachable state without successors (terminal SM-outcome states are absorbing
  unless configured otherwise), or an activation of ``c`` lacking the successor for one of
  ``c``'s declared outcomes (an admissible input).
- ``BOUNDED_FAILURE_VIOLATION``: a streak of failures of ``c`` longer than its bound; completion
  of ``c`` or the activation of another capability ends the streak.
- ``GOAL_UNREACHABLE_TRAP``: a reachable cyclic SCC with no path to a cyclic SCC that contains a
  goal edge (iterative Tarjan, then a pass over the condensation in reverse topological order).
- ``ENVIRONMENT_SUSTAINED_LIVELOCK``: inside a non-trap SCC, a cycle avoiding goal edges that
  visits an edge of every environment liveness assumption: an environment that respects its
  assumptions can keep the robot there forever (generalized Büchi emptiness per SCC on the
  goal-free subgraph). A warning by default; ``livelock="defect"`` makes it a defect.

Every strategy path lifts to exactly one product path (counters saturate at the bound after a
violation is recorded), so trap and livelock checks on the strategy graph agree with the product.
Everything is linear: O((n+m)(k+1)B) for the product, O((n+m)(k+J)) for the rest.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bdi_supervisor.audit import record as rec
from bdi_supervisor.audit.graph import bfs_tree, path_to, tarjan_scc
from bdi_supervisor.audit.predicates import Predicate, PredicateLike, compile_predicate
from bdi_supervisor.audit.protocol import ENUMERATED, Observation, ProtocolView
from bdi_supervisor.catalog.model import COMPLETED, Catalog
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.synthesis.strategy import Strategy

LIVELOCK_MODES = ("warning", "defect", "off")


@dataclass
class AuditOptions:
    """Knobs of :func:`audit` (defaults suit a raw synthesized strategy)."""

    #: ``one-hot`` | ``enumerated``; ``None`` infers it from the strategy's variables
    encoding: str | None = None
    #: skip protocol and bounded-failure checks; ``None``: when ``metadata["reduced"]`` is set
    structural_only: bool | None = None
    #: environment liveness assumptions ``GF ψ`` as transition predicates ψ
    env_liveness: Sequence[PredicateLike] = ()
    #: what an environment-sustained livelock is: ``warning`` | ``defect`` | ``off``
    livelock: str = "warning"
    time_budget_s: float | None = 5.0
    max_product_states: int | None = 5_000_000
    #: defects reported per kind (all are counted in ``stats["defect_counts"]``)
    max_defects_per_kind: int = 10
    #: a state asserting an SM outcome with no successor is absorbing (not a deadlock)
    terminal_outcomes_absorbing: bool = True


class _Deadline:
    def __init__(self, budget: float | None) -> None:
        self.budget = budget
        self.end = None if budget is None else time.perf_counter() + budget

    def check(self) -> None:
        if self.end is not None and time.perf_counter() > self.end:
            raise BudgetExceeded("time", self.budget)


def _compact(valuation: dict) -> dict:
    """True Booleans and all integers of a valuation (false Booleans dropped)."""
    return {k: v for k, v in valuation.items() if v is not False}


@dataclass
class _Context:
    strategy: Strategy
    view: ProtocolView
    options: AuditOptions
    deadline: _Deadline
    defects: list[rec.Defect] = field(default_factory=list)
    warnings: list[rec.Defect] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    reported: set = field(default_factory=set)
    stats: dict = field(default_factory=dict)

    def add(self, defect: rec.Defect, key: object, warning: bool = False) -> None:
        if (defect.kind, key) in self.reported:
            return
        self.reported.add((defect.kind, key))
        self.counts[defect.kind] = self.counts.get(defect.kind, 0) + 1
        target = self.warnings if warning else self.defects
        if sum(1 for d in target if d.kind == defect.kind) < self.options.max_defects_per_kind:
            target.append(defect)


class _Graph:
    """The reachable strategy graph with per-edge input valuations and labels."""

    def __init__(self, strategy: Strategy, view: ProtocolView, absorbing: bool) -> None:
        states = strategy.states
        self.n = len(states)
        roots = [s.id for s in states if s.initial] or ([0] if states else [])
        self.roots = roots
        self.adj: list[list[int]] = [list(s.successors) for s in states]
        self.virtual = [False] * self.n
        self.terminal = [False] * self.n
        for s in states:
            if not s.successors and absorbing and view.sm_outcomes_of(s.outputs):
                self.adj[s.id] = [s.id]
                self.virtual[s.id] = True
                self.terminal[s.id] = True
        self.order, self.parent = bfs_tree(self.adj, roots)
        self.has_edge_inputs = any(s.edge_inputs is not None for s in states)
        #: arrival valuation of each state (its inputs and outputs)
        self.arrival = [None] * self.n
        for v in self.order:
            s = states[v]
            self.arrival[v] = {**s.inputs, **s.outputs}

    def edge_inputs(self, strategy: Strategy, u: int) -> list[dict]:
        state = strategy.states[u]
        if self.virtual[u]:
            return [state.inputs]
        if state.edge_inputs is not None:
            return state.edge_inputs
        return [strategy.states[t].inputs for t in state.successors]

    def edge_arrival(self, strategy: Strategy, u: int) -> list[dict]:
        """The valuation on arrival over each edge of ``u`` (edge input ∪ target outputs)."""
        if not self.has_edge_inputs or self.virtual[u]:
            return [self.arrival[t] for t in self.adj[u]]
        inputs = self.edge_inputs(strategy, u)
        return [{**i, **strategy.states[t].outputs} for i, t in zip(inputs, self.adj[u])]


def _trace(ctx: _Context, graph: _Graph, path: list[int], last_input: dict | None = None
           ) -> list[rec.Step]:
    strategy = ctx.strategy
    steps = []
    for pos, v in enumerate(path):
        state = strategy.states[v]
        if pos == 0:
            inputs = state.inputs
        else:
            u = path[pos - 1]
            inputs = state.inputs
            for i, t in zip(graph.edge_inputs(strategy, u), graph.adj[u]):
                if t == v:
                    inputs = i
                    break
        if pos == len(path) - 1 and last_input is not None:
            inputs = last_input
        steps.append(rec.Step(v, _compact(inputs), _compact(state.outputs),
                              ctx.view.describe(inputs, state.outputs)))
    return steps


def _state_trace(ctx: _Context, graph: _Graph, v: int) -> list[rec.Step]:
    return _trace(ctx, graph, path_to(graph.parent, v))


def _edge_trace(ctx: _Context, graph: _Graph, u: int, t: int, inputs: dict) -> list[rec.Step]:
    return _trace(ctx, graph, [*path_to(graph.parent, u), t], inputs)


def _check_edge(view: ProtocolView, pending: str | None, observed: list[Observation],
                source_enumerated_start: bool) -> str | None:
    """Why an edge leaving an activation of ``pending`` breaks the protocol (``None`` if not)."""
    if pending is None:
        if observed and not source_enumerated_start:
            names = ", ".join(o.proposition for o in observed)
            return f"outcome {names} observed with no capability pending"
        return None
    if not observed:
        return f"no outcome of pending capability {pending} observed"
    if len(observed) > 1:
        names = ", ".join(o.proposition for o in observed)
        return f"several outcomes observed at once ({names}) for {pending}"
    obs = observed[0]
    if obs.capability is not None and obs.capability != pending:
        return f"outcome {obs.proposition} of {obs.capability} observed while {pending} is pending"
    if obs.outcome not in view.declared_outcomes(pending):
        return f"outcome {obs.outcome} is not declared by {pending}"
    return None


def _protocol_and_deadlock(ctx: _Context, graph: _Graph, structural: bool) -> None:
    strategy, view = ctx.strategy, ctx.view
    enumerated = view.encoding == ENUMERATED
    obs_cache: dict[int, list[Observation]] = {}
    for count, u in enumerate(graph.order):
        if count % 1024 == 0:
            ctx.deadline.check()
        state = strategy.states[u]
        active = view.activated(state.outputs)
        if not structural:
            if len(active) > 1:
                ctx.add(rec.Defect(rec.PROTOCOL_VIOLATION,
                                   f"state {u} activates {', '.join(active)} at once", [u],
                                   _state_trace(ctx, graph, u)), u)
            if state.initial:
                seen = view.observed(state.inputs)
                if seen:
                    names = ", ".join(o.proposition for o in seen)
                    ctx.add(rec.Defect(rec.PROTOCOL_VIOLATION,
                                       f"initial state {u} observes {names} with nothing pending",
                                       [u], _state_trace(ctx, graph, u)), ("init", u))
        if not graph.adj[u]:
            ctx.add(rec.Defect(rec.DEADLOCK, f"state {u} has no successor", [u],
                               _state_trace(ctx, graph, u)), u)
            continue
        if graph.virtual[u] or len(active) > 1:
            continue
        pending = active[0] if active else None
        start_slot = enumerated and pending is None
        inputs_list = graph.edge_inputs(strategy, u)
        seen_outcomes: set[str] = set()
        for inputs, t in zip(inputs_list, graph.adj[u]):
            if graph.has_edge_inputs:
                observed = view.observed(inputs)
            else:
                observed = obs_cache.get(t)
                if observed is None:
                    observed = obs_cache[t] = view.observed(inputs)
            if len(observed) == 1 and observed[0].capability in (None, pending):
                seen_outcomes.add(observed[0].outcome)
            if structural:
                continue
            why = _check_edge(view, pending, observed, start_slot)
            if why:
                ctx.add(rec.Defect(rec.PROTOCOL_VIOLATION, f"{u} -> {t}: {why}", [u, t],
                                   _edge_trace(ctx, graph, u, t, inputs), pending), (u, t))
        if pending is not None:
            for outcome in view.declared_outcomes(pending):
                if view.outcome_proposition(pending, outcome) and outcome not in seen_outcomes:
                    ctx.add(rec.Defect(rec.DEADLOCK,
                                       f"state {u} activates {pending} but has no successor for "
                                       f"its outcome {outcome}", [u],
                                       _state_trace(ctx, graph, u), pending,
                                       {"missing_outcome": outcome}), (u, outcome))


def _bounded_failures(ctx: _Context, graph: _Graph) -> int:
    """BFS over state × failure counters; returns the number of product states."""
    strategy, view = ctx.strategy, ctx.view
    bounded = sorted(name for name, cap in view.catalog.capabilities.items()
                     if cap.max_consecutive_failures is not None)
    if not bounded:
        return len(graph.order)
    slot = {name: index for index, name in enumerate(bounded)}
    bounds = [view.catalog.capabilities[name].max_consecutive_failures for name in bounded]
    limit = ctx.options.max_product_states
    single = []
    for s in strategy.states:
        active = view.activated(s.outputs)
        single.append(active[0] if len(active) == 1 else None)
    zero = (0,) * len(bounded)
    ids: dict[tuple[int, tuple[int, ...]], int] = {}
    nodes: list[tuple[int, tuple[int, ...]]] = []
    parent: list[int] = []
    for root in graph.roots:
        key = (root, zero)
        if key not in ids:
            ids[key] = len(nodes)
            nodes.append(key)
            parent.append(-1)
    head = 0
    while head < len(nodes):
        if head % 1024 == 0:
            ctx.deadline.check()
        u, counters = nodes[head]
        here = head
        head += 1
        if graph.virtual[u]:
            continue
        pending = single[u]
        inputs_list = graph.edge_inputs(strategy, u)
        for inputs, t in zip(inputs_list, graph.adj[u]):
            new = list(counters)
            if pending in slot:
                observed = view.observed(inputs)
                if len(observed) == 1 and observed[0].capability in (None, pending):
                    k = slot[pending]
                    if observed[0].outcome == COMPLETED:
                        new[k] = 0
                    else:
                        streak = counters[k] + 1
                        if streak > bounds[k]:
                            path = [nodes[here][0]]
                            back = parent[here]
                            while back >= 0:
                                path.append(nodes[back][0])
                                back = parent[back]
                            path.reverse()
                            path.append(t)
                            ctx.add(rec.Defect(
                                rec.BOUNDED_FAILURE_VIOLATION,
                                f"{pending} fails {streak} times in a row (bound "
                                f"{bounds[k]}) at {u} -> {t}", [u, t],
                                _trace(ctx, graph, path, inputs), pending,
                                {"bound": bounds[k], "streak": streak}), (u, t, pending))
                        new[k] = min(streak, bounds[k])
            nxt = single[t]
            if nxt is not None:
                for name, k in slot.items():
                    if name != nxt:
                        new[k] = 0
            key = (t, tuple(new))
            if key not in ids:
                if limit is not None and len(nodes) >= limit:
                    raise BudgetExceeded("product states", limit)
                ids[key] = len(nodes)
                nodes.append(key)
                parent.append(here)
    return len(nodes)


def _sccs(graph: _Graph, adj: Sequence[Sequence[int]], starts: Sequence[int]
          ) -> tuple[list[int], list[list[int]], list[bool]]:
    comp, count = tarjan_scc(adj, starts)
    members: list[list[int]] = [[] for _ in range(count)]
    for v in graph.order:
        if comp[v] >= 0:
            members[comp[v]].append(v)
    cyclic = [len(m) > 1 for m in members]
    for c, m in enumerate(members):
        if len(m) == 1 and m[0] in adj[m[0]]:
            cyclic[c] = True
    return comp, members, cyclic


def _first_reached(graph: _Graph, members: list[int], rank: list[int]) -> int:
    return min(members, key=lambda v: rank[v])


def _goal_flags(strategy: Strategy, graph: _Graph, goals: list[Predicate],
                deadline: _Deadline) -> list[list[bool]]:
    flags: list[list[bool]] = [[] for _ in range(graph.n)]
    arrival_only = all(g.arrival_only for g in goals)
    state_goal: dict[int, bool] = {}
    for count, u in enumerate(graph.order):
        if count % 1024 == 0:
            deadline.check()
        src = graph.arrival[u]
        if arrival_only and not graph.has_edge_inputs:
            row = []
            for t in graph.adj[u]:
                hit = state_goal.get(t)
                if hit is None:
                    dst = graph.arrival[t]
                    hit = state_goal[t] = any(g.fn(src, dst) for g in goals)
                row.append(hit)
            flags[u] = row
        else:
            flags[u] = [any(g.fn(src, dst) for g in goals)
                        for dst in graph.edge_arrival(strategy, u)]
    return flags


def _traps_and_livelocks(ctx: _Context, graph: _Graph, goals: list[Predicate],
                         env_liveness: list[Predicate]) -> None:
    strategy = ctx.strategy
    rank = [0] * graph.n
    for position, v in enumerate(graph.order):
        rank[v] = position
    flags = _goal_flags(strategy, graph, goals, ctx.deadline)
    comp, members, cyclic = _sccs(graph, graph.adj, graph.roots)
    ctx.deadline.check()
    count = len(members)
    good = [False] * count
    for u in graph.order:
        c = comp[u]
        if not good[c] and cyclic[c]:
            for t, hit in zip(graph.adj[u], flags[u]):
                if hit and comp[t] == c:
                    good[c] = True
                    break
    ok = list(good)
    for c in range(count):  # emission order: successors' components come first
        if ok[c]:
            continue
        for u in members[c]:
            if any(ok[comp[t]] for t in graph.adj[u]):
                ok[c] = True
                break
    ctx.stats["sccs"] = count
    ctx.stats["cyclic_sccs"] = sum(cyclic)
    ctx.stats["goal_sccs"] = sum(good)
    for c in sorted(range(count), key=lambda c: min(rank[v] for v in members[c])):
        if cyclic[c] and not ok[c]:
            first = _first_reached(graph, members[c], rank)
            states = sorted(members[c])
            ctx.add(rec.Defect(rec.GOAL_UNREACHABLE_TRAP,
                               f"{len(states)} state(s) from which no goal can be reached again",
                               states, _state_trace(ctx, graph, first)), tuple(states))
    if ctx.options.livelock == "off":
        return
    ctx.deadline.check()
    sub: list[list[int]] = [[] for _ in range(graph.n)]
    starts = []
    for u in graph.order:
        c = comp[u]
        if not (ok[c] and cyclic[c]):
            continue
        starts.append(u)
        sub[u] = [t for t, hit in zip(graph.adj[u], flags[u]) if not hit and comp[t] == c]
    sub_comp, sub_members, sub_cyclic = _sccs(graph, sub, starts)
    for d, states_d in enumerate(sub_members):
        if not sub_cyclic[d]:
            continue
        met = [False] * len(env_liveness)
        for u in states_d:
            if all(met):
                break
            src = graph.arrival[u]
            dsts = graph.edge_arrival(strategy, u)
            for t, hit, dst in zip(graph.adj[u], flags[u], dsts):
                if hit or sub_comp[t] != d:
                    continue
                for j, assumption in enumerate(env_liveness):
                    if not met[j] and assumption.fn(src, dst):
                        met[j] = True
        if not all(met):
            continue
        first = _first_reached(graph, states_d, rank)
        states = sorted(states_d)
        ctx.add(rec.Defect(rec.ENVIRONMENT_SUSTAINED_LIVELOCK,
                           f"the environment can keep the robot in {len(states)} state(s) "
                           "forever while respecting its liveness assumptions, although a way to "
                           "the goal exists", states, _state_trace(ctx, graph, first),
                           details={"assumptions_met": [a.name for a in env_liveness]}),
                tuple(states), warning=ctx.options.livelock == "warning")


def audit(strategy: Strategy, catalog: Catalog,
          goals: Sequence[PredicateLike] | None = None,
          options: AuditOptions | None = None) -> rec.AuditRecord:
    """Audit ``strategy`` against ``catalog``'s protocol and reaching ``goals``.

    ``goals`` are transition predicates (names, formula trees or callables, see
    :mod:`bdi_supervisor.audit.predicates`); ``None`` means the catalog's SM outcomes. A goal is
    a recurrence goal: a cycle must pass through it, so terminal outcomes are absorbing states.
    """
    options = options or AuditOptions()
    if options.livelock not in LIVELOCK_MODES:
        raise ValueError(f"livelock must be one of {LIVELOCK_MODES}, got {options.livelock!r}")
    started = time.perf_counter()
    view = ProtocolView.for_strategy(strategy, catalog, options.encoding)
    structural = options.structural_only
    if structural is None:
        structural = bool(strategy.metadata.get("reduced"))
    if goals is None:
        goals = list(view.sm_outcomes)
    compiled_goals = [compile_predicate(g, i) for i, g in enumerate(goals)]
    env_liveness = [compile_predicate(a, i) for i, a in enumerate(options.env_liveness)]
    ctx = _Context(strategy, view, options, _Deadline(options.time_budget_s))
    incomplete: str | None = None
    graph = _Graph(strategy, view, options.terminal_outcomes_absorbing)
    ctx.stats.update(states=len(strategy.states), transitions=strategy.transition_count(),
                     reachable_states=len(graph.order),
                     reachable_transitions=sum(len(strategy.states[v].successors)
                                               for v in graph.order))
    try:
        if not strategy.states:
            raise ValueError("empty strategy")
        if not strategy.initial_states:
            ctx.warnings.append(rec.Defect("NO_INITIAL_STATE",
                                           "no state is marked initial; state 0 is used", [0]))
        _protocol_and_deadlock(ctx, graph, structural)
        if not structural:
            ctx.stats["product_states"] = _bounded_failures(ctx, graph)
        if compiled_goals:
            _traps_and_livelocks(ctx, graph, compiled_goals, env_liveness)
        else:
            incomplete = "no goal given and the catalog has no SM outcomes: trap check skipped"
    except BudgetExceeded as error:
        incomplete = str(error)
    ctx.stats["defect_counts"] = dict(ctx.counts)
    ctx.stats["time_s"] = time.perf_counter() - started
    if ctx.defects:
        verdict = rec.FAIL
    elif incomplete:
        verdict = rec.INCOMPLETE
    else:
        verdict = rec.PASS
    return rec.AuditRecord(
        verdict=verdict, complete=incomplete is None,
        mode="structural" if structural else "full", encoding=view.encoding,
        goals=[g.name for g in compiled_goals], env_liveness=[a.name for a in env_liveness],
        defects=ctx.defects, warnings=ctx.warnings, incomplete_reason=incomplete,
        stats=ctx.stats, strategy=strategy.name,
    )
