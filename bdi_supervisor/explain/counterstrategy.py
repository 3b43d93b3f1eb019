"""The environment's winning strategy of an unrealizable spec (slugs' ``--counterStrategy``).

Symbolic: the environment's fixpoint, the dual of the system's (slugs' formulation)::

    W = mu Z. OR_j nu Y. AND_i mu X. upre( (!goal_j | Z') & Y' & (X' | assumption_i) )

where ``upre`` lets the environment pick an admissible next input such that every safe answer of
the system stays on the given transitions (a system left without a safe answer has lost). Its
region ``W`` is the complement of the system's winning region (the games are determined; the
explanation checks that they are). Every step of each innermost ``X`` leaves the environment's
moves as a predicate over the current bits and the next inputs, tagged ``(i, j)``: the
assumption to satisfy next and the guarantee being prevented. Entries of an earlier ``Z`` step
come first, and for a guarantee only the entries of the final ``Y`` pass of each ``Z`` step are
kept, so the first entry that covers a state is the one that makes progress; the positional
strategy for ``(i, j)`` gives each state the moves of that first entry.

The rank ``(i, j)`` is the memory of the strategy. Call the ``Z`` step of the first entry of
rank ``(i, j)`` that covers a state its *level*, and its ``X`` step its *distance*. A move of
that entry leads into ``Y`` of the same level and guarantee, and into the previous ``Z`` step
when it satisfies guarantee ``j``. After a move:

- ``i`` moves past every assumption the move satisfies, from ``i`` on, at most once around
  (stuttering avoidance, as slugs does);
- ``j`` stays while guarantee ``j`` does not hold on the move; when it holds, the environment
  chooses anew: ``j`` becomes the guarantee of the first entry of assumption ``i`` (the new
  one) that covers the new state, so the level drops (the new state lies in an earlier ``Z``
  step, whose ``Y`` sets are covered by entries of every assumption).

The level never rises and drops whenever guarantee ``j`` holds; at a fixed level a move that
misses assumption ``i`` lowers the distance. So every play stays at one level and one ``j`` from
some point on, misses guarantee ``j`` from then on and meets every assumption again and again:
the environment wins. slugs instead moves ``j`` past every guarantee the move satisfies (wrapping
around to ``j`` itself when a move satisfies them all), which can leave the new state at a level
no lower than before, and its explicit strategy can then loop through every guarantee.

Explicit (bounded by ``max_states``): states are pairs (full valuation, rank ``(i, j)``). The
initial states are every valuation of ``W & env_init & sys_init`` in lexicographic order, each
with the rank ``(0, j)`` chosen as after a guarantee. From a state, if some admissible next input
leaves the system no safe answer, that input (the smallest) is the only successor: a state of
inputs only, with no successors (a deadlock). Otherwise the environment plays the smallest next
input its positional strategy allows and every safe system answer is a successor, in
lexicographic order, with the rank updated as above. States are numbered in the order they are
found (breadth first). :func:`slugs_text` writes it in slugs' ``--counterStrategy`` text format,
:func:`to_json` in ours.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from bdi_supervisor.spec.slugsin import bit_names
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame
from bdi_supervisor.synthesis.valuations import advance, holds, smallest, sorted_lazily

FORMAT = "bdi_supervisor/counterstrategy"


@dataclass
class SymbolicCounterStrategy:
    """The environment's fixpoint: its winning region and its moves per rank."""

    winning: Function
    #: (assumption i, guarantee j, moves over current bits and next inputs), in fixpoint order
    entries: list[tuple[int, int, Function]]
    z_steps: int = 0
    strategies: dict[tuple[int, int], Function] = field(default_factory=dict)
    #: per assumption, the states whose first covering entry blocks each guarantee
    choices: dict[int, list[Function]] = field(default_factory=dict)

    def strategy(self, game: SymbolicGame, i: int, j: int) -> Function:
        """The positional strategy of rank ``(i, j)``: each state's moves from the first entry
        of that rank that covers it."""
        key = (i, j)
        if key not in self.strategies:
            result = game.false
            covered = game.false
            for a, g, moves in self.entries:
                if (a, g) != key:
                    continue
                result |= moves & ~covered
                covered = game.exists(game.post_in, result)
            self.strategies[key] = result
        return self.strategies[key]

    def choice(self, game: SymbolicGame, i: int) -> list[Function]:
        """Per guarantee ``j``, the states (over the current bits) whose first covering entry of
        assumption ``i``, in fixpoint order, prevents ``j``: where the environment commits to
        blocking ``j`` (the earliest ``Z`` step that reaches the state)."""
        if i not in self.choices:
            chosen = [game.false] * len(game.sys_live)
            covered = game.false
            for a, g, moves in self.entries:
                if a != i:
                    continue
                new = game.exists(game.post_in, moves) & ~covered
                chosen[g] |= new
                covered |= new
            self.choices[i] = chosen
        return self.choices[i]


