"""Explicit Mealy strategy extraction from a solved GR(1) game (slugs' ``--explicitStrategy``).

Per liveness goal ``j`` a positional strategy is assembled from the solver's paths predicates
in their order: every (state, next input) pair takes the moves of the first predicate that
covers it (lowest ``Y`` level, then lowest assumption index), so following it either progresses
towards goal ``j`` or stays forever in a region where some environment liveness fails.

Explicit states are pairs (full valuation, goal); states are numbered breadth first from the
initial states. The initial states are all valuations of ``winning & sys_init & env_init``
(slugs), or with ``initial="per-input"`` one per initial input valuation. From a state, one
successor per next input admitted by ``env_trans``; inputs are enumerated in lexicographic
order of their bits (declaration order, ``False`` first) and each gets the lexicographically
smallest output the positional strategy allows, so the result is deterministic for a given
declaration order. After a transition, the goal index moves past every goal the transition
satisfies (slugs' stuttering avoidance); the state's ``rank`` is the goal it pursues.

How: the states are expanded one breadth-first layer at a time. For a layer, the positional
strategy of each goal is computed on that layer's states only (small BDDs, the safety relation
conjoined cluster by cluster), then each state's moves are read from one walk of that BDD with
the state's valuation fixed: a path gives a cube of next inputs and outputs, the smallest output
per input is picked from the cubes, the goal advance is a point evaluation. No BDD is built per
state and no loop runs over valuations other than the strategy's own states and transitions;
nothing here runs inside the fixpoint computation.
"""

from __future__ import annotations

import itertools
from collections import deque

from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis import valuations
from bdi_supervisor.synthesis.gr1 import Budget, Solution
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame
from bdi_supervisor.synthesis.valuations import advance, all_sorted, smallest

INITIAL_MODES = ("all", "per-input")
#: with ``max_states`` states, at most this many transitions per state on average
MOVES_PER_STATE = 16


def positional_strategies(game: SymbolicGame, solution: Solution, states: Function, goal: int,
                          budget: Budget | None = None) -> Function:
    """Goal ``goal``'s positional strategy on ``states`` (current bits): the moves it allows
    from them (with every next input the environment admits there).

    Every (state, next input) pair takes the moves of the first paths predicate of the goal
    that covers it (``E y'. sys_trans & paths``). Computed on the given states only, which
    keeps every BDD small, and stopped once every admissible pair is covered.
    """
    remaining = game.admissible(states)
    strategy = game.false
    for j, paths in solution.paths:
        if j != goal:
            continue
        if remaining == game.false:
            break
        if budget is not None:
            budget.check(game)
        moves = paths & remaining
        if moves == game.false:
            continue
        fresh = game.sys_exists(moves)
        if fresh == game.false:
            continue
        strategy |= game.within_sys(fresh & moves)
        remaining &= ~fresh
    return game.within_env(strategy)


class _CubeMaker:
    """BDDs of full valuations of the current bits, conjoined bottom-up in the BDD's present
    variable order (each step then adds one node; reordering is off during extraction)."""

    def __init__(self, game: SymbolicGame) -> None:
        bdd = game.bdd
        self.true = game.true
        self.order = sorted(game.pre_vars, key=bdd.level_of_var, reverse=True)
        self.literals = {name: (~bdd.var(name), bdd.var(name)) for name in self.order}

    def __call__(self, valuation: dict[str, bool]) -> Function:
        cube = self.true
        for name in self.order:
            cube &= self.literals[name][valuation[name]]
        return cube


def _moves(game: SymbolicGame, strategy: Function, current: dict[str, bool],
           limit: int | None = None, budget: Budget | None = None) -> list[dict[str, bool]]:
    """The moves of ``strategy`` from the state ``current`` (a valuation of the current bits):
    for each next input it admits, in lexicographic order, the lexicographically smallest next
    output it allows.

    Read from the paths of the strategy restricted to ``current``, in one walk: a path is a
    cube, the smallest output of a cube sets its free output bits False, and the smallest
    output of an input is the smallest over the cubes that admit it (bits in declaration order,
    False first).

    More than ``limit`` next inputs raise :class:`BudgetExceeded` (``successor``) before they
    are expanded; the time budget is checked on the way.
    """
    post_in, post_out = game.post_in, game.post_out
    best: dict[tuple[bool, ...], tuple[bool, ...]] = {}
    for cube in valuations.paths(strategy, current):
        outputs = tuple([cube.get(b, False) for b in post_out])
        inputs = [cube.get(b) for b in post_in]
        missing = [k for k, value in enumerate(inputs) if value is None]
        if limit is not None and (2 ** len(missing) > limit or len(best) > limit):
            raise BudgetExceeded("successor", limit)
        if budget is not None:
            budget.check(game)
        for values in itertools.product((False, True), repeat=len(missing)):
            for k, value in zip(missing, values):
                inputs[k] = value
            key = tuple(inputs)
            known = best.get(key)
            if known is None or outputs < known:
                best[key] = outputs
    if limit is not None and len(best) > limit:
        raise BudgetExceeded("successor", limit)
    return [{**dict(zip(post_in, key)), **dict(zip(post_out, best[key]))} for key in sorted(best)]


