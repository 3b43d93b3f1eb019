"""Explanations of unrealizable specs: cores by re-synthesis, counter-strategies checked
explicitly (hypothesis), slugs' --counterStrategy and --analyzeAssumptions where slugs is on
PATH, the shipped unrealizable missions and their replayed counter-runs."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from support.explain_checker import (
    check_core,
    check_counter_run,
    check_counter_strategy,
    parse_slugs_counter_strategy,
    realizable,
    subspec,
)
from support.reference_data import needs_reference, reference_params
from support.synthesis_checker import random_specs

from bdi_supervisor.explain import counterstrategy
from bdi_supervisor.explain.arena import ClauseArena
from bdi_supervisor.explain.assumptions import needed_assumptions, needed_per_core_element
from bdi_supervisor.explain.core import guarantee_oracle, is_minimal_core, unrealizable_core
from bdi_supervisor.explain.explanation import ExplainOptions, explain
from bdi_supervisor.explain.prune import relevant_guarantees
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.io import format_spec, load_spec
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.symbolic import build_game

UNREALIZABLE = ("slugs_examples/unrealizable1.slugsin",
                "slugs_examples/specification_debugging_examples/"
                "abstract_counterstrategy_example.structuredslugs",
                "slugs_examples/specification_debugging_examples/"
                "section_3_2_errorneous_spec.structuredslugs")
SLUGS = shutil.which("slugs")
needs_slugs = pytest.mark.skipif(SLUGS is None, reason="slugs is not on PATH")
MISSIONS = ("two_rivers_goat_stays", "logistics_p0_holding_start")
#: shipped missions that are unrealizable under Fair-Outcome without pending memory
FAIR_OUTCOME = {"liveness": "fair-outcome", "pending": False}
#: hypothesis settings of the comparisons with slugs (a process per example)
SLUGS_EXAMPLES = settings(max_examples=20, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])


def _core(explanation) -> list[tuple[str, int]]:
    return [(c.section, c.index) for c in explanation.core]


def _complete(spec):
    return explain(spec, ExplainOptions(max_states=100_000))


@pytest.mark.parametrize("path", reference_params(*UNREALIZABLE))
def test_reference_core_is_minimal_by_resynthesis(path):
    spec = load_spec(path)
    explanation = _complete(spec)
    assert explanation.status == "UNREALIZABLE"
    assert explanation.core_minimal is True
    assert check_core(spec, _core(explanation)) == []
    summary = explanation.counter_strategy
    assert summary["complement_of_system_region"] is True
    assert not summary["truncated"]
    if spec.counts()["output_bits"] <= 6:  # the explicit check enumerates every output
        data = counterstrategy.to_json(explanation.game, explanation.explicit)
        assert check_counter_strategy(spec, data["states"]) == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(spec=random_specs(ints=False))
def test_random_unrealizable_specs_core_and_counter_strategy(spec):
    assume(not realizable(spec))
    explanation = _complete(spec)
    assert explanation.status == "UNREALIZABLE"
    assert check_core(spec, _core(explanation)) == []
    assert explanation.counter_strategy["complement_of_system_region"] is True
    data = counterstrategy.to_json(explanation.game, explanation.explicit)
    assert check_counter_strategy(spec, data["states"]) == []
    run = explanation.run
    assert run.steps and run.end in ("loop", "deadlock", "no-initial-output")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(spec=random_specs(ints=False))
def test_pruned_guarantees_stay_unrealizable_by_resynthesis(spec):
    assume(not realizable(spec))
    arena = ClauseArena.build(spec, build_game(spec))
    oracle = guarantee_oracle(arena)
    start = arena.all_refs(("sys_init", "sys_safety", "sys_liveness"))
    kept = relevant_guarantees(arena, oracle, start)
    assert set(kept) <= set(start)
    assert {r for r in start if r.section != "sys_safety"} <= set(kept)
    assert not realizable(subspec(spec, {(r.section, r.index) for r in kept}))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=random_specs(ints=False))
def test_needed_assumptions_by_resynthesis(spec):
    assume(realizable(spec))
    game = build_game(spec)
    arena = ClauseArena.build(spec, game)
    guarantees = arena.all_refs(("sys_init", "sys_safety", "sys_liveness"))
    needed = {(r.section, r.index) for r in needed_assumptions(arena, guarantees)}
    for section in ("env_safety", "env_liveness"):
        for k in range(len(spec.section(section))):
            without = list(spec.section(section))
            del without[k]
            smaller = dataclasses.replace(spec, variables=list(spec.variables),
                                          **{section: without})
            assert ((section, k) in needed) is (not realizable(smaller)), (section, k)


def test_assumption_analysis_stops_between_elements_at_its_checks():
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.specgen.generate import generate_spec

    spec = generate_spec(load_mission("two_rivers"), **FAIR_OUTCOME)
    arena = ClauseArena.build(spec, build_game(spec))
    oracle = guarantee_oracle(arena)
    _, core = unrealizable_core(arena, oracle)
    assert is_minimal_core(oracle, core)
    before = arena.checks
    everything, complete = needed_per_core_element(arena, core)
    spent = arena.checks - before
    assert complete and list(everything) == core
    assert sum(1 for needed in everything.values() if needed) >= 2
    for limit in range(1, spent):
        found, complete = needed_per_core_element(arena, core, limit)
        assert not complete
        assert list(found) == core[:len(found)]  # the first elements, each one whole
        assert all(found[drop] == everything[drop] for drop in found)
    assert needed_per_core_element(arena, core, spent) == (everything, True)


def test_realizable_spec_has_nothing_to_explain():
    spec = subspec(load_spec_text("[INPUT]\na\n[OUTPUT]\nb\n[SYS_TRANS]\nb' <-> a'\n"), set())
    explanation = explain(spec)
    assert explanation.status == "REALIZABLE" and explanation.core == []


def load_spec_text(text: str):
    from bdi_supervisor.spec.structuredslugs import parse_spec

    return parse_spec(text, name="small")


def test_budget_gives_incomplete():
    spec = load_spec_text("[INPUT]\na\n[OUTPUT]\nb\n[SYS_LIVENESS]\na & b\n")
    options = ExplainOptions(SynthesisOptions(node_budget=1))
    assert explain(spec, options).status == "INCOMPLETE"


@pytest.mark.parametrize("seconds", [0.02, 0.2])
def test_time_budget_gives_incomplete_in_any_phase(seconds):
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.specgen.generate import generate_spec

    # explaining it takes over a second: the budget stops the synthesis or the core search
    spec = generate_spec(load_mission("logistics_p0"), encoding="one-hot", **FAIR_OUTCOME)
    explanation = explain(spec, ExplainOptions(SynthesisOptions(time_budget=seconds)))
    assert explanation.status == "INCOMPLETE"
    assert explanation.incomplete_reason.startswith("time budget")
    assert " during " in explanation.incomplete_reason


def test_repeated_explanations_free_their_managers_cleanly():
    # games are freed by reference counting, never in a garbage cycle with their manager
    # (CUDD would be torn down with nodes still referenced: "Exception ignored ... Still N
    # nodes referenced upon shutdown" on stderr)
    script = ("from bdi_supervisor.mission import load_mission\n"
              "from bdi_supervisor.specgen.generate import generate_spec\n"
              "from bdi_supervisor.explain.explanation import explain\n"
              "from bdi_supervisor.synthesis.synthesize import synthesize\n"
              "spec = generate_spec(load_mission('logistics_p0_holding_start'),\n"
              "    encoding='enumerated', liveness='fair-outcome', pending=False)\n"
              "for _ in range(6):\n"
              "    synthesize(spec)\n"
              "    explain(spec)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Exception ignored" not in done.stderr, done.stderr[-2000:]


def test_environment_fixpoint_is_the_complement_on_random_orders():
    spec = load_spec_text("[INPUT]\na\nb\n[OUTPUT]\nx\n[ENV_LIVENESS]\na\n[SYS_LIVENESS]\n"
                          "x & b\n[SYS_TRANS]\nx' -> a\n")
    for order in ("as-written", "alphabetic", "random"):
        game = build_game(spec, order=order, seed=3)
        solution = gr1.solve(game)
        symbolic = counterstrategy.environment_fixpoint(game)
        assert symbolic.winning == ~solution.winning


# ---------------------------------------------------------------- slugs


def _slugs(args: list[str], spec, tmp_path) -> str:
    path = tmp_path / "spec.slugsin"
    path.write_text(format_spec(spec, "slugsin"))
    done = subprocess.run([SLUGS, *args, str(path)], capture_output=True, text=True,
                          timeout=120, check=False)
    return done.stdout


@needs_slugs
@needs_reference
@pytest.mark.parametrize("path", reference_params(*UNREALIZABLE))
def test_counter_strategy_matches_slugs(path, tmp_path):
    spec = load_spec(path)
    explanation = _complete(spec)
    ours = counterstrategy.slugs_text(explanation.game, explanation.explicit)
    assert ours == _slugs(["--counterStrategy"], spec, tmp_path)


def _valuations(text: str, count: int) -> list[str]:
    return [line.split(" -> ")[1] for line in text.splitlines()
            if line.startswith("State ")][:count]


@needs_slugs
@SLUGS_EXAMPLES
@given(spec=random_specs(ints=False))
def test_random_counter_strategies_agree_with_slugs(spec, tmp_path):
    """With one liveness guarantee the rank's guarantee never changes: byte for byte slugs'.
    With several, the guarantee is chosen anew where slugs advances it (docs/differences.md):
    the same initial states, and ours checked explicitly."""
    assume(not realizable(spec))
    explanation = _complete(spec)
    ours = counterstrategy.slugs_text(explanation.game, explanation.explicit)
    theirs = _slugs(["--counterStrategy"], spec, tmp_path)
    if len(spec.sys_liveness) <= 1:
        assert ours == theirs
    initial = sum(s.initial for s in explanation.explicit.states)
    assert _valuations(ours, initial) == _valuations(theirs, initial)
    if spec.counts()["output_bits"] <= 6:
        data = counterstrategy.to_json(explanation.game, explanation.explicit)
        assert check_counter_strategy(spec, data["states"]) == []


#: the environment keeps ``e0`` up so that ``!e0`` never holds; when the rank's guarantee is
#: advanced past every guarantee a move meets (slugs), the strategy loops through both
TWO_GOALS = "[INPUT]\ne0\n\n[OUTPUT]\ns0\n\n[SYS_LIVENESS]\ns0\n!e0\n"


def test_counter_strategy_keeps_its_guarantee_until_it_holds(tmp_path):
    path = tmp_path / "two_goals.structuredslugs"
    path.write_text(TWO_GOALS)
    spec = load_spec(path)
    explanation = _complete(spec)
    data = counterstrategy.to_json(explanation.game, explanation.explicit)
    assert check_counter_strategy(spec, data["states"]) == []
    assert {tuple(s["rank"]) for s in data["states"] if s["inputs"]["e0"]} == {(0, 1)}
    if SLUGS is not None:  # slugs' own counter-strategy lets the system meet both guarantees
        theirs = parse_slugs_counter_strategy(
            spec, _slugs(["--counterStrategy"], spec, tmp_path),
            sum(s["initial"] for s in data["states"]))
        assert any("meets every guarantee" in p for p in check_counter_strategy(spec, theirs))


def slugs_needed(output: str, spec) -> set[tuple[str, int]]:
    """The safety assumptions slugs' --analyzeAssumptions calls crucially needed."""
    needed = set()
    for line in output.splitlines():
        if line.endswith("is crucially needed.") and line.startswith('"Safety Assumption '):
            number = int(line.split('"')[1].rsplit(" ", 1)[1])
            needed.add(("env_safety", number - 1))
    return needed