def environment_fixpoint(game: SymbolicGame, budget: gr1.Budget | None = None
                         ) -> SymbolicCounterStrategy:
    """Solve the environment's side of ``game`` (see the module docstring)."""
    goals, assumptions = game.sys_live, game.env_live
    entries: list[tuple[int, int, Function]] = []
    z = game.false
    steps = 0
    while True:
        steps += 1
        reach = game.false
        for j, goal in enumerate(goals):
            kept = len(entries)
            live = ~goal | game.prime(z)
            y = game.true
            while True:
                del entries[kept:]
                towards = live & game.prime(y)
                good = y
                for i, assumption in enumerate(assumptions):
                    x = game.false
                    while True:
                        if budget is not None:
                            budget.check(game)
                        moves = game.env_moves(towards & (game.prime(x) | assumption))
                        entries.append((i, j, moves))
                        new = game.exists(game.post_in, moves)
                        if new == x:
                            break
                        x = new
                    good &= x
                if good == y:
                    break
                y = good
            reach |= y
        if reach == z:
            return SymbolicCounterStrategy(z, entries, steps)
        z = reach


def env_initial_inputs(game: SymbolicGame, region: Function) -> Function:
    """Initial inputs from which the environment wins: ``env_init`` and every output allowed
    by ``sys_init`` starts inside ``region`` (over the current input bits)."""
    inside = game.forall(game.pre_out, ~game.sys_init | region)
    return game.exists(game.pre_out, game.env_init & inside) & inside


# ---------------------------------------------------------------- explicit


@dataclass
class CounterState:
    """One state of the explicit counter-strategy (``outputs`` is None for a deadlock: the
    system has no safe answer to ``inputs``)."""

    id: int
    rank: tuple[int, int]
    inputs: dict[str, bool | int]
    outputs: dict[str, bool | int] | None
    successors: list[int] = field(default_factory=list)
    initial: bool = False
    #: the bits of the state (pre-state bits in declaration order; inputs only for a deadlock)
    bits: dict[str, bool] = field(default_factory=dict, repr=False)

    @property
    def deadlock(self) -> bool:
        return self.outputs is None


@dataclass
class ExplicitCounterStrategy:
    states: list[CounterState]
    #: stopped at ``max_states``: the states found so far, the last ones not expanded
    truncated: bool = False
    max_states: int | None = None


