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

The loops here run over explicit strategy states (they are the output), never inside the
fixpoint computation.
"""

from __future__ import annotations

from collections import deque

from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.synthesis.gr1 import Budget, Solution
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState, VariableInfo
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame

INITIAL_MODES = ("all", "per-input")


def positional_strategies(game: SymbolicGame, solution: Solution,
                          budget: Budget | None = None) -> list[Function]:
    """One transition predicate per goal: the moves the explicit strategy may take."""
    bdd = game.bdd
    key_vars = game.post_out
    strategies = []
    for j in range(len(game.sys_live)):
        covered = game.false
        strategy = game.false
        for goal, paths in solution.paths:
            if goal != j:
                continue
            if budget is not None:
                budget.check(game)
            moves = paths & game.sys_trans
            cases = bdd.exist(key_vars, moves) & ~covered
            strategy |= cases & moves
            covered |= cases
        strategies.append(strategy)
    return strategies


def _smallest(game: SymbolicGame, u: Function, names: list[str]) -> dict[str, bool]:
    """The lexicographically smallest assignment of ``names`` in ``u`` (False first)."""
    choice: dict[str, bool] = {}
    for name in names:
        low = game.bdd.let({name: False}, u)
        if low != game.false:
            choice[name] = False
            u = low
        else:
            choice[name] = True
            u = game.bdd.let({name: True}, u)
    return choice


def _all_sorted(game: SymbolicGame, u: Function, names: list[str]) -> list[dict[str, bool]]:
    """All assignments of ``names`` in ``u`` in lexicographic order (False first)."""
    if u == game.false:
        return []
    if not names:
        return [{}]
    found = list(game.bdd.pick_iter(u, care_vars=set(names)))
    width = len(names)
    for a in found:
        if len(a) != width:
            for name in names:
                a.setdefault(name, False)
    found.sort(key=lambda a: tuple(map(a.__getitem__, names)))
    return found


def extract(game: SymbolicGame, solution: Solution, *, initial: str = "all",
            name: str = "strategy", budget: Budget | None = None,
            max_states: int | None = None) -> Strategy:
    """The explicit Mealy strategy of a realizable solved game."""
    if not solution.realizable:
        raise ValueError("the game is not realizable: no strategy to extract")
    if initial not in INITIAL_MODES:
        raise ValueError(f"initial must be one of {INITIAL_MODES}")
    bdd = game.bdd
    # the monolithic relations are conjoined on first use: do it while reordering may still help
    game.env_trans, game.sys_trans  # noqa: B018
    reordering = bdd.configure(reordering=False)["reordering"]
    try:
        return _extract(game, solution, initial, name, budget, max_states)
    finally:
        bdd.configure(reordering=reordering)


def lexmin_outputs(game: SymbolicGame, moves: Function, budget: Budget | None = None) -> Function:
    """Keep, for every (state, next input), only the lexicographically smallest next output.

    Symbolic determinization over the next-output bits in declaration order (False first):
    a bit is forced to False wherever some allowed completion has it False.
    """
    bdd = game.bdd
    rest = list(game.post_out)
    for k, bit in enumerate(game.post_out):
        if budget is not None:
            budget.check(game)
        later = rest[k:]
        low_possible = bdd.exist(later, moves & ~bdd.var(bit))
        moves = moves & (~low_possible | ~bdd.var(bit))
    return moves


def _extract(game: SymbolicGame, solution: Solution, initial: str, name: str,
             budget: Budget | None, max_states: int | None) -> Strategy:
    bdd = game.bdd
    strategies = [lexmin_outputs(game, s & game.env_trans, budget)
                  for s in positional_strategies(game, solution, budget)]
    goals = game.sys_live
    pre_vars = game.pre_vars
    post_vars = game.post_vars
    post_in = game.post_in
    start = solution.winning & game.sys_init & game.env_init
    todo: deque[tuple[tuple[bool, ...], int]] = deque()
    index: dict[tuple[tuple[bool, ...], int], int] = {}
    valuations: list[dict[str, bool]] = []
    ranks: list[int] = []

    def add(valuation: dict[str, bool], goal: int) -> int:
        key = (tuple(valuation[v] for v in pre_vars), goal)
        found = index.get(key)
        if found is not None:
            return found
        if max_states is not None and len(valuations) >= max_states:
            raise BudgetExceeded("strategy state", max_states)
        index[key] = len(valuations)
        valuations.append(valuation)
        ranks.append(goal)
        todo.append(key)
        return index[key]

    if initial == "all":
        for valuation in _all_sorted(game, start, pre_vars):
            add(valuation, 0)
    else:
        for inputs in _all_sorted(game, bdd.exist(game.pre_out, start), game.pre_in):
            rest = bdd.let(inputs, start) if inputs else start
            add({**inputs, **_smallest(game, rest, game.pre_out)}, 0)
    initial_count = len(valuations)

    successors: list[list[int]] = []
    unprime = dict(zip(post_vars, pre_vars))
    while todo:
        if budget is not None:
            budget.check(game)
        key = todo.popleft()
        current = valuations[index[key]]
        goal = key[1]
        here = bdd.let(current, strategies[goal]) if current else strategies[goal]
        moves = _all_sorted(game, here, post_vars)
        moves.sort(key=lambda m: tuple(map(m.__getitem__, post_in)))
        reached: dict[int, set[tuple[bool, ...]]] = {}  # goal -> moves satisfying it
        out: list[int] = []
        for move in moves:
            nxt = goal
            first = True
            move_key = tuple(map(move.__getitem__, post_vars))
            while nxt != goal or first:
                hits = reached.get(nxt)
                if hits is None:
                    local = bdd.let(current, goals[nxt]) if current else goals[nxt]
                    hits = reached[nxt] = {
                        tuple(map(m.__getitem__, post_vars))
                        for m in _all_sorted(game, here & local, post_vars)}
                if move_key not in hits:
                    break
                nxt = (nxt + 1) % len(goals)
                first = False
            target = {unprime[b]: value for b, value in move.items()}
            out.append(add(target, nxt))
        successors.append(out)

    variables = [VariableInfo(v.name, v.owner, v.kind, v.low, v.high)
                 for v in game.spec.variables]
    inputs_names = [v.name for v in game.spec.inputs]
    outputs_names = [v.name for v in game.spec.outputs]
    states = []
    for sid, valuation in enumerate(valuations):
        states.append(StrategyState(
            id=sid,
            inputs=game.decode(valuation, names=inputs_names),
            outputs=game.decode(valuation, names=outputs_names),
            successors=successors[sid],
            rank=ranks[sid],
            initial=sid < initial_count,
        ))
    metadata = {"source": "bdi_supervisor", "goals": len(goals),
                "order": [v.name for v in game.variables], "initial": initial}
    return Strategy(variables, states, name, metadata)