@needs_slugs
@SLUGS_EXAMPLES
@given(spec=random_specs(ints=False))
def test_needed_safety_assumptions_match_slugs(spec, tmp_path):
    assume(realizable(spec))
    arena = ClauseArena.build(spec, build_game(spec))
    guarantees = arena.all_refs(("sys_init", "sys_safety", "sys_liveness"))
    ours = {(r.section, r.index) for r in needed_assumptions(arena, guarantees)
            if r.section == "env_safety"}
    assert ours == slugs_needed(_slugs(["--analyzeAssumptions"], spec, tmp_path), spec)


# ---------------------------------------------------------------- missions


@pytest.mark.parametrize("name", MISSIONS)
def test_shipped_unrealizable_missions(name):
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import explain_mission
    from bdi_supervisor.specgen.generate import generate_spec

    mission = load_mission(name)
    explained = explain_mission(mission)
    explanation = explained.explanation
    assert explanation.status == "UNREALIZABLE" and explanation.core_minimal
    spec = generate_spec(mission)
    assert check_core(spec, _core(explanation)) == []
    kinds = {c.kind for c in explanation.core}
    assert kinds & {"constraint", "request", "capability"}
    for item in explanation.core:
        if item.kind in ("constraint", "request"):
            assert item.file == mission.file and item.line
    json.dumps(explained.to_dict())  # the record is JSON


