"""The mission model: a CTL-BDI structure built from a supervisor and its world hypotheses.

Model-based runtime meaning (docs/ctl-bdi.md, "Live monitor"): the closed loop of the world with
the committed strategy. Given the supervisor machine (the reduced strategy as
realized), the strategy (for the memory each state holds) and the mission's hypotheses:

- **Directions** are the outcomes of the active capability: the normalized outcome
  (``completed``, ``failure``; ``<outcome>.<n>`` for the n-th further target of a sensor-guarded
  transition) and ``stay``. The position a direction is taken from names the capability, so the
  direction need not (this keeps k small: 3 on logistics instead of 22 capability × outcome
  pairs, and every fixpoint iterates over the directions).
- **World states** are *positions*: the machine state the supervisor is in (or the SM outcome it
  ended in) together with the direction that led there. Every world has the same positions and the
  same successor per direction: the committed strategy's transition. The worlds differ in which
  outcomes they admit: direction ``o`` is enabled at a position whose active capability is
  ``cap`` iff ``o`` is admitted by the strategy's assumptions there (not an *excluded* outcome)
  and by every fact's value in that world. Terminal positions (an SM outcome) loop on ``stay``;
  a position where a world admits no outcome at all loops on ``stay`` too (labelled ``stuck``).
- **Worlds** are the combinations of the facts' values; the actual world (launch checks) is the
  facts' ``actual`` values.
- **Labels** of a position: ``<cap>_a`` (the capability active there: the intention), the last
  outcome ``<cap>_<t>`` (spec naming), every true boolean output of the strategy state
  (memory ``<x>_m`` with its catalog name ``x`` as alias, SM outcome propositions such as
  ``finished``), ``<var>.<label>`` for integer outputs, ``end`` and the SM outcome's name at
  terminal positions, ``goal`` (a success outcome, or all request goals on the memory when the
  mission has no SM outcomes), ``stuck``; plus the world's fact atoms.
- **Belief, desire, intention**: one automaton reads the directions and tracks the position and
  C, the set of worlds consistent with the outcomes observed so far (the worlds whose tree
  contains the time point). Belief: the worlds of C that agree with every ``presumed`` value of a
  fact C leaves undecided (C itself if none does). Desire: the worlds of C from whose state a
  ``goal`` position is reachable. Intention: the believed worlds that are desired (the believed
  ones if there are none): the worlds in which following the committed strategy is believed to
  reach the goal. All three relations are the same for every current world (the robot's attitudes
  depend on what it observed, not on what is true), so belief is KD45 and can be wrong.

Properties are checked at launch in the actual world (YES or a counterexample DAG from
:mod:`bdi_monitor.counterexample`); :func:`truth_tables` precomputes, per automaton state, the
worlds of C in which each property holds, for the live monitor.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bdi_monitor.checker import Checker
from bdi_monitor.counterexample import explain
from bdi_monitor.hypotheses import Hypotheses, Property, parse_hypotheses, parse_properties
from bdi_monitor.product import ProductNode
from bdi_monitor.structure import RELATIONS, Automaton, Structure, World, validate
from bdi_monitor.symbolic import SymbolicModel
from bdi_supervisor.common import FAILURE_SM_OUTCOMES
from bdi_supervisor.realize.machine import SupervisorMachine
from bdi_supervisor.runtime.beliefs import evaluate
from bdi_supervisor.synthesis.strategy import Strategy

STAY = "stay"
#: SM outcomes that mean the mission failed (as the executor reads them)
FAILURE_OUTCOMES = FAILURE_SM_OUTCOMES


@dataclass(frozen=True)
class Direction:
    """An outcome of the active capability (``outcome`` None for stay)."""

    name: str
    outcome: str | None


@dataclass(frozen=True)
class Position:
    """Where the supervisor is: a machine state or an SM outcome, and how it got there."""

    name: str
    machine_state: str | None
    terminal: str | None  # SM outcome name at terminal positions
    strategy_id: int | None
    last: int | None  # direction index that led here (None at the start)
    last_capability: str | None = None  # the capability whose outcome led here


@dataclass
class MissionModel:
    """The structure and everything the monitor needs to follow a run through it."""

    structure: Structure
    hypotheses: Hypotheses
    world_values: list[dict[str, Any]]
    positions: list[Position]
    directions: list[Direction]
    #: automaton states: (position index or None for the sink, worlds consistent so far)
    tracker: list[tuple[int | None, frozenset[int]]]
    #: (machine state, normalized outcome, next machine state or SM outcome) -> direction
    steps: dict[tuple[str, str, str], int]
    #: (machine state, normalized outcome) pairs the strategy's assumptions exclude
    excluded: frozenset[tuple[str, str]]
    machine: SupervisorMachine
    properties: list[Property] = field(default_factory=list)
    mission: str = ""
    sink: int = 0

    @property
    def initial(self) -> int:
        return self.structure.automata["B"].initial

    def advance(self, q: int, direction: int) -> int:
        """The automaton state after ``direction`` (the sink when no world admits it)."""
        return self.structure.automata["B"].tau[q][direction]

    def node(self, q: int, world: int) -> ProductNode:
        """The product node of automaton state ``q`` in ``world`` (which must be in C)."""
        position, consistent = self.tracker[q]
        states = tuple(position if j in consistent else None
                       for j in range(len(self.structure.worlds)))
        return ProductNode(world, states, (q, q, q))

    def world_names(self, worlds) -> list[str]:
        return [self.structure.worlds[j].name for j in sorted(worlds)]

    def describe(self, q: int) -> dict[str, Any]:
        position, consistent = self.tracker[q]
        automaton = self.structure.automata
        return {"position": None if position is None else self.positions[position].name,
                "consistent_worlds": self.world_names(consistent),
                "believed": self.world_names({j for _, j in automaton["B"].out[q]}),
                "desired": self.world_names({j for _, j in automaton["D"].out[q]}),
                "intended": self.world_names({j for _, j in automaton["I"].out[q]})}


# ---------------------------------------------------------------------------------------------
# building


def build_model(machine: SupervisorMachine, catalog, hypotheses: Hypotheses,
                strategy: Strategy | None = None, *, goals: Sequence[Any] = (),
                name: str = "mission") -> MissionModel:
    """The mission model of ``machine`` under ``hypotheses`` (see the module docstring).

    ``strategy`` gives each position's memory labels; ``goals`` (formulas over memory, as in the
    mission request) define ``goal`` for missions without SM outcomes.
    """
    directions = _Directions()
    edges, steps, excluded = _machine_edges(machine, directions)
    stay = directions.of(STAY, None)
    worlds_values = hypotheses.worlds() or [{}]
    positions, successors = _positions(machine, edges, directions, stay)
    base_labels = [_position_labels(pos, machine, catalog, strategy, directions, goals)
                   for pos in positions]
    worlds, enabled_in = _worlds(positions, successors, directions, machine, hypotheses,
                                 worlds_values, base_labels, stay)
    goal_reach = [_reaching(enabled_in[j], [p for p in range(len(positions))
                                            if "goal" in worlds[j].labels[p]])
                  for j in range(len(worlds))]
    tracker, tau = _tracker(enabled_in, len(directions))
    outs = _relations(tracker, hypotheses, worlds_values, goal_reach)
    names = [f"q{t}" for t in range(len(tracker))]
    automata = {r: Automaton(list(names), 1, [list(row) for row in tau], outs[r])
                for r in RELATIONS}
    actual = hypotheses.actual()
    actual_index = next((j for j, v in enumerate(worlds_values) if v == actual), 0)
    structure = validate(Structure([d.name for d in directions], worlds, automata, actual_index,
                                   name=name))
    return MissionModel(structure, hypotheses, worlds_values, positions, list(directions),
                        tracker, steps, frozenset(excluded), machine, mission=name, sink=0)


#: a machine edge: (direction, target machine state or SM outcome, whether it is an SM outcome,
#: the strategy state of that SM outcome)
Edge = tuple[int, str, bool, int | None]


class _Directions(list):
    """The model's directions, numbered in the order they are first named."""

    def __init__(self) -> None:
        super().__init__()
        self.index: dict[str, int] = {}

    def of(self, name: str, outcome: str | None) -> int:
        """The number of direction ``name`` (added for ``outcome`` if new)."""
        if name not in self.index:
            self.index[name] = len(self)
            self.append(Direction(name, outcome))
        return self.index[name]


