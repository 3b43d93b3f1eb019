"""``synthesize(spec, options) -> SynthesisResult``: encode, solve, diagnose, extract, measure.

The one entry point the CLI, the pipeline and the nodes call. Budgets (time, nodes, strategy
states) never raise: they give an ``INCOMPLETE`` result naming the budget and the phase it
stopped, with the metrics reached so far.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict

from bdi_supervisor.bdd import cudd, manager
from bdi_supervisor.common import Realizability
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.options import DEFAULT_MAX_STATES, SynthesisOptions
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.extract import extract
from bdi_supervisor.synthesis.result import Failure, Metrics, SynthesisResult
from bdi_supervisor.synthesis.symbolic import MAX_GROWTH, SymbolicGame, build_game


def spec_metrics(spec: GR1Spec) -> Metrics:
    counts = spec.counts()
    return Metrics(
        inputs=counts["inputs"], outputs=counts["outputs"],
        input_bits=counts["input_bits"], output_bits=counts["output_bits"],
        formulas={k: v for k, v in counts.items()
                  if k not in ("inputs", "outputs", "input_bits", "output_bits")},
    )


def _bdd_metrics(bdd: cudd.BDD, metrics: Metrics) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = bdd.statistics()
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
    safe = solution.safety if solution.safety is not None else gr1.safety_region(game, budget)
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
    """Decide realizability of ``spec`` and, when realizable, extract the explicit strategy.

    The time and node budgets cover the whole run: encoding, the fixpoints, the diagnosis of
    an unrealizable spec and the strategy extraction. A run stopped by a budget keeps the
    counters and BDD sizes reached so far, and names the phase (``Metrics.stopped_in``).
    """
    options = options or SynthesisOptions()
    options.validate()
    metrics = spec_metrics(spec)
    result = SynthesisResult(Realizability.INCOMPLETE, spec.name, metrics, options=asdict(options))
    budget = gr1.Budget(options.time_budget, options.node_budget)
    bdd = manager(2 * (metrics.input_bits + metrics.output_bits))
    auto = options.reordering and options.reorder_threshold is None
    solution: gr1.Solution | None = None
    clock = gr1.PhaseClock(budget, lambda phase, seconds: _add_seconds(metrics, phase, seconds),
                           progress)
    try:
        clock.enter("encoding")
        game = build_game(spec, order=options.order, seed=options.seed, reordering=auto,
                          bdd=bdd, check=lambda: budget.check(bdd),
                          max_growth=options.max_growth or MAX_GROWTH)
        clock.enter("realizability")
        solution = gr1.Solution(winning=game.true, realizable=False, paths=[])
        gr1.solve(game, recycling=options.recycling, safety_start=options.safety_start,
                  budget=budget, progress=progress,
                  reorder_threshold=options.reorder_threshold if options.reordering else None,
                  solution=solution, reachable=options.reachable)
        clock.leave()
        metrics.winning_nodes = solution.winning.dag_size
        if not solution.realizable:
            result.status = Realizability.UNREALIZABLE
            if options.diagnose:
                clock.enter("diagnosis")
                result.failure = diagnose(game, solution, budget)
                clock.leave()
        else:
            result.status = Realizability.REALIZABLE
            if options.extract:
                clock.enter("extraction")
                result.strategy = extract(game, solution, initial=options.initial,
                                          name=spec.name, budget=budget,
                                          max_states=options.max_states or DEFAULT_MAX_STATES)
                clock.leave()
                metrics.strategy_states = len(result.strategy.states)
                metrics.strategy_transitions = result.strategy.transition_count()
    except BudgetExceeded as exhausted:
        phase = clock.phase
        clock.leave()
        result.status = Realizability.INCOMPLETE
        result.strategy = None
        result.failure = None
        metrics.stopped_in = phase
        result.incomplete_reason = f"{exhausted} during {_PHASE_TEXT.get(phase, phase)}"
        if phase == "extraction":
            result.incomplete_reason += " (the spec is realizable)"
        elif phase == "diagnosis":
            result.incomplete_reason += " (the spec is unrealizable)"
    finally:
        if solution is not None:
            metrics.z_passes = solution.z_passes
            metrics.y_levels = solution.y_levels
            metrics.x_iterations = solution.x_iterations
            metrics.safety_iterations = solution.safety_iterations
            metrics.reachable_steps = solution.reachable_steps
            if solution.reachable is not None:
                metrics.reachable_states = int(bdd.count(solution.reachable,
                                                         nvars=len(game.pre_vars)))
    _bdd_metrics(bdd, metrics)
    return result


def _add_seconds(metrics: Metrics, phase: str, seconds: float) -> None:
    name = _PHASE_SECONDS.get(phase)
    if name is not None:
        setattr(metrics, name, getattr(metrics, name) + seconds)


_PHASE_SECONDS = {"encoding": "encoding_seconds", "realizability": "realizability_seconds",
                  "extraction": "extraction_seconds"}
_PHASE_TEXT = {"encoding": "spec encoding", "realizability": "the realizability fixpoint",
               "diagnosis": "the unrealizability diagnosis", "extraction": "strategy extraction"}