def test_fair_outcome_two_rivers_names_the_follow_on_rule(capsys):
    from bdi_supervisor.cli.main import main
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import explain_mission
    from bdi_supervisor.specgen.generate import generate_spec

    mission = load_mission("two_rivers")
    explanation = explain_mission(mission, FAIR_OUTCOME).explanation
    assert explanation.status == "UNREALIZABLE" and explanation.core_minimal
    assert check_core(generate_spec(mission, **FAIR_OUTCOME), _core(explanation)) == []
    rules = [c.description for c in explanation.core]
    assert "follow-on rule (transition_relation) of capability 'move'" in rules
    needed = [n.description for items in explanation.needed_assumptions.values()
              for n in items]
    assert any("fair-outcome" in text for text in needed)
    assert explanation.assumptions_complete is True
    assert main(["explain", "two_rivers", "--liveness", "fair-outcome", "--no-pending",
                 "--assumption-checks", "1"]) == 1
    assert "not analysed" in capsys.readouterr().out


def test_goat_stays_names_the_constraint_and_replays(tmp_path):
    from bdi_supervisor.cli.main import main

    out = tmp_path / "explanation.json"
    assert main(["explain", "two_rivers_goat_stays", "-o", str(out)]) == 1
    data = json.loads(out.read_text())
    described = [c["description"] for c in data["core"]]
    assert "custom constraint 'goat-stays-calm' (safety guarantee)" in described
    replay = data["counter_run"]["replay"]
    assert data["counter_run"]["timeline"]["status"] != "goal_reached"
    code = main(["run", "two_rivers_goat_stays", "--from", str(out), "--sim", "forced",
                 "--max-steps", str(replay["max_steps"]), "--force", replay["force"],
                 "--json", "--no-monitor"])
    assert code == 1