def _machine_edges(machine: SupervisorMachine, directions: _Directions
                   ) -> tuple[dict[str, list[Edge]], dict[tuple[str, str, str], int], set]:
    """Every machine state's edges, one direction per outcome (``<outcome>.<n>`` for the n-th
    further target of a sensor-guarded transition); the direction of each (state, outcome,
    target) step; the (state, outcome) pairs the strategy's assumptions exclude."""
    edges: dict[str, list[Edge]] = {}
    steps: dict[tuple[str, str, str], int] = {}
    excluded = set()
    for state in machine.states:
        found = []
        for outcome, transition in state.transitions.items():
            if transition.excluded:
                excluded.add((state.name, outcome))
                continue
            targets: list[tuple[str, bool, int | None]] = []
            for branch in transition.branches:
                entry = (branch.target, branch.to_outcome,
                         branch.path[-1] if branch.to_outcome else None)
                if all(t[0] != branch.target for t in targets):
                    targets.append(entry)
            if not targets:
                targets = [(transition.target, transition.to_outcome, None)]
            for n, (target, to_outcome, sid) in enumerate(targets):
                d = directions.of(outcome + (f".{n}" if n else ""), outcome)
                steps[(state.name, outcome, target)] = d
                found.append((d, target, to_outcome, sid))
        edges[state.name] = found
    return edges, steps, excluded


