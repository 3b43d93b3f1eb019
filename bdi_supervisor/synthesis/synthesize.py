"""``synthesize(spec, options) -> SynthesisResult``: encode, solve, diagnose, extract, measure.

The one entry point the CLI, the pipeline and the nodes call. Budgets (time, nodes, strategy
states) never raise: they give an ``INCOMPLETE`` result naming the budget.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import asdict

from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.extract import extract
from bdi_supervisor.synthesis.result import (
    INCOMPLETE,
    REALIZABLE,
    UNREALIZABLE,
    Failure,
    Metrics,
    SynthesisOptions,
    SynthesisResult,
)
from bdi_supervisor.synthesis.symbolic import SymbolicGame, build_game


def spec_metrics(spec: GR1Spec) -> Metrics:
    counts = spec.counts()
    return Metrics(
        inputs=counts["inputs"], outputs=counts["outputs"],
        input_bits=counts["input_bits"], output_bits=counts["output_bits"],
        formulas={k: v for k, v in counts.items()
                  if k not in ("inputs", "outputs", "input_bits", "output_bits")},
    )


def _bdd_metrics(game: SymbolicGame, metrics: Metrics) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = game.bdd.statistics()
    metrics.bdd_variables = int(stats["n_vars"])
    metrics.peak_nodes = int(stats["peak_nodes"])
    metrics.peak_live_nodes = int(stats["peak_live_nodes"])
    metrics.live_nodes = int(stats["n_nodes"])
    metrics.reorderings = int(stats["n_reorderings"])


def diagnose(game: SymbolicGame, solution: gr1.Solution, budget: gr1.Budget | None) -> Failure:
    """Classify an unrealizable game: init, safety, or liveness (see :class:`Failure`)."""
    spec = game.spec

    def witness(losing) -> dict | None:
        if losing == game.false:
            return None
        bits = game.bdd.pick(losing, care_vars=set(game.pre_in)) or {}
        return game.decode(bits, names=[v.name for v in spec.inputs])

    losing = gr1.initial_losing_inputs(game, game.true)
    if losing != game.false:
        return Failure("init", "for some initial input no output satisfies SYS_INIT",
                       env_initial=witness(losing))
    safe = gr1.safety_region(game, budget)
    losing = gr1.initial_losing_inputs(game, safe)
    if losing != game.false:
        return Failure("safety", "the system cannot keep SYS_TRANS from some initial state "
                       "(or cannot start inside its safe region)", env_initial=witness(losing))
    goal = solution.unreachable_goal
    origin = None
    if goal is not None and goal < len(spec.sys_liveness):
        origin = spec.sys_liveness[goal].origin.label()
    message = (f"liveness guarantee {goal} cannot be reached from some initial state"
               if goal is not None else
               "the liveness guarantees cannot be satisfied together, repeatedly")
    losing = gr1.initial_losing_inputs(game, solution.winning)
    return Failure("liveness", message, goal=goal, goal_origin=origin,
                   env_initial=witness(losing))


def synthesize(spec: GR1Spec, options: SynthesisOptions | None = None,
               progress: gr1.Progress | None = None) -> SynthesisResult:
    """Decide realizability of ``spec`` and, when realizable, extract the explicit strategy."""
    options = options or SynthesisOptions()
    options.validate()
    metrics = spec_metrics(spec)
    result = SynthesisResult(INCOMPLETE, spec.name, metrics, options=asdict(options))
    budget = gr1.Budget(options.time_budget, options.node_budget)
    started = time.perf_counter()
    auto = options.reordering and options.reorder_threshold is None
    game = build_game(spec, order=options.order, seed=options.seed, reordering=auto)
    metrics.encoding_seconds = time.perf_counter() - started
    solution = None
    try:
        begin = time.perf_counter()
        solution = gr1.solve(
            game, recycling=options.recycling, budget=budget, progress=progress,
            reorder_threshold=options.reorder_threshold if options.reordering else None)
        metrics.realizability_seconds = time.perf_counter() - begin
        metrics.z_passes = solution.z_passes
        metrics.y_levels = solution.y_levels
        metrics.x_iterations = solution.x_iterations
        metrics.winning_nodes = solution.winning.dag_size
        if not solution.realizable:
            result.status = UNREALIZABLE
            if options.diagnose:
                result.failure = diagnose(game, solution, budget)
        else:
            result.status = REALIZABLE
            if options.extract:
                if progress is not None:
                    progress({"stage": "extract"})
                begin = time.perf_counter()
                result.strategy = extract(game, solution, initial=options.initial,
                                          name=spec.name, budget=budget,
                                          max_states=options.max_states)
                metrics.extraction_seconds = time.perf_counter() - begin
                metrics.strategy_states = len(result.strategy.states)
                metrics.strategy_transitions = result.strategy.transition_count()
    except BudgetExceeded as exhausted:
        result.status = INCOMPLETE
        result.strategy = None
        result.incomplete_reason = str(exhausted)
        if solution is not None and solution.realizable:
            result.incomplete_reason += " during strategy extraction (the spec is realizable)"
        if solution is None:
            metrics.realizability_seconds = time.perf_counter() - begin
    _bdd_metrics(game, metrics)
    return result
