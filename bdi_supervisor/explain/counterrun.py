"""A counter-run: one play in which the environment's counter-strategy beats the system.

The environment plays its counter-strategy (:class:`~.counterstrategy.CounterMoves`); the system
plays its best: from the environment's winning region every answer loses, and the play shows
why. The system stays inside its *safety region* (``nu Z. cpre(Z')``: the states from which it
can keep its safety guarantees for ever) where it can, so the environment cannot make it break
its safety and must beat it by liveness; and among those answers it takes one that leads
closest to the guarantee the environment is blocking, counting the steps a cooperating
environment would need (:func:`progress_layers`), so the system keeps trying instead of idling.
The play thus ends in a loop that the environment sustains (e.g. a capability that fails for
ever) rather than in the first careless step's deadlock or a loop the system chose. Ties go to
the lexicographically smallest outputs. The play starts from the smallest initial input from
which the environment wins and the best initial output the system's initial conditions allow,
and ends when a state (valuation and rank) comes back, a *loop* in which some guarantee never
holds while every assumption does, or when the environment leaves the system no safe answer (a
*deadlock*: the system must break its safety).

:func:`lasso_strategy` turns the play into an explicit strategy (one successor per state, the
last one leading back into the loop), which the realization and the embedded executor accept
like any supervisor: replayed with the play's outcomes forced, it shows the failure happen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.explain.counterstrategy import CounterMoves
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.gr1 import safety_region
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame
from bdi_supervisor.synthesis.valuations import smallest

LOOP = "loop"
DEADLOCK = "deadlock"
NO_INITIAL_OUTPUT = "no-initial-output"
#: the play is cut after this many steps (a loop comes back within the state count anyway)
MAX_STEPS = 10_000


@dataclass
class PlayStep:
    """One position of the play: the inputs on arrival, the system's answer (None when it has
    no safe answer) and the counter-strategy's rank ``(assumption, guarantee)``."""

    inputs: dict[str, bool | int]
    outputs: dict[str, bool | int] | None
    rank: tuple[int, int]

    def to_dict(self) -> dict:
        return {"inputs": self.inputs, "outputs": self.outputs, "rank": list(self.rank)}


@dataclass
class CounterRun:
    steps: list[PlayStep] = field(default_factory=list)
    #: ``loop`` (back to ``loop_start``), ``deadlock`` or ``no-initial-output``
    end: str = LOOP
    loop_start: int | None = None
    #: the guarantee the environment prevents forever in the loop (index into sys_liveness)
    goal: int | None = None

    def to_dict(self) -> dict:
        return {"end": self.end, "loop_start": self.loop_start, "goal": self.goal,
                "steps": [s.to_dict() for s in self.steps]}


def counter_run(game: SymbolicGame, moves: CounterMoves) -> CounterRun:
    """The counter-run of ``game`` (see the module docstring)."""
    inputs_names = [v.name for v in game.spec.inputs]
    outputs_names = [v.name for v in game.spec.outputs]
    symbolic = moves.symbolic
    env_wins = game.exists(game.pre_out, game.env_init) & game.forall(
        game.pre_out, ~game.sys_init | symbolic.winning)
    first_input = smallest(game, env_wins, game.pre_in)
    start = game.env_init & game.sys_init & game.bdd.cube(first_input)
    run = CounterRun()
    if start == game.false:
        run.end = NO_INITIAL_OUTPUT
        run.steps.append(PlayStep(game.decode(first_input, names=inputs_names), None, (0, 0)))
        return run
    safe = safety_region(game, moves.budget)
    layers: dict[int, list[Function]] = {}

    def best(j: int) -> list[Function]:
        if j not in layers:
            layers[j] = progress_layers(game, safe, j, moves.budget)
        return layers[j]

    first = moves.first_rank({**first_input, **smallest(game, start, game.pre_out)})
    bits = {**first_input, **smallest(game, preferred(game, start, best(first[1])),
                                      game.pre_out)}
    rank = moves.first_rank(bits)
    seen: dict[tuple, int] = {}
    while len(run.steps) < MAX_STEPS:
        key = (tuple(bits[b] for b in game.pre_vars), rank)
        if key in seen:
            run.loop_start = seen[key]
            run.goal = rank[1]
            return run
        seen[key] = len(run.steps)
        run.steps.append(PlayStep(game.decode(bits, names=inputs_names),
                                  game.decode(bits, names=outputs_names), rank))
        stuck, nexts = moves.successors(bits, rank, prefer=best(rank[1]))
        if stuck is not None:
            run.end = DEADLOCK
            run.steps.append(PlayStep(game.decode(stuck, names=inputs_names), None, rank))
            return run
        bits, rank = next(nexts)
        if moves.budget is not None:
            moves.budget.check(game)
    raise BudgetExceeded("counter-run step", MAX_STEPS)  # a play that does not close soon


def progress_layers(game: SymbolicGame, safe: Function, goal: int,
                    budget: gr1.Budget | None = None) -> list[Function]:
    """States of the safety region by how many joint steps (both players keeping their safety,
    the environment cooperating) they need to meet guarantee ``goal``: layer 0 meets it on its
    next move, layer k + 1 moves into layer k; the region itself comes last (no way there)."""
    stay = game.prime(safe)
    layer = safe & game.pre_exists(game.sys_live[goal] & stay) if game.sys_live else game.false
    out = [layer]
    while True:
        if budget is not None:
            budget.check(game)
        more = layer | (safe & game.pre_exists(game.prime(layer) & stay))
        if more == layer:
            break
        out.append(more)
        layer = more
    return [*out, safe]


def preferred(game: SymbolicGame, states: Function, layers: list[Function]) -> Function:
    """The states of ``states`` in the first of ``layers`` that holds some (``states`` when
    none does)."""
    for layer in layers:
        kept = states & layer
        if kept != game.false:
            return kept
    return states


def lasso_strategy(game: SymbolicGame, run: CounterRun, name: str = "counter_run") -> Strategy:
    """The play as an explicit strategy of the system: state k answers as in the play and has
    one successor, the next position (the loop's last position leads back to its start; a
    deadlock's last position, which has no safe answer, is left out)."""
    variables = [Variable(v.name, v.owner, v.kind, v.low, v.high) for v in game.spec.variables]
    positions = [s for s in run.steps if s.outputs is not None]
    states = []
    for k, step in enumerate(positions):
        if k + 1 < len(positions):
            successors = [k + 1]
        elif run.end == LOOP and run.loop_start is not None:
            successors = [run.loop_start]
        else:
            successors = []
        states.append(StrategyState(k, dict(step.inputs), dict(step.outputs or {}), successors,
                                    rank=step.rank[1], initial=k == 0))
    return Strategy(variables, states, name, {"source": "bdi_supervisor explain",
                                             "counter_run": True})