def _positions(machine: SupervisorMachine, edges: dict[str, list[Edge]],
               directions: _Directions, stay: int
               ) -> tuple[list[Position], dict[int, list[tuple[int, int]]]]:
    """The positions reachable from the machine's initial state (the same in every world; the
    first one is the start) and each one's successors ``[(direction, position)]``."""
    positions: list[Position] = []
    pindex: dict[tuple, int] = {}

    def position(machine_state: str | None, terminal: str | None, sid: int | None,
                 last: int | None, by: str | None) -> int:
        key = (machine_state, terminal, sid, last, by)
        if key not in pindex:
            base = f"at_{machine_state}" if machine_state else f"end_{terminal}"
            if terminal and sid is not None:
                base += f"_{sid}"
            pname = base + (f".{by}.{directions[last].name}" if last is not None else "")
            pindex[key] = len(positions)
            sid_of = sid if machine_state is None else machine.state(machine_state).strategy_id
            positions.append(Position(pname, machine_state, terminal, sid_of, last, by))
        return pindex[key]

    successors: dict[int, list[tuple[int, int]]] = {}
    todo = deque([position(machine.initial, None, None, None, None)])
    while todo:
        p = todo.popleft()
        if p in successors:
            continue
        here = positions[p]
        found = []
        if here.machine_state is None:
            found.append((stay, p))
        else:
            by = machine.state(here.machine_state).capability
            for d, target, to_outcome, sid in edges[here.machine_state]:
                succ = (position(None, target, sid, d, by) if to_outcome
                        else position(target, None, None, d, by))
                found.append((d, succ))
                todo.append(succ)
        successors[p] = found
    return positions, successors


def _worlds(positions: list[Position], successors: dict[int, list[tuple[int, int]]],
            directions: _Directions, machine: SupervisorMachine, hypotheses: Hypotheses,
            worlds_values: list[dict[str, Any]], base_labels: list[set[str]], stay: int
            ) -> tuple[list[World], list[list[dict[int, int]]]]:
    """One world per combination of fact values, admitting at each position only the outcomes
    its facts allow (``stay`` and the label ``stuck`` where none is left); and, per world and
    position, the moves ``{direction: position}``."""

    def enabled(world: dict[str, Any], p: int) -> list[tuple[int, int]]:
        here = positions[p]
        if here.machine_state is None:
            return successors[p]
        capability = machine.state(here.machine_state).capability
        kept = [(d, s) for d, s in successors[p]
                if hypotheses.admitted(world, capability, directions[d].outcome)]
        return kept or [(stay, p)]

    worlds: list[World] = []
    enabled_in: list[list[dict[int, int]]] = []
    for values in worlds_values:
        facts = {a for f in hypotheses.facts if (a := f.atom(values[f.name])) is not None}
        delta: list[list[int | None]] = []
        per_position, labels = [], []
        for p in range(len(positions)):
            moves = dict(enabled(values, p))
            delta.append([moves.get(d) for d in range(len(directions))])
            per_position.append(moves)
            stuck = positions[p].machine_state is not None and moves.keys() == {stay}
            labels.append(base_labels[p] | facts | ({"stuck"} if stuck else set()))
        enabled_in.append(per_position)
        worlds.append(World(hypotheses.world_name(values), [p.name for p in positions], 0,
                            delta, labels))
    return worlds, enabled_in