class CounterMoves:
    """The environment's moves and the system's answers from explicit states (shared by the
    explicit counter-strategy and the counter-run)."""

    def __init__(self, game: SymbolicGame, symbolic: SymbolicCounterStrategy,
                 budget: gr1.Budget | None = None) -> None:
        self.game = game
        self.symbolic = symbolic
        self.budget = budget
        self.unprime = dict(zip(game.post_vars, game.pre_vars))
        self.unprime_in = dict(zip(game.post_in, game.pre_in))
        self._stuck: Function | None = None

    @property
    def stuck(self) -> Function:
        """The (state, next input) pairs that leave the system no safe answer."""
        if self._stuck is None:
            game = self.game
            self._stuck = game.forall(game.post_out, game.within_env(game.true) & ~game.sys_trans)
        return self._stuck

    def cube(self, bits: dict[str, bool]) -> Function:
        return self.game.bdd.cube(bits)

    def initial(self) -> Iterator[dict[str, bool]]:
        """The initial states the environment wins from, in order, one at a time."""
        game = self.game
        start = self.symbolic.winning & game.env_init & game.sys_init
        return sorted_lazily(game, start, game.pre_vars, self.budget)

    def goal(self, bits: dict[str, bool], i: int) -> int:
        """The guarantee the environment commits to blocking from the state ``bits`` (a total
        assignment of the current bits) while it waits for assumption ``i``."""
        for j, states in enumerate(self.symbolic.choice(self.game, i)):
            if holds(states, bits):
                return j
        raise ValueError("state outside the environment's winning region")

    def first_rank(self, bits: dict[str, bool]) -> tuple[int, int]:
        return 0, self.goal(bits, 0)

    def next_rank(self, rank: tuple[int, int], values: dict[str, bool],
                  after: dict[str, bool]) -> tuple[int, int]:
        """The rank after the move ``values`` (current and next bits) into the state ``after``
        (its bits, unprimed): see the module docstring."""
        game = self.game
        i = advance(game.env_live, rank[0], values)
        if not holds(game.sys_live[rank[1]], values):
            return i, rank[1]
        return i, self.goal(after, i)

    def successors(self, bits: dict[str, bool], rank: tuple[int, int],
                   prefer: list[Function] = ()
                   ) -> tuple[dict[str, bool] | None,
                              Iterator[tuple[dict[str, bool], tuple[int, int]]]]:
        """``(deadlock input, nothing)`` or ``(None, (next state bits, next rank)...)``, the
        successors in order and one at a time (the system may have 2^k answers); with
        ``prefer`` (sets of states over the current bits, best first) only the answers that
        lead into the first set some answer leads into."""
        game = self.game
        cube = self.cube(bits)
        stuck = cube & self.stuck
        if stuck != game.false:
            chosen = smallest(game, game.exists(game.pre_vars, stuck), game.post_in)
            return {self.unprime_in[b]: v for b, v in chosen.items()}, iter(())
        i, j = rank
        moves = cube & self.symbolic.strategy(game, i, j)
        if moves == game.false:
            raise ValueError(f"state outside the environment's winning region (rank {rank})")
        chosen = smallest(game, game.exists(game.pre_vars, moves), game.post_in)
        answers = game.within_sys(cube & game.bdd.cube(chosen))
        for states in prefer:
            kept = answers & game.prime(states)
            if kept != game.false:
                answers = kept
                break
        answers = game.exists(game.pre_vars + game.post_in, answers)
        return None, self._answers(bits, rank, chosen, answers)

    def _answers(self, bits: dict[str, bool], rank: tuple[int, int], chosen: dict[str, bool],
                 answers: Function) -> Iterator[tuple[dict[str, bool], tuple[int, int]]]:
        for answer in sorted_lazily(self.game, answers, self.game.post_out, self.budget):
            after = {self.unprime[b]: v for b, v in {**chosen, **answer}.items()}
            yield after, self.next_rank(rank, {**bits, **chosen, **answer}, after)


def explicit_counter_strategy(game: SymbolicGame, symbolic: SymbolicCounterStrategy,
                              max_states: int | None = None,
                              budget: gr1.Budget | None = None) -> ExplicitCounterStrategy:
    """The explicit counter-strategy (see the module docstring); stops adding states at
    ``max_states`` (``truncated``)."""
    bdd = game.bdd
    reordering = bdd.configure(reordering=False)["reordering"]
    try:
        return _explicit(game, symbolic, max_states, budget)
    finally:
        bdd.configure(reordering=reordering)


