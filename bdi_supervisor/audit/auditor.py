"""The strategy auditor: protocol, deadlock, bounded-failure, trap and livelock checks.

Semantics (the reference pipeline's strategy auditor, extended; docs/audit-reduction.md): the
strategy is run against a protocol monitor. The pending capability on an edge ``s -> t`` is the one
``s`` activates (a function of ``s``), so the monitor's only extra state is the vector of
consecutive-failure counters of the capabilities with a finite ``max_consecutive_failures``; the
product ``state × counters`` is built only when such capabilities exist (``B = Π(bound+1)`` nodes
per state at most).

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
- ``NOMINAL_LIVELOCK``: inside a non-trap SCC, a cycle on which no outcome is a failure and no
  success goal (a goal other than a failure SM outcome) holds, and that meets every assumption
  its states give the environment a chance to meet (a nominal edge of the state meets it): a
  lasso on which the environment never fails and is fair, yet the robot never reaches its goal,
  typically a vacuous win under Fair-Outcome with pending memory (Streett emptiness by SCC
  refinement, :mod:`bdi_supervisor.audit.nominal`). A defect by default;
  ``nominal_livelock="warning"`` makes it a warning.

Every strategy path lifts to exactly one product path (counters saturate at the bound after a
violation is recorded), so trap and livelock checks on the strategy graph agree with the product.
Everything else is linear: O((n+m)(k+1)B) for the product, O((n+m)(k+J)) for the rest, except
the nominal livelock refinement, O(n(n+m) + mJ) at worst and O((n+m)J) when no round removes a
state.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bdi_supervisor.audit import record as rec
from bdi_supervisor.audit.nominal import FairSet, fair_sets
from bdi_supervisor.audit.predicates import Predicate, PredicateLike, compile_predicate
from bdi_supervisor.audit.protocol import ENUMERATED, Observation, ProtocolView
from bdi_supervisor.catalog.model import COMPLETED, Catalog
from bdi_supervisor.common import AuditVerdict
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.graph import bfs_tree, path_to, tarjan_scc
from bdi_supervisor.specgen.propositions import pending_prop
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
    #: what a nominal livelock is: ``defect`` | ``warning`` | ``off``
    nominal_livelock: str = "defect"
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
    shown: dict[tuple[str, bool], int] = field(default_factory=dict)
    reported: set = field(default_factory=set)
    stats: dict = field(default_factory=dict)

    def add(self, kind: str, key: object, build: Callable[[], rec.Defect],
            warning: bool = False) -> None:
        """Count a finding once per ``key``; build it (trace and all) only if it is shown."""
        if (kind, key) in self.reported:
            return
        self.reported.add((kind, key))
        self.counts[kind] = self.counts.get(kind, 0) + 1
        shown = self.shown.get((kind, warning), 0)
        if shown < self.options.max_defects_per_kind:
            self.shown[(kind, warning)] = shown + 1
            (self.warnings if warning else self.defects).append(build())


NOTHING, COMPLETION, FAILURE = 0, 1, 2


class _Graph:
    """The reachable strategy graph with per-edge input valuations and observations."""

    def __init__(self, strategy: Strategy, view: ProtocolView, absorbing: bool) -> None:
        states = strategy.states
        self.strategy = strategy
        self.n = len(states)
        self.roots = [s.id for s in states if s.initial] or ([0] if states else [])
        self.adj: list[list[int]] = [s.successors for s in states]
        self.virtual = [False] * self.n
        for s in states:
            if not s.successors and absorbing and view.sm_outcomes_of(s.outputs):
                self.adj[s.id] = [s.id]
                self.virtual[s.id] = True
        self.order, self.parent = bfs_tree(self.adj, self.roots)
        self.has_edge_inputs = any(s.edge_inputs is not None for s in states)
        self.active: list[list[str]] = [[] for _ in range(self.n)]
        #: observations per edge (lists shared between edges into the same raw state)
        self.edge_obs: list[list[list[Observation]]] = [[] for _ in range(self.n)]
        arrival_obs: dict[int, list[Observation]] = {}
        for u in self.order:
            state = states[u]
            self.active[u] = view.activated(state.outputs)
            if self.has_edge_inputs and not self.virtual[u]:
                self.edge_obs[u] = [view.observed(i) for i in self.edge_inputs(u)]
                continue
            row = []
            for t in self.adj[u]:
                obs = arrival_obs.get(t)
                if obs is None:
                    obs = arrival_obs[t] = view.observed(states[t].inputs)
                row.append(obs)
            self.edge_obs[u] = row
        self._arrival: list[dict | None] = [None] * self.n

    def arrival(self, v: int) -> dict:
        """The arrival valuation of ``v``: its inputs and outputs."""
        value = self._arrival[v]
        if value is None:
            s = self.strategy.states[v]
            value = self._arrival[v] = {**s.inputs, **s.outputs}
        return value

    def edge_inputs(self, u: int) -> list[dict]:
        state = self.strategy.states[u]
        if self.virtual[u]:
            return [state.inputs]
        if state.edge_inputs is not None:
            return state.edge_inputs
        return [self.strategy.states[t].inputs for t in state.successors]

    def edge_arrival(self, u: int) -> list[dict]:
        """The valuation on arrival over each edge of ``u`` (edge input ∪ target outputs)."""
        if not self.has_edge_inputs or self.virtual[u]:
            return [self.arrival(t) for t in self.adj[u]]
        states = self.strategy.states
        return [{**i, **states[t].outputs} for i, t in zip(self.edge_inputs(u), self.adj[u])]


def _trace(ctx: _Context, graph: _Graph, path: list[int], last_input: dict | None = None,
           edges: Sequence[int] | None = None) -> list[rec.Step]:
    """Steps along ``path``; ``edges[i]`` (when given) is the index of the edge taken from
    ``path[i]``, else the first edge to the next state is."""
    strategy = ctx.strategy
    steps = []
    for pos, v in enumerate(path):
        state = strategy.states[v]
        inputs = state.inputs
        if pos > 0:
            u = path[pos - 1]
            if edges is not None:
                inputs = graph.edge_inputs(u)[edges[pos - 1]]
            else:
                inputs = next((i for i, t in zip(graph.edge_inputs(u), graph.adj[u]) if t == v),
                              inputs)
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
    required = {cap: [o for o in view.declared_outcomes(cap) if view.outcome_proposition(cap, o)]
                for cap in view.capabilities}
    for count, u in enumerate(graph.order):
        if count % 1024 == 0:
            ctx.deadline.check()
        state = strategy.states[u]
        active = graph.active[u]
        if not structural:
            if len(active) > 1:
                ctx.add(rec.PROTOCOL_VIOLATION, u, lambda u=u, active=active: rec.Defect(
                    rec.PROTOCOL_VIOLATION, f"state {u} activates {', '.join(active)} at once",
                    [u], _state_trace(ctx, graph, u)))
            if state.initial:
                seen = view.observed(state.inputs)
                if seen:
                    names = ", ".join(o.proposition for o in seen)
                    ctx.add(rec.PROTOCOL_VIOLATION, ("init", u), lambda u=u, names=names:
                            rec.Defect(rec.PROTOCOL_VIOLATION,
                                       f"initial state {u} observes {names} with nothing pending",
                                       [u], _state_trace(ctx, graph, u)))
        if not graph.adj[u]:
            ctx.add(rec.DEADLOCK, u, lambda u=u: rec.Defect(
                rec.DEADLOCK, f"state {u} has no successor", [u], _state_trace(ctx, graph, u)))
            continue
        if graph.virtual[u] or len(active) > 1:
            continue
        pending = active[0] if active else None
        start_slot = enumerated and pending is None
        seen_outcomes: set[str] = set()
        for k, (observed, t) in enumerate(zip(graph.edge_obs[u], graph.adj[u])):
            if len(observed) == 1 and observed[0].capability in (None, pending):
                seen_outcomes.add(observed[0].outcome)
            elif pending is None and not observed:
                continue
            if structural:
                continue
            why = _check_edge(view, pending, observed, start_slot)
            if why:
                ctx.add(rec.PROTOCOL_VIOLATION, (u, t), lambda u=u, t=t, k=k, why=why, p=pending:
                        rec.Defect(rec.PROTOCOL_VIOLATION, f"{u} -> {t}: {why}", [u, t],
                                   _edge_trace(ctx, graph, u, t, graph.edge_inputs(u)[k]), p))
        if pending is not None:
            for outcome in required[pending]:
                if outcome not in seen_outcomes:
                    ctx.add(rec.DEADLOCK, (u, outcome), lambda u=u, o=outcome, p=pending:
                            rec.Defect(rec.DEADLOCK, f"state {u} activates {p} but has no "
                                       f"successor for its outcome {o}", [u],
                                       _state_trace(ctx, graph, u), p, {"missing_outcome": o}))


def _bounded_failures(ctx: _Context, graph: _Graph) -> int:
    """BFS over state × failure counters; returns the number of product states.

    The counters are one mixed-radix integer (digit ``k`` is the streak of the ``k``-th bounded
    capability, ``0..bound``); at most one digit is non-zero since an activation of one capability
    clears the others.
    """
    catalog = ctx.view.catalog
    bounded = sorted(name for name, cap in catalog.capabilities.items()
                     if cap.max_consecutive_failures is not None)
    if not bounded:
        return len(graph.order)
    bounds = [catalog.capabilities[name].max_consecutive_failures for name in bounded]
    radix = [b + 1 for b in bounds]
    weight = [1] * len(bounded)
    for k in range(1, len(bounded)):
        weight[k] = weight[k - 1] * radix[k - 1]
    limit = ctx.options.max_product_states
    single, resets, codes = _streak_edges(graph, bounded)
    total = weight[-1] * radix[-1]
    ids: dict[int, int] = {}
    nodes: list[int] = []  # key = state * total + counters
    parent: list[int] = []
    for root in graph.roots:
        key = root * total
        if key not in ids:
            ids[key] = len(nodes)
            nodes.append(key)
            parent.append(-1)
    head = 0
    while head < len(nodes):
        if head % 1024 == 0:
            ctx.deadline.check()
        u, counters = divmod(nodes[head], total)
        here = head
        head += 1
        if graph.virtual[u]:
            continue
        k = single[u]
        row = codes[u]
        for j, t in enumerate(graph.adj[u]):
            new = counters
            if k >= 0 and row[j] != NOTHING:
                digit = (counters // weight[k]) % radix[k]
                if row[j] == COMPLETION:
                    new = counters - digit * weight[k]
                else:
                    streak = digit + 1
                    if streak > bounds[k]:
                        ctx.add(rec.BOUNDED_FAILURE_VIOLATION, (u, t, k),
                                lambda u=u, t=t, j=j, k=k, here=here, streak=streak:
                                _bounded_defect(ctx, graph, nodes, parent, total, here, u, t, j,
                                                bounded[k], bounds[k], streak))
                        streak = bounds[k]
                    new = counters + (streak - digit) * weight[k]
            if resets[t]:
                m = single[t]
                new = 0 if m < 0 else ((new // weight[m]) % radix[m]) * weight[m]
            key = t * total + new
            if key not in ids:
                if limit is not None and len(nodes) >= limit:
                    raise BudgetExceeded("product states", limit)
                ids[key] = len(nodes)
                nodes.append(key)
                parent.append(here)
    return len(nodes)


def _streak_edges(graph: _Graph, bounded: list[str]
                  ) -> tuple[list[int], list[bool], list[list[int] | None]]:
    """Per state: the slot of the one bounded capability it activates (-1 otherwise), whether it
    activates exactly one capability (which clears the other streaks), and per edge of a bounded
    activation the code of what the edge observes: COMPLETION or FAILURE of that capability,
    else NOTHING."""
    slot = {name: index for index, name in enumerate(bounded)}
    single = [-1] * graph.n
    resets = [False] * graph.n
    for u in graph.order:
        active = graph.active[u]
        if len(active) == 1:
            resets[u] = True
            single[u] = slot.get(active[0], -1)
    codes: list[list[int] | None] = [None] * graph.n
    for u in graph.order:
        k = single[u]
        if k < 0 or graph.virtual[u]:
            continue
        row = []
        for observed in graph.edge_obs[u]:
            code = NOTHING
            if len(observed) == 1 and observed[0].capability in (None, bounded[k]):
                code = COMPLETION if observed[0].outcome == COMPLETED else FAILURE
            row.append(code)
        codes[u] = row
    return single, resets, codes


def _bounded_defect(ctx: _Context, graph: _Graph, nodes: list[int], parent: list[int],
                    total: int, here: int, u: int, t: int, j: int, cap: str, bound: int,
                    streak: int) -> rec.Defect:
    path = []
    back = here
    while back >= 0:
        path.append(nodes[back] // total)
        back = parent[back]
    path.reverse()
    path.append(t)
    return rec.Defect(rec.BOUNDED_FAILURE_VIOLATION,
                      f"{cap} fails {streak} times in a row (bound {bound}) at {u} -> {t}",
                      [u, t], _trace(ctx, graph, path, graph.edge_inputs(u)[j]), cap,
                      {"bound": bound, "streak": streak})


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


def _goal_flags(graph: _Graph, goals: list[Predicate], deadline: _Deadline) -> list[list[bool]]:
    flags: list[list[bool]] = [[] for _ in range(graph.n)]
    arrival_only = all(g.arrival_only for g in goals)
    state_goal: dict[int, bool] = {}
    for count, u in enumerate(graph.order):
        if count % 1024 == 0:
            deadline.check()
        src = graph.arrival(u)
        if arrival_only and not graph.has_edge_inputs:
            row = []
            for t in graph.adj[u]:
                hit = state_goal.get(t)
                if hit is None:
                    dst = graph.arrival(t)
                    hit = state_goal[t] = any(g.fn(src, dst) for g in goals)
                row.append(hit)
            flags[u] = row
        else:
            flags[u] = [any(g.fn(src, dst) for g in goals)
                        for dst in graph.edge_arrival(u)]
    return flags


@dataclass
class _Components:
    """The SCCs of the reachable strategy graph and which of them can reach a goal cycle."""

    comp: list[int]
    members: list[list[int]]
    cyclic: list[bool]
    #: per SCC: a cyclic SCC with a goal edge is reachable from it (not a trap)
    ok: list[bool]
    #: per state: its position in the BFS order (the first reached state of a set leads)
    rank: list[int]

    def live(self, u: int) -> bool:
        """Whether ``u`` lies on a cycle of an SCC that can reach the goal."""
        c = self.comp[u]
        return self.ok[c] and self.cyclic[c]


def _traps(ctx: _Context, graph: _Graph, flags: list[list[bool]]) -> _Components:
    """Report the goal-unreachable traps; the SCCs for the livelock checks."""
    rank = [0] * graph.n
    for position, v in enumerate(graph.order):
        rank[v] = position
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
            ctx.add(rec.GOAL_UNREACHABLE_TRAP, tuple(states),
                    lambda states=states, first=first: rec.Defect(
                        rec.GOAL_UNREACHABLE_TRAP,
                        f"{_states(states)} from which no goal can be reached again",
                        states, _state_trace(ctx, graph, first)))
    return _Components(comp, members, cyclic, ok, rank)


def _environment_livelocks(ctx: _Context, graph: _Graph, flags: list[list[bool]],
                           parts: _Components, env_liveness: list[Predicate]) -> None:
    """Report goal-free cycles of non-trap SCCs that meet every env liveness assumption."""
    comp = parts.comp
    sub: list[list[int]] = [[] for _ in range(graph.n)]
    starts = []
    for u in graph.order:
        if not parts.live(u):
            continue
        starts.append(u)
        sub[u] = [t for t, hit in zip(graph.adj[u], flags[u]) if not hit and comp[t] == comp[u]]
    sub_comp, sub_members, sub_cyclic = _sccs(graph, sub, starts)
    for d, states_d in enumerate(sub_members):
        if not sub_cyclic[d]:
            continue
        met = [False] * len(env_liveness)
        for u in states_d:
            if all(met):
                break
            src = graph.arrival(u)
            dsts = graph.edge_arrival(u)
            for t, hit, dst in zip(graph.adj[u], flags[u], dsts):
                if hit or sub_comp[t] != d:
                    continue
                for j, assumption in enumerate(env_liveness):
                    if not met[j] and assumption.fn(src, dst):
                        met[j] = True
        if not all(met):
            continue
        first = _first_reached(graph, states_d, parts.rank)
        states = sorted(states_d)
        ctx.add(rec.ENVIRONMENT_SUSTAINED_LIVELOCK, tuple(states),
                lambda states=states, first=first: rec.Defect(
                    rec.ENVIRONMENT_SUSTAINED_LIVELOCK,
                    f"the environment can keep the robot in {_states(states)} forever "
                    "while respecting its liveness assumptions, although a way to the goal "
                    "exists", states, _state_trace(ctx, graph, first),
                    details={"assumptions_met": [a.name for a in env_liveness],
                             "capabilities": sorted({c for v in states for c in graph.active[v]})}),
                warning=ctx.options.livelock == "warning")


@dataclass
class _NominalEdges:
    """Per state of a non-trap cycle: its inner edges (nominal, no success goal, inside its SCC),
    the assumptions each edge meets (masks, 0 for a failure) and those the state enables."""

    inner: list[list[int]]
    meets: list[list[int]]
    enabled: list[int]


def _nominal_edges(ctx: _Context, graph: _Graph, flags: list[list[bool]], parts: _Components,
                   candidates: list[int], env_liveness: list[Predicate]) -> _NominalEdges:
    edges = _NominalEdges([[] for _ in range(graph.n)], [[] for _ in range(graph.n)],
                          [0] * graph.n)
    for count, u in enumerate(candidates):
        if count % 1024 == 0:
            ctx.deadline.check()
        src = graph.arrival(u)
        dsts = graph.edge_arrival(u) if env_liveness else [{}] * len(graph.adj[u])
        row = edges.meets[u]
        for k, (t, hit, observed, dst) in enumerate(zip(graph.adj[u], flags[u],
                                                        graph.edge_obs[u], dsts)):
            if any(o.failure for o in observed):
                row.append(0)
                continue
            mask = 0
            for j, assumption in enumerate(env_liveness):
                if assumption.fn(src, dst):
                    mask |= 1 << j
            row.append(mask)
            edges.enabled[u] |= mask
            if not hit and parts.comp[t] == parts.comp[u]:
                edges.inner[u].append(k)
    return edges


def _nominal_livelocks(ctx: _Context, graph: _Graph, flags: list[list[bool]],
                       parts: _Components, env_liveness: list[Predicate]) -> None:
    """Report the nominal livelocks (:mod:`bdi_supervisor.audit.nominal`) of non-trap SCCs;
    ``flags`` mark the success-goal edges. A state that asserts an SM outcome ends the run (the
    realized machine's container outcome), so no livelock passes through it."""
    states = ctx.strategy.states
    candidates = [u for u in graph.order if parts.live(u) and not graph.virtual[u]
                  and not ctx.view.sm_outcomes_of(states[u].outputs)]
    edges = _nominal_edges(ctx, graph, flags, parts, candidates, env_liveness)
    found = fair_sets(candidates, graph.adj, edges.inner, edges.meets, edges.enabled, parts.rank,
                      len(env_liveness), ctx.deadline.check)
    for fair in found:
        ctx.add(rec.NOMINAL_LIVELOCK, tuple(fair.states),
                lambda fair=fair: _nominal_defect(ctx, graph, fair, flags, env_liveness),
                warning=ctx.options.nominal_livelock == "warning")


def _exits(ctx: _Context, graph: _Graph, members: set[int], flags: list[list[bool]]
           ) -> list[dict]:
    """The edges from ``members`` that reach a success goal without coming back among them."""
    rev: dict[int, list[int]] = {}
    good = set()
    for u in graph.order:
        if u in members:
            continue
        for t, hit in zip(graph.adj[u], flags[u]):
            if hit:
                good.add(u)
            elif t not in members:
                rev.setdefault(t, []).append(u)
    queue = deque(good)
    while queue:
        for u in rev.get(queue.popleft(), ()):
            if u not in good:
                good.add(u)
                queue.append(u)
    exits = []
    for u in sorted(members):
        for k, (t, hit, observed) in enumerate(zip(graph.adj[u], flags[u], graph.edge_obs[u])):
            if hit or (t not in members and t in good):
                target = ctx.strategy.states[t].outputs
                exits.append({"from": u, "to": t, "failure": any(o.failure for o in observed),
                              "capability": ", ".join(graph.active[u]) or None,
                              "outcome": ", ".join(o.outcome for o in observed) or None,
                              "label": ctx.view.describe(graph.edge_inputs(u)[k], target)})
    return exits


def _nominal_defect(ctx: _Context, graph: _Graph, fair: FairSet, flags: list[list[bool]],
                    env_liveness: list[Predicate]) -> rec.Defect:
    """The lasso of a nominal livelock, in mission terms; ``flags`` mark success-goal edges."""
    path = [fair.entry, *(graph.adj[u][k] for u, k in fair.cycle)]
    cycle = _trace(ctx, graph, path, edges=[k for _, k in fair.cycle])[1:]
    on_cycle = [u for u, _ in fair.cycle]
    activated = [cap for u in on_cycle for cap in graph.active[u]]
    outputs = [ctx.strategy.states[u].outputs for u in on_cycle]
    pending = [cap for cap in ctx.view.capabilities if cap not in activated
               and all(out.get(pending_prop(cap)) for out in outputs)]
    exits = _exits(ctx, graph, set(fair.states), flags)
    walk = " → ".join([*activated, activated[0]]) if activated else _states(fair.states)
    message = (f"with every outcome a success the robot can loop forever without reaching the "
               f"goal: {walk}")
    if pending:
        message += f", {', '.join(pending)} pending and never activated again"
    return rec.Defect(
        rec.NOMINAL_LIVELOCK, message, fair.states, _state_trace(ctx, graph, fair.entry),
        details={"capabilities": activated, "pending": pending,
                 "unmet_assumptions": [a.name for j, a in enumerate(env_liveness)
                                       if fair.unmet >> j & 1],
                 "exits": exits[:ctx.options.max_defects_per_kind]},
        cycle=cycle)


def _traps_and_livelocks(ctx: _Context, graph: _Graph, goals: list[Predicate],
                         env_liveness: list[Predicate], success_goals: list[Predicate]) -> None:
    """Traps, environment-sustained and nominal livelocks (``success_goals``: the goals that
    are not failure SM outcomes)."""
    flags = _goal_flags(graph, goals, ctx.deadline)
    parts = _traps(ctx, graph, flags)
    if ctx.options.livelock != "off":
        ctx.deadline.check()
        _environment_livelocks(ctx, graph, flags, parts, env_liveness)
    if ctx.options.nominal_livelock != "off":
        ctx.deadline.check()
        started = time.perf_counter()
        if len(success_goals) != len(goals):
            flags = _goal_flags(graph, success_goals, ctx.deadline)
        _nominal_livelocks(ctx, graph, flags, parts, env_liveness)
        ctx.stats["nominal_livelock_s"] = time.perf_counter() - started


def audit(strategy: Strategy, catalog: Catalog,
          goals: Sequence[PredicateLike] | None = None,
          options: AuditOptions | None = None) -> rec.AuditRecord:
    """Audit ``strategy`` against ``catalog``'s protocol and reaching ``goals``.

    ``goals`` are transition predicates (names, formula trees or callables, see
    :mod:`bdi_supervisor.audit.predicates`); ``None`` means the catalog's SM outcomes. A goal is
    a recurrence goal: a cycle must pass through it, so terminal outcomes are absorbing states.
    """
    options = options or AuditOptions()
    for key in ("livelock", "nominal_livelock"):
        if getattr(options, key) not in LIVELOCK_MODES:
            raise ValueError(f"{key} must be one of {LIVELOCK_MODES}, "
                             f"got {getattr(options, key)!r}")
    started = time.perf_counter()
    view = ProtocolView.for_strategy(strategy, catalog, options.encoding)
    structural = options.structural_only
    if structural is None:
        structural = bool(strategy.metadata.get("reduced"))
    if goals is None:
        goals = list(view.sm_outcomes)
    compiled_goals = [compile_predicate(g, i) for i, g in enumerate(goals)]
    success_goals = [c for g, c in zip(goals, compiled_goals)
                     if not (isinstance(g, str) and g.strip() in view.failure_sm_outcomes)]
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
            _traps_and_livelocks(ctx, graph, compiled_goals, env_liveness,
                                 success_goals or compiled_goals)
        else:
            incomplete = "no goal given and the catalog has no SM outcomes: trap check skipped"
    except BudgetExceeded as error:
        incomplete = str(error)
    ctx.stats["defect_counts"] = dict(ctx.counts)
    ctx.stats["time_s"] = time.perf_counter() - started
    if ctx.defects:
        verdict = AuditVerdict.FAIL
    elif incomplete:
        verdict = AuditVerdict.INCOMPLETE
    else:
        verdict = AuditVerdict.PASS
    return rec.AuditRecord(
        verdict=verdict, complete=incomplete is None,
        mode="structural" if structural else "full", encoding=view.encoding,
        goals=[g.name for g in compiled_goals], env_liveness=[a.name for a in env_liveness],
        defects=ctx.defects, warnings=ctx.warnings, incomplete_reason=incomplete,
        stats=ctx.stats, strategy=strategy.name,
    )


def _states(states: list[int]) -> str:
    """``1 state``, ``3 states``."""
    return f"{len(states)} state{'' if len(states) == 1 else 's'}"