def _tracker(enabled_in: list[list[dict[int, int]]], k: int
             ) -> tuple[list[tuple[int | None, frozenset[int]]], list[list[int]]]:
    """The B/D/I automaton's states (position, worlds consistent with the outcomes seen; state 0
    is the sink, state 1 the start) and its transitions per direction, breadth first."""
    everyone = frozenset(range(len(enabled_in)))
    tracker: list[tuple[int | None, frozenset[int]]] = [(None, frozenset()), (0, everyone)]
    tindex: dict[tuple, int] = {key: t for t, key in enumerate(tracker)}
    tau: list[list[int]] = [[0] * k, []]
    queue = deque([(0, everyone)])
    while queue:
        p, consistent = queue.popleft()
        row = []
        for d in range(k):
            nxt = {j for j in consistent if d in enabled_in[j][p]}
            if not nxt:
                row.append(0)
                continue
            (target,) = {enabled_in[j][p][d] for j in nxt}  # the strategy's successor is
            key = (target, frozenset(nxt))                   # world-independent
            if key not in tindex:
                tindex[key] = len(tracker)
                tracker.append(key)
                tau.append([])
                queue.append(key)
            row.append(tindex[key])
        tau[tindex[(p, consistent)]] = row
    return tracker, tau


def _relations(tracker: list[tuple[int | None, frozenset[int]]], hypotheses: Hypotheses,
               worlds_values: list[dict[str, Any]], goal_reach: list[set[int]]
               ) -> dict[str, list[frozenset[tuple[int, int]]]]:
    """Per automaton state, the B, D and I outputs: believed = C restricted by the presumed
    facts, desired = the worlds of C that can still reach a goal, intended = both (else
    believed)."""
    m = len(worlds_values)
    outs: dict[str, list[frozenset[tuple[int, int]]]] = {"B": [], "D": [], "I": []}
    for p, consistent in tracker:
        if p is None:
            for r in outs:
                outs[r].append(frozenset())
            continue
        believed = _believed(hypotheses, worlds_values, consistent)
        desired = frozenset(j for j in consistent if p in goal_reach[j])
        intended = (believed & desired) or believed
        for r, targets in (("B", believed), ("D", desired), ("I", intended)):
            outs[r].append(frozenset((i, j) for i in range(m) for j in targets))
    return outs


def _believed(hypotheses: Hypotheses, values: list[dict], consistent: frozenset[int]
              ) -> frozenset[int]:
    """Worlds of C agreeing with the presumed value of every fact C leaves undecided."""
    kept = set(consistent)
    for fact in hypotheses.facts:
        if fact.presumed is None:
            continue
        seen = {values[j][fact.name] for j in consistent}
        if len(seen) > 1:
            kept = {j for j in kept if values[j][fact.name] == fact.presumed}
    return frozenset(kept) if kept else consistent


def _reaching(moves: list[dict[int, int]], targets: list[int]) -> set[int]:
    """Positions from which one of ``targets`` is reachable (backward search)."""
    back: dict[int, list[int]] = {}
    for p, succ in enumerate(moves):
        for s in succ.values():
            back.setdefault(s, []).append(p)
    seen = set(targets)
    todo = list(targets)
    while todo:
        for p in back.get(todo.pop(), ()):
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def _position_labels(pos: Position, machine: SupervisorMachine, catalog,
                     strategy: Strategy | None, directions: list[Direction],
                     goals: Sequence[Any]) -> frozenset[str]:
    labels: set[str] = set()
    if pos.machine_state is not None:
        labels.add(f"{machine.state(pos.machine_state).capability}_a")
    else:
        labels.add("end")
        labels.add(pos.terminal)
        if pos.terminal not in FAILURE_OUTCOMES:
            labels.add("goal")
    if pos.last is not None and pos.last_capability is not None:
        outcome = directions[pos.last].outcome
        labels.add(f"{pos.last_capability}_{catalog.outcome_suffix(outcome)}")
    if strategy is not None and pos.strategy_id is not None:
        outputs = strategy.state(pos.strategy_id).outputs
        for var, value in outputs.items():
            if isinstance(value, bool):
                if value:
                    labels.add(var)
                    if var.endswith("_m") and var[:-2] in set(catalog.memory) | set(
                            catalog.capabilities):
                        labels.add(var[:-2])
            elif isinstance(value, int):
                enum = catalog.variables.get(var)
                label = enum.labels.get(value, value) if enum is not None else value
                labels.add(f"{var}.{label}")
        if goals and not machine.outcomes and pos.machine_state is not None:
            def lookup(name: str, outputs=outputs):
                for candidate in (name, f"{name}_m"):
                    if candidate in outputs:
                        return outputs[candidate]
                return None
            if all(evaluate(g, lookup) is True for g in goals):
                labels.add("goal")
    return frozenset(labels)


