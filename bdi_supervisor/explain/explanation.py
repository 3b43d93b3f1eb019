"""``explain(spec) -> Explanation``: why a spec is unrealizable, in the spec's own terms.

One run: encode and solve the spec; if it is unrealizable, find a 1-minimal unrealizable core
of its guarantees (:mod:`.core`), the assumptions each realizable neighbour of the core needs
(:mod:`.assumptions`), the environment's counter-strategy, symbolic and explicit up to
``max_states`` states (:mod:`.counterstrategy`), and one counter-run (:mod:`.counterrun`). A
realizable spec has nothing to explain; its record still lists the assumptions it needs. The
time and node budgets cover the whole run; one that runs out gives an ``INCOMPLETE`` record
naming the phase. The record's JSON is ``explanation.json``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from bdi_supervisor.common import Realizability
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.explain import assumptions as needs
from bdi_supervisor.explain import core as cores
from bdi_supervisor.explain import counterstrategy as counter
from bdi_supervisor.explain.arena import ClauseArena, ClauseRef
from bdi_supervisor.explain.counterrun import CounterRun, counter_run, lasso_strategy
from bdi_supervisor.explain.naming import Named, Namer
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.gr1 import SECTIONS, GR1Spec
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.strategy import Strategy
from bdi_supervisor.synthesis.symbolic import MAX_GROWTH, SymbolicGame, build_game
from bdi_supervisor.synthesis.synthesize import diagnose

FORMAT = "bdi_supervisor/explanation"
#: explicit counter-strategy states kept in the explanation unless ``max_states`` says otherwise
DEFAULT_MAX_STATES = 256
#: realizability checks the assumption analysis may spend (group testing costs about a dozen
#: per needed assumption and core element; a large core is analysed element by element
#: until they are spent)
DEFAULT_ASSUMPTION_CHECKS = 100


@dataclass
class Explanation:
    """What :func:`explain` found (``to_dict`` is ``explanation.json``)."""

    spec: str
    status: Realizability
    level: str | None = None
    message: str = ""
    core: list[Named] = field(default_factory=list)
    #: the core was checked: unrealizable, and realizable without any one element
    core_minimal: bool | None = None
    #: per core element (``section[index]``), the assumptions the rest of the core needs; for a
    #: realizable spec, key ``"spec"``: the assumptions the spec needs
    needed_assumptions: dict[str, list[Named]] = field(default_factory=dict)
    #: every core element's assumptions were analysed (False: the first ones only, within
    #: ``assumption_checks``; None: no analysis)
    assumptions_complete: bool | None = None
    counter_strategy: dict = field(default_factory=dict)
    counter_run: dict = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    checks: int = 0
    incomplete_reason: str | None = None
    #: in-memory results the callers write or replay (not part of the record)
    game: SymbolicGame | None = field(default=None, repr=False)
    explicit: counter.ExplicitCounterStrategy | None = field(default=None, repr=False)
    run: CounterRun | None = field(default=None, repr=False)
    lasso: Strategy | None = field(default=None, repr=False)

    @property
    def realizable(self) -> bool | None:
        return {Realizability.REALIZABLE: True,
                Realizability.UNREALIZABLE: False}.get(self.status)

    def to_dict(self) -> dict:
        return {
            "format": FORMAT, "version": 1, "spec": self.spec, "status": self.status,
            "realizable": self.realizable, "level": self.level, "message": self.message,
            "core": [n.to_dict() for n in self.core], "core_minimal": self.core_minimal,
            "needed_assumptions": {k: [n.to_dict() for n in v]
                                   for k, v in self.needed_assumptions.items()},
            "assumptions_complete": self.assumptions_complete,
            "counter_strategy": self.counter_strategy, "counter_run": self.counter_run,
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "realizability_checks": self.checks,
            "incomplete_reason": self.incomplete_reason,
        }


@dataclass
class ExplainOptions:
    """The solver's options (order, reordering, budgets) and the explanation's own."""

    solver: SynthesisOptions = field(default_factory=SynthesisOptions)
    #: explicit counter-strategy states at most (None: :data:`DEFAULT_MAX_STATES`)
    max_states: int | None = None
    #: also analyse which assumptions the core's neighbours need
    assumptions: bool = True
    #: realizability checks that analysis may spend on an unrealizable spec (None: no limit)
    assumption_checks: int | None = DEFAULT_ASSUMPTION_CHECKS


def explain(spec: GR1Spec, options: ExplainOptions | None = None,
            namer: Namer | None = None) -> Explanation:
    """Explain ``spec`` (see the module docstring)."""
    options = options or ExplainOptions()
    options.solver.validate()
    namer = namer or Namer()
    solver = options.solver
    budget = gr1.Budget(solver.time_budget, solver.node_budget)
    record = Explanation(spec.name, Realizability.INCOMPLETE)
    clock = gr1.PhaseClock(budget, lambda phase, seconds: _add_seconds(record, phase, seconds))
    started = time.perf_counter()
    try:
        clock.enter("synthesis")
        arena = ClauseArena.build(spec, _build(spec, solver, budget), budget)
        record.game = game = arena.subgame(arena.all_refs())
        solution = gr1.solve(game, recycling=solver.recycling, budget=budget)
        clock.enter("core")
        if solution.realizable:
            record.status = Realizability.REALIZABLE
            record.message = "the specification is realizable: nothing to explain"
            if options.assumptions:
                clock.enter("assumptions")
                guarantees = arena.all_refs(("sys_init", "sys_safety", "sys_liveness"))
                record.needed_assumptions["spec"] = _names(
                    spec, namer, needs.needed_assumptions(arena, guarantees, realizable=True))
                record.assumptions_complete = True
            clock.leave()
            record.checks = arena.checks
            record.timings["total_seconds"] = time.perf_counter() - started
            return record
        failure = diagnose(game, solution, budget)
        record.message = failure.message
        oracle = cores.guarantee_oracle(arena)
        level, found = cores.unrealizable_core(arena, oracle, solution.unreachable_goal)
        record.level = level
        record.core = _names(spec, namer, found)
        record.core_minimal = cores.is_minimal_core(oracle, found)
        if options.assumptions:
            clock.enter("assumptions")
            analysed, record.assumptions_complete = needs.needed_per_core_element(
                arena, found, options.assumption_checks)
            for drop, needed in analysed.items():
                record.needed_assumptions[drop.text()] = _names(spec, namer, needed)
        clock.enter("counter_strategy")
        symbolic = arena.environment(arena.all_refs())[1]
        limit = options.max_states or DEFAULT_MAX_STATES
        record.explicit = counter.explicit_counter_strategy(game, symbolic, limit, budget)
        record.counter_strategy = _strategy_summary(game, solution, symbolic, record.explicit)
        clock.enter("counter_run")
        moves = counter.CounterMoves(game, symbolic, budget)
        record.run = counter_run(game, moves)
        record.lasso = lasso_strategy(game, record.run, f"{spec.name}_counter_run")
        record.counter_run = record.run.to_dict()
        if record.run.goal is not None and record.run.goal < len(spec.sys_liveness):
            goal = record.run.goal
            record.counter_run["prevented"] = namer.name(
                "sys_liveness", goal, spec.sys_liveness[goal]).to_dict()
        clock.leave()
        record.status = Realizability.UNREALIZABLE
        record.checks = arena.checks
    except BudgetExceeded as exhausted:
        phase = clock.phase
        clock.leave()
        record.status = Realizability.INCOMPLETE
        record.incomplete_reason = f"{exhausted} during {phase.replace('_', ' ')}"
    record.timings["total_seconds"] = time.perf_counter() - started
    return record


def _build(spec: GR1Spec, solver: SynthesisOptions, budget: gr1.Budget) -> SymbolicGame:
    """The arena of ``spec``'s variables, its sections left empty (the clauses are encoded
    once, by :class:`ClauseArena`)."""
    from bdi_supervisor.bdd import manager

    counts = spec.counts()
    bdd = manager(2 * (counts["input_bits"] + counts["output_bits"]))
    auto = solver.reordering and solver.reorder_threshold is None
    bare = dataclasses.replace(spec, variables=list(spec.variables),
                               **{section: [] for section in SECTIONS})
    return build_game(bare, order=solver.order, seed=solver.seed, reordering=auto, bdd=bdd,
                      check=lambda: budget.check(bdd),
                      max_growth=solver.max_growth or MAX_GROWTH)


def _names(spec: GR1Spec, namer: Namer, found: list[ClauseRef]) -> list[Named]:
    return [namer.name(r.section, r.index, r.clause(spec)) for r in found]


def _strategy_summary(game: SymbolicGame, solution: gr1.Solution,
                      symbolic: counter.SymbolicCounterStrategy,
                      explicit: counter.ExplicitCounterStrategy) -> dict:
    bits = len(game.pre_vars)
    initial = counter.env_initial_inputs(game, symbolic.winning)
    inputs = [v.name for v in game.spec.inputs]
    first = game.bdd.pick(initial, care_vars=set(game.pre_in)) if initial != game.false else None
    return {
        "winning_states": int(game.bdd.count(symbolic.winning, nvars=bits)),  # 1 or 0 at 0 bits
        "complement_of_system_region": symbolic.winning == ~solution.winning,
        "winning_nodes": symbolic.winning.dag_size,
        "fixpoint_steps": symbolic.z_steps, "entries": len(symbolic.entries),
        "initial_inputs": int(game.bdd.count(initial, nvars=len(game.pre_in))),
        "first_initial_input": game.decode(first, names=inputs) if first is not None else None,
        "explicit_states": len(explicit.states), "truncated": explicit.truncated,
        "deadlock_states": sum(1 for s in explicit.states if s.deadlock),
        "max_states": explicit.max_states,
    }


def _add_seconds(record: Explanation, phase: str, seconds: float) -> None:
    name = f"{phase}_seconds"
    record.timings[name] = record.timings.get(name, 0.0) + seconds


__all__ = ["DEFAULT_ASSUMPTION_CHECKS", "DEFAULT_MAX_STATES", "ExplainOptions", "Explanation",
           "explain"]
