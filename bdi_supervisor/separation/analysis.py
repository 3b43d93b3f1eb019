"""``well_separation(spec, options) -> SeparationRecord``: Maoz & Ringert's Algorithm 1.

The environment part ``<theta_e, rho_e, J_e>`` is well-separated iff the system, playing the
trivial guarantee ``<true, true, {false}>``, has no reachable winning state (FSE 2016, Def. 2).
As in the CNURobotics slugs fork's ``--checkWellSeparation``:

1. ``theta_e`` unsatisfiable: ``P-all/E-ini``.
2. ``reach``: states reachable from ``theta_e`` under ``rho_e`` with arbitrary outputs.
3. ``win_s``: the system's winning region with ``J_e`` empty (it can force env safety to fail).
   Meets ``reach``: ``P-all/E-safe`` (and stop) if every initial input has a winning output,
   else ``P-reach/E-safe``.
4. ``win``: the same with the real ``J_e``. Meets ``reach``: ``P-all/E-just`` if every initial
   input has a winning output, else ``P-reach/E-just`` only if nothing was found before.
5. Nothing found: ``WELL_SEPARATED``.

Both games are encoded by :mod:`bdi_supervisor.synthesis.symbolic` in one CUDD manager and solved
by :func:`bdi_supervisor.synthesis.gr1.solve`. The optional core is a 1-minimal set of env
assumptions that is still not well-separated against the *original* reach set (Def. 3; reach is
computed once and pinned). Budgets never raise: they give ``ANALYSIS_INCOMPLETE``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bdi_supervisor.common import Separation
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.separation import witness as wit
from bdi_supervisor.separation.assumptions import env_assumptions, trivial_guarantee_spec
from bdi_supervisor.separation.core import ddmin
from bdi_supervisor.separation.record import (
    CASE_SECTION,
    P_ALL_E_INI,
    P_ALL_E_JUST,
    P_ALL_E_SAFE,
    P_REACH_E_JUST,
    P_REACH_E_SAFE,
    TIMING_PHASES,
    AssumptionRef,
    SeparationRecord,
    Witness,
)
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame, build_game

Progress = Callable[[str], None]

CORE_MODE = "delta_debugging_1_minimal_non_well_separated_subset"


@dataclass
class SeparationOptions:
    """``core``: compute a 1-minimal core; ``witness``: build witnesses; ``witness_max_nodes``:
    cap on a witness's strategy graph; budgets (``None`` = unlimited) cover the whole analysis;
    ``order``/``seed``/``reordering``: the BDD variable order (as in synthesis)."""

    core: bool = False
    witness: bool = True
    witness_max_nodes: int = 64
    time_budget_s: float | None = None
    node_budget: int | None = None
    order: str = "as-written"
    seed: int = 0
    reordering: bool = True


@dataclass
class _State:
    """Everything the phases share."""

    spec: GR1Spec
    options: SeparationOptions
    budget: gr1.Budget
    progress: Progress | None
    timing: dict[str, float] = field(default_factory=lambda: {k: 0.0 for k in TIMING_PHASES})
    checks: dict[str, int] = field(default_factory=dict)
    cases: list[str] = field(default_factory=list)
    witnesses: list[Witness] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    safety: SymbolicGame | None = None
    full: SymbolicGame | None = None
    layers: list[Function] = field(default_factory=list)
    reach: Function | None = None

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        if self.progress is not None:
            self.progress(name)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timing[name] += time.perf_counter() - started


def well_separation(spec: GR1Spec, options: SeparationOptions | None = None,
                    progress: Progress | None = None) -> SeparationRecord:
    """Classify the env part of ``spec`` (see the module docstring); never raises on budgets."""
    options = options or SeparationOptions()
    st = _State(spec, options, gr1.Budget(options.time_budget_s, options.node_budget), progress)
    started = time.perf_counter()
    assumptions = env_assumptions(spec)
    incomplete: str | None = None
    try:
        _classify(st)
    except BudgetExceeded as error:
        incomplete = error.what
    core: list[AssumptionRef] = []
    core_complete = options.core and incomplete is None and not st.cases  # nothing to minimize
    if options.core and st.cases and incomplete is None:
        with st.phase("core_minimization"):
            core, core_complete = _core(st, assumptions)
        if not core_complete:
            st.warnings.append("core minimization stopped by the budget: the core is not minimal")
    if st.full is not None:
        _bdd_checks(st.full, st.checks)
    st.timing["total"] = time.perf_counter() - started
    return _record(st, assumptions, incomplete, core, core_complete)


# ---------------------------------------------------------------- Algorithm 1


def _classify(st: _State) -> None:
    opts = st.options
    with st.phase("encoding"):  # the budget is checked before every clause
        st.safety = build_game(trivial_guarantee_spec(st.spec, justice=False), order=opts.order,
                               seed=opts.seed, reordering=opts.reordering,
                               check=st.budget.check_time)
        st.full = build_game(trivial_guarantee_spec(st.spec), order=opts.order, seed=opts.seed,
                             reordering=opts.reordering, bdd=st.safety.bdd,
                             check=st.budget.check_time)
    game = st.safety
    if game.env_init == game.false:
        st.cases.append(P_ALL_E_INI)
        st.reach = game.false
        st.checks["reachable_states_bdd_size"] = 0
        return
    with st.phase("reachability"):
        st.layers, st.reach = _reachable(game, st.budget)
    st.checks["reachable_states_bdd_size"] = st.reach.dag_size
    st.checks["reachable_states"] = int(game.bdd.count(st.reach, nvars=len(game.pre_vars)))
    with st.phase("safety_winning"):
        safety = gr1.solve(game, budget=st.budget)
    st.checks["safety_winning_states_bdd_size"] = safety.winning.dag_size
    with st.phase("direct_safety_witness_region"):
        direct = game.cpre(game.false)
    st.checks["direct_safety_violation_states_bdd_size"] = direct.dag_size
    if safety.winning & st.reach != game.false:
        all_initial = gr1.initial_ok(game, safety.winning)
        case = P_ALL_E_SAFE if all_initial else P_REACH_E_SAFE
        st.cases.append(case)
        _witness(st, game, case, safety, direct)
        if all_initial:
            return
    with st.phase("liveness_winning"):
        full = gr1.solve(st.full, budget=st.budget)
    st.checks["full_winning_states_bdd_size"] = full.winning.dag_size
    if full.winning & st.reach != st.full.false:
        if gr1.initial_ok(st.full, full.winning):
            st.cases.append(P_ALL_E_JUST)
            _witness(st, st.full, P_ALL_E_JUST, full, None)
        elif not st.cases:
            st.cases.append(P_REACH_E_JUST)
            _witness(st, st.full, P_REACH_E_JUST, full, None)


def _reachable(game: SymbolicGame, budget: gr1.Budget) -> tuple[list[Function], Function]:
    """BFS layers from ``theta_e`` under ``rho_e`` (outputs free in their ranges), and their
    union."""
    frontier = game.env_init & game.sys_init
    reach = frontier
    layers = [frontier]
    while True:
        budget.check(game)
        frontier = game.image(frontier) & ~reach
        if frontier == game.false:
            return layers, reach
        reach |= frontier
        layers.append(frontier)


# ---------------------------------------------------------------- witnesses


def _witness(st: _State, game: SymbolicGame, case: str, solution: gr1.Solution,
             direct: Function | None) -> None:
    if not st.options.witness:
        return
    with st.phase("diagnostics_and_witness"):
        st.budget.check(game)
        liveness = CASE_SECTION[case] == "env_liveness"
        region = solution.winning
        if case in (P_ALL_E_SAFE, P_ALL_E_JUST):
            initial = game.env_init & game.sys_init & region
            source = "full_winning_reachable" if liveness else "safety_winning_reachable"
            if direct is not None and initial & direct != game.false:
                initial &= direct
                source = "direct_safety_violation_reachable"
            path = [wit.pick_state(game, initial)]
        elif direct is not None and direct & st.reach != game.false:
            path = wit.path_to(game, st.layers, direct)
            source = "direct_safety_violation_reachable"
        else:
            path = wit.path_to(game, st.layers, region)
            source = "full_winning_reachable" if liveness else "safety_winning_reachable"
        state = path[-1]
        strategy = wit.ForcingStrategy(game, [t for _, t in solution.paths],
                                       len(game.env_live), liveness)
        graph = strategy.explore(state, st.options.witness_max_nodes)
        refs = env_assumptions(st.spec)
        safety = [(r, c) for r, c in refs if r.section == "env_safety"]
        implicated = wit.constraining(game, graph.nodes, safety)
        details: dict = {"kind": "abstract_liveness_trap" if liveness else
                         ("one_step_safety_violation" if graph.nodes[0].stuck
                          else "forced_safety_violation"),
                         "strategy_nodes": len(graph.nodes),
                         "path_length": len(path) - 1}
        if liveness:
            justice = [(r, c) for r, c in refs if r.section == "env_liveness"]
            trapped = wit.kept_false(graph.nodes) or (
                {graph.nodes[0].assumption} if graph.nodes[0].assumption is not None else set())
            kept = [r for k, (r, _) in enumerate(justice) if k in trapped]
            details["liveness_kept_false"] = [r.name for r in kept]
            implicated = kept + implicated
        else:
            details["stuck_states"] = sum(1 for n in graph.nodes if n.stuck)
        inputs, outputs = wit.split(game, state)
        st.witnesses.append(Witness(case=case, source_region=source, inputs=inputs,
                                    outputs=outputs, path=path, implicated_assumptions=implicated,
                                    details=details, strategy=graph.nodes,
                                    truncated=graph.truncated))


# ---------------------------------------------------------------- core


def _core(st: _State, assumptions: list) -> tuple[list[AssumptionRef], bool]:
    """1-minimal non-well-separated subset against the pinned original reach set."""
    bdd = st.safety.bdd
    reach = st.reach
    best = [ref.source_index for ref, _ in assumptions]

    def fails(subset: list[int]) -> bool:
        game = build_game(trivial_guarantee_spec(st.spec, keep=subset), order=st.options.order,
                          seed=st.options.seed, reordering=st.options.reordering, bdd=bdd,
                          check=st.budget.check_time)
        if game.env_init == game.false:
            result = True
        else:
            winning = gr1.solve(game, budget=st.budget).winning
            result = winning & reach != game.false
        if result and len(subset) < len(best):
            best[:] = subset
        return result

    try:
        kept = ddmin(best[:], fails)
        complete = True
    except BudgetExceeded:
        kept, complete = best, False
    by_index = {ref.source_index: ref for ref, _ in assumptions}
    return [by_index[k] for k in kept], complete


# ---------------------------------------------------------------- the record


def _bdd_checks(game: SymbolicGame, checks: dict[str, int]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = game.bdd.statistics()
    checks["bdd_variables"] = int(stats["n_vars"])
    checks["bdd_peak_live_nodes"] = int(stats["peak_live_nodes"])
    checks["bdd_live_nodes"] = int(stats["n_nodes"])


def _record(st: _State, assumptions: list, incomplete: str | None,
            core: list[AssumptionRef], core_complete: bool) -> SeparationRecord:
    if st.cases:
        status = Separation.NON_WELL_SEPARATED
    elif incomplete is not None:
        status = Separation.ANALYSIS_INCOMPLETE
    else:
        status = Separation.WELL_SEPARATED
    if incomplete is not None:
        st.warnings.append(f"{incomplete} budget exhausted: the case list may be incomplete")
    violated = CASE_SECTION[st.cases[0]] if st.cases else "none"
    first = st.witnesses[0] if st.witnesses else None
    if first is not None:
        responsible = first.implicated_assumptions
        mode = "witness_implicated_assumptions_not_minimal_core"
    else:
        responsible = [ref for ref, _ in assumptions if ref.section == violated]
        mode = "category_assumptions_not_minimal_core"
    if first is not None:
        reason = ""
    elif not st.cases:
        reason = "well_separated" if incomplete is None else "analysis_incomplete"
    elif st.cases[0] == P_ALL_E_INI:
        reason = "unsat_env_init"
    else:
        reason = "witness_disabled" if not st.options.witness else "analysis_incomplete"
    return SeparationRecord(
        status=status, complete=incomplete is None, cases=list(st.cases),
        violated_assumption_type=violated, responsible_assumptions=list(responsible),
        responsible_assumption_mode=mode, witness_available=first is not None,
        witness_unavailable_reason=reason, witness=first, witnesses=list(st.witnesses),
        core_mode=CORE_MODE if st.options.core else "disabled", core_enabled=st.options.core,
        core_complete=core_complete, core_assumptions=core, checks=dict(st.checks),
        timing={k: round(v, 6) for k, v in st.timing.items()}, warnings=list(st.warnings),
        spec=st.spec.name, incomplete_reason=incomplete,
    )