def _goat_stays_logging_once():
    """two_rivers_goat_stays with the reference's logging rule: the log only right after a
    failure, so the supervisor cannot idle; every first crossing that completes leaves the goat
    unattended (its safety region holds no initial state)."""
    from bdi_supervisor.mission import load_mission

    mission = load_mission("two_rivers_goat_stays")
    return dataclasses.replace(mission, catalog=load_mission("two_rivers_reference").catalog)


@pytest.mark.parametrize("name, overrides, end", [
    ("two_rivers", FAIR_OUTCOME, "loop"),
    ("two_rivers_goat_stays", {}, "loop"),
    ("goat_stays_logging_once", {}, "deadlock"),
    ("logistics_p0_holding_start", {}, "loop"),
])
def test_every_counter_run_replay_is_labelled_as_the_game_ends(name, overrides, end):
    """The replay of a counter-run says what the game says: a deadlock (the environment's last
    outcome, which every assumption allows, leaves the supervisor no safe move) or a loop (a
    guarantee never holds again), checked on the play with the formula evaluator; never an
    assumption violation (it was labelled one before)."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import explain_mission
    from bdi_supervisor.specgen.generate import generate_spec

    mission = (_goat_stays_logging_once() if name == "goat_stays_logging_once"
               else load_mission(name))
    explained = explain_mission(mission, overrides)
    run = explained.explanation.counter_run
    assert run["end"] == end
    timeline = explained.timeline
    assert timeline.status == end and timeline.sm_outcome is None, timeline.reason
    spec = generate_spec(mission, **overrides)
    assert check_counter_run(spec, run, timeline.status) == []
    assert check_counter_run(spec, run, "assumption_violated") != []  # the old label
    if end == "deadlock":
        last = timeline.steps[-1]
        assert last.next == "deadlock"
        assert f"outcome {last.outcome.outcome!r} of {last.capability}" in timeline.reason
        assert "leaves the supervisor no move that keeps its safety guarantees" in timeline.reason
    else:
        assert f"loops back to step {run['loop_start']} for ever" in timeline.reason


def test_the_fair_outcome_counter_run_fails_a_move_for_ever():
    """Why Two-Rivers F is unrealizable, as the counter-run shows it: the supervisor keeps
    trying (it stays safe and moves towards the goal), and the environment fails one crossing
    for ever; each failure is logged, which Fair-Outcome's "an active capability eventually
    completes" allows. The loop is a lasso of failed moves and logs, every assumption holding
    (checked on the play by the formula evaluator in the test above)."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import explain_mission

    explained = explain_mission(load_mission("two_rivers"), FAIR_OUTCOME)
    run, timeline = explained.explanation.counter_run, explained.timeline
    assert run["end"] == "loop" and timeline.status == "loop"
    loop = timeline.steps[run["loop_start"]:]
    moves = [s for s in loop if s.capability == "move"]
    assert moves and all(s.outcome.outcome == "failure" for s in moves)
    assert {s.capability for s in loop} == {"move", "log_failed"}
    assert len({tuple(sorted(s.parameters.items())) for s in moves}) == 1  # one crossing