# ---------------------------------------------------------------------------------------------
# checking


@dataclass
class LaunchResult:
    """A property checked at launch in the actual world, with its truth in every world."""

    property: Property
    holds: bool
    holds_in: list[str]
    certificate: Any = None  # counterexample (or None when it holds)
    seconds: float = 0.0


class ModelChecker:
    """One :class:`Checker` per world as the actual one (true-sets are restricted to the nodes
    reachable from that world's root, so a world's nodes are judged by its own checker)."""

    def __init__(self, model: MissionModel) -> None:
        self.model = model
        s = model.structure
        # the worlds' fields are independent in the encoding: dynamic reordering keeps the
        # preimages small (about 30x faster on the logistics model than the fixed order)
        self.checkers = [Checker(SymbolicModel(dataclasses.replace(s, actual=j), reordering=True))
                         for j in range(len(s.worlds))]

    @property
    def actual(self) -> Checker:
        return self.checkers[self.model.structure.actual]

    def launch(self, prop: Property) -> LaunchResult:
        import time

        t0 = time.perf_counter()
        holds = self.actual.holds(prop.formula)
        holds_in = [self.model.structure.worlds[j].name for j, c in enumerate(self.checkers)
                    if c.holds(prop.formula)]
        certificate = None if holds else explain(self.actual, prop.formula)
        return LaunchResult(prop, holds, holds_in, certificate, time.perf_counter() - t0)

    def truth_table(self, prop: Property) -> list[frozenset[int]]:
        """Per automaton state, the consistent worlds in which ``prop`` holds there."""
        table = []
        for q, (position, consistent) in enumerate(self.model.tracker):
            if position is None:
                table.append(frozenset())
                continue
            table.append(frozenset(
                j for j in consistent
                if self.checkers[j].holds(prop.formula, self.model.node(q, j))))
        return table


def propositions(model_or_hypotheses, machine: SupervisorMachine, catalog,
                 strategy: Strategy | None) -> set[str]:
    """Every atom the mission model can label (for parsing the properties)."""
    atoms = {"end", "goal", "stuck", *machine.outcomes}
    atoms |= {f"{c}_a" for c in catalog.capabilities}
    atoms |= {f"{c}_{catalog.outcome_suffix(o)}" for c, cap in catalog.capabilities.items()
              for o in cap.outcomes}
    if strategy is not None:
        for var in strategy.variables:
            if var.owner != "sys":
                continue
            if var.kind == "bool":
                atoms.add(var.name)
                if var.name.endswith("_m"):
                    atoms.add(var.name[:-2])
            else:
                enum = catalog.variables.get(var.name)
                for value in range(var.low, var.high + 1):
                    label = enum.labels.get(value, value) if enum is not None else value
                    atoms.add(f"{var.name}.{label}")
    atoms |= set(model_or_hypotheses.atoms())
    return atoms


def mission_model(mission, machine: SupervisorMachine, strategy: Strategy | None = None
                  ) -> MissionModel:
    """The mission model of ``mission`` (hypotheses and properties from its file)."""
    hypotheses = parse_hypotheses(mission)
    atoms = propositions(hypotheses, machine, mission.catalog, strategy)
    properties = parse_properties(mission, atoms)
    goals = [g.formula for g in mission.request.goals]
    model = build_model(machine, mission.catalog, hypotheses, strategy, goals=goals,
                        name=mission.name)
    model.properties = properties
    return model
