"""GR(1) solver: realizability agrees with omega; extracted strategies pass the explicit checker."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from support.paths import MISSIONS
from support.synthesis_checker import check_strategy, evaluate, random_specs, valuations

from bdi_supervisor.common import Realizability
from bdi_supervisor.mission import load_mission
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import And, Iff, Implies, Not, Var
from bdi_supervisor.spec.gr1 import Clause, GR1Spec, Variable
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.extract import extract
from bdi_supervisor.synthesis.gr1 import reachable_states, safety_realizable, solve
from bdi_supervisor.synthesis.omega_bridge import omega_realizable
from bdi_supervisor.synthesis.symbolic import build_game
from bdi_supervisor.synthesis.synthesize import synthesize


def coffee() -> GR1Spec:
    v = Var
    return GR1Spec(
        variables=[Variable("bu", "env"), Variable("br", "sys"), Variable("gr", "sys")],
        sys_init=[Clause(Iff(v("gr"), v("bu"))), Clause(Not(v("br")))],
        sys_safety=[Clause(Iff(v("br", True), v("gr"))),
                    Clause(Implies(v("gr", True), v("bu", True)))],
        env_safety=[Clause(Implies(v("bu", True), And((Not(v("gr")), Not(v("br"))))))],
        sys_liveness=[Clause(v("br"))],
        env_liveness=[Clause(v("bu"))],
    )


def test_coffee_is_realizable_and_strategy_checks():
    game = build_game(coffee())
    solution = solve(game)
    assert solution.realizable
    strategy = extract(game, solution)
    assert check_strategy(coffee(), strategy) == []
    assert [s.initial for s in strategy.states].count(True) == 2


def test_dropping_the_env_liveness_makes_coffee_unrealizable():
    spec = coffee()
    spec.env_liveness = []
    assert not solve(build_game(spec)).realizable
    assert not omega_realizable(spec)


def test_checker_catches_a_broken_strategy():
    game = build_game(coffee())
    strategy = extract(game, solve(game))
    for state in strategy.states:  # brew never: liveness and safety broken
        state.outputs["br"] = False
    assert check_strategy(coffee(), strategy)


@pytest.mark.parametrize("order", ["as-written", "alphabetic", "random"])
@pytest.mark.parametrize("recycling", [True, False])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs())
def test_random_specs_agree_with_omega_and_strategies_check(spec, order, recycling):
    game = build_game(spec, order=order, seed=7)
    solution = solve(game, recycling=recycling)
    assert solution.realizable == omega_realizable(spec)
    if solution.realizable:
        for initial in ("all", "per-input"):
            strategy = extract(game, solution, initial=initial)
            assert check_strategy(spec, strategy, initial) == []


@settings(max_examples=60, deadline=None)
@given(spec=random_specs())
def test_strategy_is_deterministic_for_an_order(spec):
    first = build_game(spec, order="random", seed=3)
    second = build_game(spec, order="random", seed=3, reordering=False)
    a, b = solve(first), solve(second)
    assert a.realizable == b.realizable
    if a.realizable:
        assert extract(first, a).states == extract(second, b).states


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs())
def test_safety_start_reaches_the_same_fixpoints_as_starting_from_true(spec):
    game = build_game(spec, order="random", seed=5, reordering=False)
    fast = solve(game, safety_start=True)
    plain = solve(game, safety_start=False, recycling=False)
    assert fast.winning == plain.winning
    assert fast.realizable == plain.realizable
    assert fast.safety_iterations > 0 and plain.safety_iterations == 0
    assert fast.winning <= fast.safety  # the winning region lies inside the safety region
    if plain.realizable:  # the last pass, hence the strategy data, is the same
        assert fast.paths == plain.paths
        assert extract(game, fast).states == extract(game, plain).states
    if fast.winning == fast.safety:
        assert fast.z_passes == 1  # nothing left to remove: the first pass is the last


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs())
def test_without_liveness_guarantees_the_game_is_its_safety_game(spec):
    spec = dataclasses.replace(spec, variables=list(spec.variables), sys_liveness=[])
    game = build_game(spec, reordering=False)
    solution = solve(game)
    region = safety_realizable(game)
    assert (region is not None) == solution.realizable == omega_realizable(spec)
    if region is not None:
        assert region == solution.winning


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs())
def test_kept_levels_grow_to_the_winning_region(spec):
    game = build_game(spec, reordering=False)
    plain, kept = solve(game), solve(game, keep_levels=True)
    assert plain.levels == [] and kept.paths == plain.paths
    assert len(kept.levels) == len(game.sys_live)
    for levels in kept.levels:
        assert all(low <= high for low, high in itertools.pairwise(levels))
        assert kept.winning <= levels[-1]


def _explicit_reachable(spec: GR1Spec) -> set[tuple]:
    """The states reachable from the initial ones by moves satisfying both safety sections,
    enumerated valuation by valuation (formulas evaluated directly, no BDD)."""
    names = [v.name for v in spec.variables]
    states = list(valuations(spec.variables))

    def holds(clauses, cur, nxt=None):
        return all(evaluate(c.formula, cur, nxt) for c in clauses)

    frontier = [s for s in states if holds(spec.env_init + spec.sys_init, s)]
    seen = {tuple(s[n] for n in names) for s in frontier}
    while frontier:
        successors = [t for s in frontier for t in states
                      if holds(spec.env_safety + spec.sys_safety, s, t)]
        frontier = [t for t in successors if tuple(t[n] for n in names) not in seen]
        seen |= {tuple(t[n] for n in names) for t in frontier}
    return seen


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs())
def test_reachable_states_are_those_an_explicit_search_reaches(spec):
    game = build_game(spec, reordering=False)
    region = reachable_states(game)
    names = [v.name for v in spec.variables]
    found = {tuple(game.decode(bits)[n] for n in names)
             for bits in game.bdd.pick_iter(region, care_vars=set(game.pre_vars))}
    assert found == _explicit_reachable(spec)


@pytest.mark.parametrize("safety_start", [False, True])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs())
def test_solving_inside_the_reachable_states_gives_the_same_verdict_and_strategy(
        spec, safety_start):
    game = build_game(spec, order="random", seed=11, reordering=False)
    plain = solve(game, recycling=False)
    inside = solve(game, safety_start=safety_start, reachable=True)
    region = inside.reachable
    assert region == reachable_states(game) and plain.reachable is None
    assert inside.realizable == plain.realizable
    assert inside.winning == plain.winning & region  # every iterate is the plain one within R
    assert inside.x_iterations <= plain.x_iterations
    if plain.realizable:
        for initial in ("all", "per-input"):
            strategy = extract(game, inside, initial=initial)
            assert strategy.states == extract(game, plain, initial=initial).states
            assert check_strategy(spec, strategy, initial) == []


def test_environment_safety_reading_next_outputs_solves_over_every_state():
    spec = coffee()
    spec.env_safety = [*spec.env_safety, Clause(Implies(Var("br", True), Not(Var("bu", True))))]
    game = build_game(spec)
    assert game.env_reads_next_outputs
    inside, plain = solve(game, reachable=True), solve(game)
    assert inside.reachable is None and inside.reachable_steps == 0
    assert inside.winning == plain.winning and inside.realizable == plain.realizable


def test_safety_start_on_a_mission_saves_the_confirming_pass():
    spec = generate_spec(load_mission(MISSIONS / "two_rivers.yaml"), liveness="fair-outcome")
    options = SynthesisOptions.from_dict({"safety_start": True})
    fast, plain = synthesize(spec, options), synthesize(spec, SynthesisOptions())
    assert fast.status == plain.status == Realizability.REALIZABLE
    assert fast.strategy.states == plain.strategy.states
    assert (fast.metrics.z_passes, plain.metrics.z_passes) == (1, 2)
    assert fast.metrics.x_iterations < plain.metrics.x_iterations
    assert fast.metrics.safety_iterations > 0
    assert plain.metrics.safety_iterations == 0


def test_the_solve_counts_live_nodes_only_for_a_listener(monkeypatch):
    """Counting live nodes scans CUDD's unique table: a solve nobody watches (no progress, no
    node budget, no reordering threshold) never counts; one with a listener hears the count."""
    from bdi_supervisor.bdd import LiveNodes

    counted = []
    original = LiveNodes.__call__
    monkeypatch.setattr(LiveNodes, "__call__",
                        lambda self, bdd, fresh=False: counted.append(1) or original(self, bdd,
                                                                                      fresh))
    game = build_game(coffee())
    assert solve(game).realizable and not counted
    heard = []
    assert solve(build_game(coffee()), progress=heard.append).realizable and counted
    levels = [event for event in heard if "working" not in event]
    assert levels and all(isinstance(event["live_nodes"], int) and event["live_nodes"] > 0
                          for event in levels)