def test_run_from_a_fair_outcome_counter_run_replays_the_loop(tmp_path, capsys):
    """``run two_rivers --from <counter-run of its Fair-Outcome spec>``: the replay command the
    explanation prints ends in the loop, exit 1, as the explanation's own replay."""
    from bdi_supervisor.cli.main import main

    out = tmp_path / "explanation.json"
    assert main(["explain", "two_rivers", "--liveness", "fair-outcome", "--no-pending",
                 "-o", str(out)]) == 1
    capsys.readouterr()
    replay = json.loads(out.read_text())["counter_run"]["replay"]
    assert main(["run", "two_rivers", "--from", str(out), "--sim", "forced", "--max-steps",
                 str(replay["max_steps"]), "--force", replay["force"], "--json",
                 "--no-monitor"]) == 1
    result = json.loads(capsys.readouterr().out)["result"]
    assert result["status"] == "loop" and result["sm_outcome"] is None
    assert "for ever" in result["reason"]


def test_cli_exit_codes(tmp_path, capsys):
    from bdi_supervisor.cli.main import main

    spec = tmp_path / "ok.structuredslugs"
    spec.write_text("[INPUT]\na\n[OUTPUT]\nb\n[SYS_TRANS]\nb' <-> a'\n")
    assert main(["explain", str(spec)]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.structuredslugs"
    bad.write_text("[INPUT]\na\n[OUTPUT]\nb\n[SYS_LIVENESS]\na & b\n")
    assert main(["explain", str(bad), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "UNREALIZABLE" and data["core"][0]["line"] == 6
    assert main(["explain", str(bad), "--node-budget", "1"]) == 3
    assert main(["explain", str(tmp_path / "missing.slugsin")]) == 2
    assert main(["explain", str(bad), "--assumption-checks", "0"]) == 2
    slugs_file = tmp_path / "cs.txt"
    assert main(["explain", str(bad), "--slugs-counter-strategy", str(slugs_file),
                 "--counter-strategy", str(tmp_path / "cs.json")]) == 1
    assert slugs_file.read_text().startswith("State 0 with rank (0,0) -> <a:0, b:0>")


def test_synthesize_writes_explanation(tmp_path):
    from bdi_supervisor.cli.main import main

    assert main(["synthesize", "two_rivers_goat_stays", "--out", str(tmp_path), "--quiet"]) == 1
    path = tmp_path / "two_rivers_goat_stays" / "one-hot-SP" / "explanation.json"
    assert json.loads(path.read_text())["status"] == "UNREALIZABLE"


def test_assumptions_are_named_each_once_with_the_line_of_their_rule(capsys):
    """The goat-stays core relies on the four postconditions of ``move``: each is named with
    the line of its own entry in the catalog (found here by its text), none twice."""
    from support.paths import CATALOGS

    from bdi_supervisor.cli.explanation_view import where
    from bdi_supervisor.cli.main import main

    assert main(["explain", "two_rivers_goat_stays"]) == 1
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("  without #4"))
    items = line.split(": ", 1)[1].split("; ")
    assert len(items) == len(set(items)) == 4
    catalog = (CATALOGS / "two_rivers.yaml").read_text().splitlines()
    for k, formula in enumerate(["farmer' != farmer", "(wolf' != wolf) <-> item = 1",
                                 "(goat' != goat) <-> item = 2", "(corn' != corn) <-> item = 3"]):
        number = next(n for n, text in enumerate(catalog, 1) if formula in text)
        place = where(str(CATALOGS / "two_rivers.yaml"), number)
        assert items[k] == (f"postcondition of capability 'move' on completed #{k + 1} "
                            f"({place})"), items[k]