def extract(game: SymbolicGame, solution: Solution, *, initial: str = "all",
            name: str = "strategy", budget: Budget | None = None,
            max_states: int | None = None) -> Strategy:
    """The explicit Mealy strategy of a realizable solved game."""
    if not solution.realizable:
        raise ValueError("the game is not realizable: no strategy to extract")
    if initial not in INITIAL_MODES:
        raise ValueError(f"initial must be one of {INITIAL_MODES}")
    bdd = game.bdd
    reordering = bdd.configure(reordering=False)["reordering"]
    try:
        return _extract(game, solution, initial, name, budget, max_states)
    finally:
        bdd.configure(reordering=reordering)


class _States:
    """The explicit strategy's states as they are found: (valuation of the current bits, goal
    rank), numbered in order, with the ones not yet expanded in ``todo``."""

    def __init__(self, game: SymbolicGame, max_states: int | None) -> None:
        self.pre_vars = game.pre_vars
        self.max_states = max_states
        self.index: dict[tuple[tuple[bool, ...], int], int] = {}
        self.valuations: list[dict[str, bool]] = []
        self.ranks: list[int] = []
        self.todo: deque[tuple[tuple[bool, ...], int]] = deque()

    def add(self, valuation: dict[str, bool], goal: int) -> int:
        """The number of the state (valuation, goal), added if new."""
        key = (tuple(valuation[v] for v in self.pre_vars), goal)
        found = self.index.get(key)
        if found is not None:
            return found
        if self.max_states is not None and len(self.valuations) >= self.max_states:
            raise BudgetExceeded("strategy state", self.max_states)
        self.index[key] = len(self.valuations)
        self.valuations.append(valuation)
        self.ranks.append(goal)
        self.todo.append(key)
        return self.index[key]


def _extract(game: SymbolicGame, solution: Solution, initial: str, name: str,
             budget: Budget | None, max_states: int | None) -> Strategy:
    found = _States(game, max_states)
    _add_initial_states(game, solution, initial, found, budget, max_states)
    initial_count = len(found.valuations)
    successors: list[list[int]] = []
    unprime = dict(zip(game.post_vars, game.pre_vars))
    max_transitions = MOVES_PER_STATE * max_states if max_states is not None else None
    transitions = 0
    cube = _CubeMaker(game)
    while found.todo:
        layer = list(found.todo)  # breadth first: the states found next form the next layer
        found.todo.clear()
        by_goal: dict[int, Function] = {}
        for key in layer:
            by_goal[key[1]] = (by_goal.get(key[1], game.false)
                               | cube(found.valuations[found.index[key]]))
        strategies = {goal: positional_strategies(game, solution, states, goal, budget)
                      for goal, states in by_goal.items()}
        for key in layer:
            if budget is not None:
                budget.check(game)
            current, goal = found.valuations[found.index[key]], key[1]
            moves = _moves(game, strategies[goal], current, max_states, budget)
            transitions += len(moves)
            if max_transitions is not None and transitions > max_transitions:
                raise BudgetExceeded("strategy transition", max_transitions)
            successors.append([
                found.add({unprime[b]: value for b, value in move.items()},
                          advance(game.sys_live, goal, {**current, **move}))
                for move in moves])
    return _strategy(game, found, successors, initial_count, name, initial)


def _add_initial_states(game: SymbolicGame, solution: Solution, initial: str, found: _States,
                        budget: Budget | None, max_states: int | None) -> None:
    """The winning initial valuations (all of them, or with ``per-input`` the smallest output
    for each initial input), at goal rank 0."""
    start = solution.winning & game.sys_init & game.env_init
    if initial == "all":
        for valuation in all_sorted(game, start, game.pre_vars, budget, max_states):
            found.add(valuation, 0)
        return
    for inputs in all_sorted(game, game.bdd.exist(game.pre_out, start), game.pre_in, budget,
                              max_states):
        rest = game.bdd.let(inputs, start) if inputs else start
        found.add({**inputs, **smallest(game, rest, game.pre_out)}, 0)


def _strategy(game: SymbolicGame, found: _States, successors: list[list[int]],
              initial_count: int, name: str, initial: str) -> Strategy:
    """The explicit :class:`Strategy` of the states found (the first ``initial_count`` are the
    initial ones)."""
    variables = [Variable(v.name, v.owner, v.kind, v.low, v.high)
                 for v in game.spec.variables]
    inputs_names = [v.name for v in game.spec.inputs]
    outputs_names = [v.name for v in game.spec.outputs]
    states = [StrategyState(id=sid, inputs=game.decode(valuation, names=inputs_names),
                            outputs=game.decode(valuation, names=outputs_names),
                            successors=successors[sid], rank=found.ranks[sid],
                            initial=sid < initial_count)
              for sid, valuation in enumerate(found.valuations)]
    metadata = {"source": "bdi_supervisor", "goals": len(game.sys_live),
                "order": [v.name for v in game.variables], "initial": initial}
    return Strategy(variables, states, name, metadata)
