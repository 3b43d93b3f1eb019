"""GR(1) games on a :class:`~bdi_supervisor.synthesis.symbolic.SymbolicGame` (slugs' semantics).

The Piterman–Pnueli–Sa'ar three nested fixpoint::

    Z = nu Z. AND_j  mu Y. OR_i  nu X. cpre( (goal_j & Z') | Y' | (X' & !assumption_i) )

with slugs' conventions: liveness clauses are transition predicates (they may mention next
values), ``cpre`` lets the system answer after seeing the next input, the system must not be
the first to violate safety, and the spec is realizable iff every initial input valuation
allowed by ``env_init`` has an output valuation with ``sys_init`` inside the winning region
(``A x. E y. env_init -> sys_init & Z``). An empty liveness section counts as one ``TRUE``
clause.

Implementation notes: the outer fixpoint is updated goal by goal (Gauss–Seidel), which reaches
the same greatest fixpoint in fewer passes; *fixpoint recycling* starts every inner greatest
fixpoint ``X[j][r][i]`` from its value in the previous outer pass (a sound upper bound because
``Z`` only shrinks); *safety start* (optional, off by default) starts ``Z`` and every fresh
``X`` from the safety region ``W = nu Z. cpre(Z')`` instead of TRUE. That is sound because ``W``
contains the winning region and every inner fixpoint value (each is a set the system can keep
inside ``Z | Y | X``, and ``cpre`` of a subset of ``W`` stays in ``W``), so each greatest
fixpoint reached from ``W`` is the one reached from TRUE; and when ``W`` already is the winning
region, the first outer pass changes nothing and is also the last. *Reachable states*
(optional, on in synthesis) run every fixpoint inside the set ``R`` of states reachable from
the initial ones by joint moves that keep both players' safety: from a state of ``R`` every
such move stays in ``R`` and ``cpre`` only looks at such moves (a move the environment's safety
forbids satisfies it whatever the target), so ``cpre(T) & R = cpre(T & R') & R`` and, step by
step, every iterate is the plain iterate intersected with ``R``; the initial states lie in
``R``, so realizability is the same, and the strategy too (it only visits states of ``R``, where
every paths predicate is the plain one). A fixpoint within ``R`` stops as soon as it is stable
there; outside ``R`` (often most of the state space, with long chains of states that the
greatest fixpoints peel off one step at a time) nothing is computed. Not used when the
environment's safety reads next outputs (a move that breaks it may then leave ``R``). The pass
in which ``Z`` no
longer changes leaves, per goal, the list of "paths" predicates
``(goal_j & Z') | Y' | (X' & !assumption_i)`` in slugs' order; strategy extraction
(:mod:`bdi_supervisor.synthesis.extract`) builds the positional strategies from them. No Python
loop ever runs over states here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bdi_supervisor.bdd import LiveNodes, cudd
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame

Progress = Callable[[dict], None]


@dataclass
class Budget:
    """Time (seconds) and live-node limits; :meth:`check` raises :class:`BudgetExceeded`.

    The clock starts when the budget is made. Callers check between BDD operations (every
    fixpoint step, every encoded clause, every extracted state), so a run stops at most one
    CUDD operation (including a dynamic reordering CUDD starts inside it) after the time limit:
    a single operation cannot be interrupted. The live nodes are counted as
    :class:`~bdi_supervisor.bdd.LiveNodes` does (a count scans CUDD's unique table), so a run
    that passes the node limit stops within about ten counts' time of work after the count
    that sees it. ``phase`` names the work in progress (set by the
    caller, e.g. ``"encoding"``), for the report of an incomplete run.
    """

    seconds: float | None = None
    nodes: int | None = None
    started: float = field(default_factory=lambda: time.monotonic())
    phase: str = ""
    live: LiveNodes = field(default_factory=LiveNodes, repr=False, compare=False)

    def remaining(self) -> float | None:
        """Seconds left of the time budget (None: no time budget; never below 0)."""
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - (time.monotonic() - self.started))

    def check_time(self) -> None:
        """Raise :class:`BudgetExceeded` when the time budget is spent (no BDD needed)."""
        if self.seconds is not None and time.monotonic() - self.started > self.seconds:
            raise BudgetExceeded("time", self.seconds)

    def check(self, game: SymbolicGame | cudd.BDD) -> None:
        self.check_time()
        if self.nodes is not None:
            bdd = game if isinstance(game, cudd.BDD) else game.bdd
            if self.live(bdd) > self.nodes and self.live(bdd, fresh=True) > self.nodes:
                raise BudgetExceeded("node", self.nodes)


class PhaseClock:
    """Times the phases of a run and names the one in progress on its budget (for the report
    of a run a budget stopped): each phase's wall time goes to ``record(phase, seconds)`` when
    it ends, and ``progress`` is told ``{"phase": name}`` as each begins."""

    def __init__(self, budget: Budget, record: Callable[[str, float], None],
                 progress: Progress | None = None) -> None:
        self.budget = budget
        self.record = record
        self.progress = progress
        self.phase = ""
        self.begin = 0.0

    def enter(self, phase: str) -> None:
        self.leave()
        self.phase = self.budget.phase = phase
        if self.progress is not None:
            self.progress({"phase": phase})
        self.begin = time.perf_counter()

    def leave(self) -> None:
        if self.phase:
            self.record(self.phase, time.perf_counter() - self.begin)
        self.phase = ""


@dataclass
class Reordering:
    """Manual sifting when live nodes pass ``threshold`` (then the threshold doubles); the nodes
    are counted as :class:`~bdi_supervisor.bdd.LiveNodes` does."""

    threshold: int
    live: LiveNodes = field(default_factory=LiveNodes, repr=False, compare=False)

    def maybe(self, game: SymbolicGame) -> None:
        if self.live(game.bdd) > self.threshold:
            game.bdd.reorder()
            self.threshold = max(self.threshold, 2 * self.live(game.bdd, fresh=True))


@dataclass
class Solution:
    """Result of :func:`solve`: the winning region and the strategy data of the last pass."""

    winning: Function
    realizable: bool
    #: (goal index, paths predicate) in slugs' order, from the final outer pass
    paths: list[tuple[int, Function]]
    #: ``winning`` is the exact region (False after an early exit on unrealizability)
    exact: bool = True
    z_passes: int = 0
    y_levels: int = 0
    x_iterations: int = 0
    #: first goal found unreachable from the initial states in the first pass (or None)
    unreachable_goal: int | None = None
    #: the safety region ``nu Z. cpre(Z')`` when the solve started from it (else None)
    safety: Function | None = None
    safety_iterations: int = 0
    #: the states the fixpoints ran in (``reachable``; None: every state)
    reachable: Function | None = None
    #: breadth-first steps of the reachable states' computation
    reachable_steps: int = 0
    #: with ``keep_levels``: per goal, the ``Y`` levels of the final pass (growing sets:
    #: the states from which the system reaches the goal within that many levels)
    levels: list[list[Function]] = field(default_factory=list)


def initial_ok(game: SymbolicGame, region: Function) -> bool:
    """``A x. E y. env_init -> sys_init & region`` (slugs' standard initial semantics)."""
    return initial_losing_inputs(game, region) == game.false


def initial_losing_inputs(game: SymbolicGame, region: Function) -> Function:
    """Initial input valuations (current input bits) with no winning initial output."""
    good = game.exists(game.pre_out, ~game.env_init | (game.sys_init & region))
    return ~good


def safety_region(game: SymbolicGame, budget: Budget | None = None,
                  solution: Solution | None = None, within: Function | None = None) -> Function:
    """States from which the system keeps its safety forever (``nu Z. cpre(Z')``).

    ``solution``: count the steps in its ``safety_iterations``. ``within``: a set of states
    closed under the joint moves (:func:`reachable_states`): the region inside it.
    """
    z = game.true if within is None else within
    while True:
        if budget is not None:
            budget.check(game)
        if solution is not None:
            solution.safety_iterations += 1
        new = _cpre(game, game.prime(z), within)
        if new == z:
            return z
        z = new


def reachable_states(game: SymbolicGame, budget: Budget | None = None,
                     solution: Solution | None = None) -> Function:
    """The states reachable from the initial ones (``env_init & sys_init``) by joint moves
    that keep both players' safety (breadth first; ``solution``: count the steps in its
    ``reachable_steps``)."""
    reach = frontier = game.env_init & game.sys_init
    while frontier != game.false:
        if budget is not None:
            budget.check(game)
        if solution is not None:
            solution.reachable_steps += 1
        frontier = game.image(frontier) & ~reach
        reach |= frontier
    return reach


def _cpre(game: SymbolicGame, paths: Function, within: Function | None) -> Function:
    """``game.cpre(paths)``, inside ``within`` when given."""
    return game.cpre(paths) if within is None else game.cpre(paths) & within


def safety_realizable(game: SymbolicGame, budget: Budget | None = None) -> Function | None:
    """The winning region of a game without liveness guarantees (``sys_live`` only TRUE), or
    None when the system cannot start inside it.

    With no liveness guarantee the system wins exactly where it keeps its safety for ever,
    whatever the environment's liveness: the three nested fixpoints give the safety region
    ``nu Z. cpre(Z')`` (that region is kept by the outer function, whose first ``Y`` level
    already contains ``cpre(Z')``; and every set the outer function keeps is one the system can
    stay inside). Each iterate bounds the region from above, so the first one the initial
    states fail decides.
    """
    z = game.true
    while True:
        if not initial_ok(game, z):
            return None
        if budget is not None:
            budget.check(game)
        new = game.cpre_states(z)
        if new == z:
            return z
        z = new


def solve(game: SymbolicGame, *, recycling: bool = True, safety_start: bool = False,
          early_exit: bool = False, budget: Budget | None = None,
          reorder_threshold: int | None = None, progress: Progress | None = None,
          solution: Solution | None = None, keep_levels: bool = False,
          reachable: bool = False) -> Solution:
    """Solve the GR(1) game of ``game`` (see the module docstring).

    ``recycling`` and ``safety_start`` only change how fast the fixpoints get there: the
    winning region and the strategy data are the same either way. ``solution``: a fresh
    :class:`Solution` to fill in place and return, so that a caller still has the counters
    (passes, levels, iterations) when a budget stops the solve. ``keep_levels``: keep the final
    pass's ``Y`` levels in ``Solution.levels``. ``progress`` hears every ``cpre`` step as
    ``{"working": counters}`` and every ``Y`` level's end as the counters themselves
    (``pass``, ``goal``, ``goals``, ``level``, ``x_iterations``, ``live_nodes`` and
    ``last_levels``: the goal's number of ``Y`` levels in the previous pass, None in the first).
    ``reachable``: run every fixpoint inside the reachable states (:func:`reachable_states`,
    kept in ``Solution.reachable``; not when the environment's safety reads next outputs): the
    winning region, the paths predicates and the levels are then those of the plain solve
    intersected with the reachable states, which decides the same realizability and gives the
    same strategy (see the module docstring).
    """
    if solution is None:
        solution = Solution(winning=game.true, realizable=False, paths=[])
    within = None
    if reachable and not game.env_reads_next_outputs:
        within = solution.reachable = reachable_states(game, budget, solution)
    top = game.true if within is None else within
    if safety_start:
        top = solution.safety = safety_region(game, budget, solution, within)
    fix = _Fixpoint(game, solution, top, budget, progress, recycling,
                    Reordering(reorder_threshold) if reorder_threshold else None, within)
    z = solution.winning = top
    first_pass = True
    while True:
        solution.z_passes += 1
        changed = False
        paths: list[tuple[int, Function]] = []
        levels: list[list[Function]] = []
        for j, goal in enumerate(game.sys_live):
            y, goal_levels = fix.least_y(j, goal & game.prime(z), paths)
            if keep_levels:
                levels.append(goal_levels)
            if first_pass and solution.unreachable_goal is None and not initial_ok(game, y):
                solution.unreachable_goal = j
            z_new = z & y
            if z_new != z:
                changed = True
                z = z_new
                if early_exit and not initial_ok(game, z):
                    solution.winning, solution.exact = z, False
                    return solution
        first_pass = False
        if not changed:
            break
    solution.winning = z
    solution.paths = paths
    solution.levels = levels
    solution.realizable = initial_ok(game, z)
    return solution


@dataclass
class _Fixpoint:
    """The inner fixpoints of :func:`solve` with what they share across outer passes: the
    recycled ``X`` values (``cache``), each goal's ``Y`` level count in the last pass."""

    game: SymbolicGame
    solution: Solution
    top: Function
    budget: Budget | None
    progress: Progress | None
    recycling: bool
    reorder: Reordering | None
    within: Function | None = None
    cache: dict[tuple[int, int], list[Function]] = field(default_factory=dict)
    last_levels: dict[int, int] = field(default_factory=dict)
    #: the live nodes in the progress counters (counted only while someone listens)
    live: LiveNodes = field(default_factory=LiveNodes)

    def __post_init__(self) -> None:
        self.not_assumptions = [~a for a in self.game.env_live]

    def least_y(self, j: int, reached: Function,
                paths: list[tuple[int, Function]]) -> tuple[Function, list[Function]]:
        """``mu Y. OR_i nu X. cpre(reached | Y' | X' & !assumption_i)`` for goal ``j``: ``Y``
        and its levels; each level's paths predicates are appended to ``paths``."""
        game, solution, not_assumptions = self.game, self.solution, self.not_assumptions
        y, level, levels = game.false, 0, []
        new_cache: dict[int, list[Function]] = {i: [] for i in range(len(not_assumptions))}
        while True:
            solution.y_levels += 1
            live = reached | game.prime(y) if level else reached
            y_new = y
            for i, not_i in enumerate(not_assumptions):
                old = self.cache.get((j, i))
                x = old[min(level, len(old) - 1)] if self.recycling and old else self.top
                step = None if self.progress is None else (
                    lambda level=level: self.progress({"working": self._counters(j, level)}))
                x, target = _greatest_x(game, live, not_i, x, solution, self.budget, step,
                                        self.within)
                new_cache[i].append(x)
                paths.append((j, target))
                y_new |= x
                if self.reorder is not None:
                    self.reorder.maybe(game)
            if self.progress is not None:
                self.progress(self._counters(j, level))
            level += 1
            levels.append(y_new)
            if y_new == y:
                break
            y = y_new
        for i, xs in new_cache.items():
            self.cache[(j, i)] = xs
        self.last_levels[j] = level
        return y, levels

    def _counters(self, j: int, level: int) -> dict:
        return {"pass": self.solution.z_passes, "goal": j, "goals": len(self.game.sys_live),
                "level": level, "x_iterations": self.solution.x_iterations,
                "live_nodes": self.live(self.game.bdd), "last_levels": self.last_levels.get(j)}


def _greatest_x(game: SymbolicGame, live: Function, not_assumption: Function, x: Function,
                solution: Solution, budget: Budget | None,
                step: Callable[[], None] | None = None,
                within: Function | None = None) -> tuple[Function, Function]:
    """``nu X. cpre(live | X' & !assumption)`` iterated from ``x`` (an upper bound of it): the
    fixpoint and the paths predicate of its last step; ``step`` is called before each
    ``cpre``; ``within``: inside those states."""
    while True:
        solution.x_iterations += 1
        if budget is not None:
            budget.check(game)
        if step is not None:
            step()
        target = live | (game.prime(x) & not_assumption)
        new = _cpre(game, target, within)
        if new == x:
            return x, target
        x = new