def _explicit(game: SymbolicGame, symbolic: SymbolicCounterStrategy, max_states: int | None,
              budget: gr1.Budget | None) -> ExplicitCounterStrategy:
    moves = CounterMoves(game, symbolic, budget)
    states: list[CounterState] = []
    index: dict[tuple, int] = {}
    todo: deque[int] = deque()
    result = ExplicitCounterStrategy(states, max_states=max_states)
    inputs_names = [v.name for v in game.spec.inputs]
    outputs_names = [v.name for v in game.spec.outputs]

    def add(bits: dict[str, bool], rank: tuple[int, int], deadlock: bool = False,
            initial: bool = False) -> int | None:
        names = game.pre_in if deadlock else game.pre_vars
        key = (deadlock, tuple(bits[b] for b in names), rank)
        if key in index:
            return index[key]
        if max_states is not None and len(states) >= max_states:
            result.truncated = True
            return None
        index[key] = len(states)
        states.append(CounterState(
            len(states), rank, game.decode(bits, names=inputs_names),
            None if deadlock else game.decode(bits, names=outputs_names),
            initial=initial, bits=dict(bits)))
        if not deadlock:
            todo.append(index[key])
        return index[key]

    for bits in moves.initial():
        if add(bits, moves.first_rank(bits), initial=True) is None:
            return result  # more initial states than max_states
    while todo:
        if budget is not None:
            budget.check(game)
        state = states[todo.popleft()]
        stuck, nexts = moves.successors(state.bits, state.rank)
        targets = [add(stuck, state.rank, deadlock=True)] if stuck is not None else \
            _until_none(add(bits, rank) for bits, rank in nexts)
        state.successors = [t for t in targets if t is not None]
        if result.truncated:
            break
    return result


def _until_none(items: Iterator[int | None]) -> list[int | None]:
    """The items up to the first None (a state past ``max_states``), that one included."""
    out: list[int | None] = []
    for item in items:
        out.append(item)
        if item is None:
            break
    return out


def to_json(game: SymbolicGame, explicit: ExplicitCounterStrategy) -> dict:
    """Our JSON of an explicit counter-strategy (decoded variables, ranks, successors)."""
    return {
        "format": FORMAT, "version": 1,
        "variables": [{"name": v.name, "owner": v.owner, "kind": v.kind, "low": v.low,
                       "high": v.high} for v in game.spec.variables],
        "goals": len(game.sys_live), "assumptions": len(game.env_live),
        "truncated": explicit.truncated, "max_states": explicit.max_states,
        "states": [{"id": s.id, "rank": list(s.rank), "initial": s.initial,
                    "inputs": s.inputs, "outputs": s.outputs, "deadlock": s.deadlock,
                    "successors": s.successors} for s in explicit.states],
    }


def slugs_text(game: SymbolicGame, explicit: ExplicitCounterStrategy) -> str:
    """The explicit counter-strategy in slugs' ``--counterStrategy`` text format (JTLV's),
    bit names as slugs' compiler writes them (``x@0.low.high``, ``x@1``…), a deadlock state
    printed right after the first state that leads to it, as slugs prints it."""
    variables = {v.name: v for v in game.spec.variables}
    inputs = [v for v in game.variables if v.owner == "env"]
    everything = inputs + [v for v in game.variables if v.owner == "sys"]

    def valuation(state: CounterState, chosen: list) -> str:
        parts = []
        for var in chosen:
            ours = game.bits[var.name]
            for mine, theirs in zip(ours, bit_names(variables[var.name])):
                parts.append(f"{theirs}:{int(state.bits[mine])}")
        return ", ".join(parts)

    lines: list[str] = []
    printed: set[int] = set()
    for state in explicit.states:
        if state.deadlock:
            continue
        lines.append(f"State {state.id} with rank ({state.rank[0]},{state.rank[1]}) -> "
                     f"<{valuation(state, everything)}>")
        targets = [explicit.states[t] for t in state.successors]
        if targets and targets[0].deadlock:
            dead = targets[0]
            if dead.id in printed:
                lines.append(f"\tWith successors : {dead.id}")
            else:
                printed.add(dead.id)
                lines.append(f"\tWith successors : {dead.id}")
                lines.append(f"State {dead.id} with rank ({dead.rank[0]},{dead.rank[1]}) -> "
                             f"<{valuation(dead, inputs)}>")
                lines.append("\tWith no successors.")
        else:
            lines.append("\tWith successors : " + ", ".join(str(t.id) for t in targets))
    return "\n".join(lines) + ("\n" if lines else "")
