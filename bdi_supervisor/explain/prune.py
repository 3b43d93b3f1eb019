"""The safety guarantees the environment's win relies on: a smaller unrealizable subset of an
unrealizable set of guarantees, found with a few games instead of one per guarantee.

The environment's counter-strategy on the set ``S`` of guarantees (:mod:`.counterstrategy`)
wins every play it takes part in. Play it against every system move ``S`` allows, from the
initial states it wins from: the (state, next input) pairs it plays on the way form ``P``. Keep
only some safety guarantees ``K`` (with every initial and liveness guarantee of ``S``): the
system gains moves at ``P``. If ``K`` is realizable, some of the system's moves at ``P`` into its
winning region ``W_K`` are not moves of ``S`` (otherwise, against the counter-strategy, it
would only ever make moves of ``S`` and lose). Those *escapes* are forbidden by guarantees of
``S`` that ``K`` lacks. The loop starts from no safety guarantee, adds guarantees that forbid
the escapes to the system's quickest wins (those meeting a liveness guarantee, else those into
the lowest ``Y`` level of the solver that has any, else all), and solves again until ``K`` is
unrealizable: each added guarantee cut off a way the system would have won. The core is then
minimized within ``K`` (:mod:`.core`).
"""

from __future__ import annotations

from collections.abc import Iterator

from bdi_supervisor.explain import counterstrategy as counter
from bdi_supervisor.explain.arena import ClauseArena, ClauseRef, MonotoneOracle
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame
from bdi_supervisor.synthesis.valuations import holds


def counter_strategy_pairs(game: SymbolicGame, symbolic: counter.SymbolicCounterStrategy,
                           budget: gr1.Budget | None = None) -> Function:
    """The (state, next input) pairs the environment's counter-strategy (``symbolic``, solved
    on ``game``) plays against every safe system answer, from the initial states it wins from
    (over current bits and next inputs); FALSE when it has no winning initial input."""
    moves = game.false
    for i, j in sorted({(i, j) for i, j, _ in symbolic.entries}):
        moves |= symbolic.strategy(game, i, j)
    inputs = counter.env_initial_inputs(game, symbolic.winning)
    region = inputs & game.env_init & game.sys_init
    while True:
        if budget is not None:
            budget.check(game)
        answers = game.within_sys(region & moves)
        grown = region | game.unprime(game.exists(game.pre_vars, answers))
        if grown == region:
            return region & moves
        region = grown


def relevant_guarantees(arena: ClauseArena, oracle: MonotoneOracle, start: list[ClauseRef],
                        budget: gr1.Budget | None = None) -> list[ClauseRef]:
    """An unrealizable subset of ``start`` (unrealizable with every assumption) that keeps its
    initial and liveness guarantees and the safety guarantees the escapes needed (see the
    module docstring), in that order: the safety guarantees as they were added, those that
    cut off the quickest wins first (a good order for ddmin to split: the core's safety
    guarantees tend to come early); ``start`` itself when it has no safety guarantee."""
    safety = [ref for ref in start if ref.section == "sys_safety"]
    others = [ref for ref in start if ref.section != "sys_safety"]
    if not safety:
        return list(start)
    game, symbolic = arena.environment([*oracle.fixed, *start])
    pairs = counter_strategy_pairs(game, symbolic, budget)
    allowed = game.within_sys(pairs)
    chosen: list[ClauseRef] = []
    while True:
        kept = [*others, *chosen]
        if oracle.known(kept) is True:
            return kept
        smaller, winning, levels = arena.winning_region([*oracle.fixed, *kept], levels=True)
        oracle.record(kept, winning is None)
        if winning is None:
            return kept
        new = smaller.within_sys(pairs) & ~allowed
        escapes = next(tier for tier in _tiers(smaller, new, winning, levels)
                       if tier != smaller.false)
        blocking = _cover(arena, smaller, escapes, [r for r in safety if r not in chosen],
                          budget)
        if not blocking:  # cannot happen (see the module docstring); keep every guarantee
            return list(start)
        chosen += blocking


def _tiers(game: SymbolicGame, moves: Function, winning: Function,
           levels: list[list[Function]]) -> Iterator[Function]:
    """``moves`` into the winning region, the system's quickest wins first: the moves that
    meet a liveness guarantee, then those into each ``Y`` level in turn, then all."""
    inside = moves & game.prime(winning)
    yield inside & _disjunction(game, game.sys_live) if levels else game.false
    for depth in range(max((len(found) for found in levels), default=0)):
        reached = _disjunction(game, [found[min(depth, len(found) - 1)] for found in levels])
        yield inside & game.prime(reached)
    yield inside


def _disjunction(game: SymbolicGame, parts: list[Function]) -> Function:
    result = game.false
    for part in parts:
        result |= part
    return result


def _cover(arena: ClauseArena, game: SymbolicGame, moves: Function, candidates: list[ClauseRef],
           budget: gr1.Budget | None) -> list[ClauseRef]:
    """Guarantees among ``candidates`` that together forbid every move of ``moves``; empty when
    they cannot. Greedy, one witness at a time: take a move still allowed, and of the
    guarantees that forbid it the one that forbids the most remaining moves."""
    names = game.pre_vars + game.post_vars
    bits = len(names)
    chosen: list[ClauseRef] = []
    remaining = moves
    while remaining != game.false:
        if budget is not None:
            budget.check(game)
        witness = game.bdd.pick(remaining, care_vars=set(names))
        blocking = [ref for ref in candidates
                    if ref not in chosen and not holds(arena.encoded[ref], witness)]
        if not blocking:
            return []
        best = max(blocking, key=lambda ref: game.bdd.count(remaining & ~arena.encoded[ref],
                                                             nvars=bits))
        chosen.append(best)
        remaining &= arena.encoded[best]
    return chosen
