"""Budgets bound every phase and verdicts are not errors.

A strategy with 2^40 initial states, or a catalog value map up to 10^9, stops at once as
INCOMPLETE naming the phase instead of enumerating; the time budget is honoured inside explicit
enumeration; NaN, infinite or negative budgets and ``--max-steps 0`` are bad input;
``synthesize`` with a bad catalog parameter is bad input before synthesis; ``run`` with an
exhausted budget or an unrealizable spec is a negative verdict (exit 1), not bad input; a
primed variable in an INIT section is a parse error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from support.cli_harness import run_cli
from support.paths import ROOT

from bdi_supervisor.common import Realizability
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.structuredslugs import parse_spec
from bdi_supervisor.synthesis.synthesize import synthesize

MISSIONS = ROOT / "config" / "missions"
CATALOGS = ROOT / "config" / "catalogs"
HUGE = "[INPUT]\n\n[OUTPUT]\nx:0...1099511627775\n\n[SYS_TRANS]\nx' = x\n"


#: the vending mission without its ``item = 0`` start, so the value map reaches the initial states
MISSION = """name: vending
catalog: catalog.yaml
request: {initial_conditions: [prep_pay_a], goals: [soda], sm_outcomes: [finished]}
synthesis:
  encoding: one-hot
  liveness: system-goal
  pending: true
runner: {sim: forced, max_steps: 20}
"""


def _vending(tmp_path: Path, catalog_edit=lambda t: t, mission_edit=lambda t: t) -> Path:
    (tmp_path / "catalog.yaml").write_text(catalog_edit((CATALOGS / "vending.yaml").read_text()))
    mission = tmp_path / "mission.yaml"
    mission.write_text(mission_edit(MISSION))
    return mission


def _billion(text: str) -> str:
    return text.replace("item: {0: None, 1: soda, 2: beer, 3: snack}",
                        "item: {0: None, 1: soda, 2: beer, 1000000000: snack}")


# ------------------------------------------------------------------ budgets


def test_huge_output_stops_within_the_budget(tmp_path):
    spec = tmp_path / "huge.structuredslugs"
    spec.write_text(HUGE)
    started = time.perf_counter()
    outcome = run_cli("supervisor", ["solve", spec, "--time-budget", "2", "--json"])
    assert time.perf_counter() - started < 2 + 5
    assert outcome.code == 3, outcome.err
    record = json.loads(outcome.out)
    assert record["status"] == Realizability.INCOMPLETE
    assert record["metrics"]["stopped_in"] == "extraction"
    assert "strategy state budget" in record["incomplete_reason"]


def test_billion_value_map_stops_within_the_budget(tmp_path):
    mission = _vending(tmp_path, _billion)
    started = time.perf_counter()
    outcome = run_cli("supervisor", ["synthesize", mission, "--time-budget", "2", "--json",
                                     "--out", tmp_path / "out"])
    assert time.perf_counter() - started < 2 + 10
    assert outcome.code == 1 and not outcome.traceback, outcome.err
    stages = {s["name"]: s for s in json.loads(outcome.out)["stages"]}
    assert stages["synthesis"]["status"] == Realizability.INCOMPLETE
    assert stages["synthesis"]["record"]["metrics"]["stopped_in"] == "extraction"


def test_time_budget_is_checked_while_enumerating():
    """524,288 initial states are under the state cap: the clock stops the enumeration."""
    spec = parse_spec("[INPUT]\n\n[OUTPUT]\nx:0...524287\n\n[SYS_TRANS]\nx' = x\n")
    started = time.perf_counter()
    result = synthesize(spec, SynthesisOptions(time_budget=0.5))
    assert time.perf_counter() - started < 0.5 + 5
    assert result.status == Realizability.INCOMPLETE and result.metrics.stopped_in == "extraction"
    assert result.incomplete_reason.startswith("time budget")


def test_state_cap_is_counted_before_enumerating():
    spec = parse_spec(HUGE)
    started = time.perf_counter()
    result = synthesize(spec, SynthesisOptions(max_states=1000))
    assert time.perf_counter() - started < 5
    assert result.status == Realizability.INCOMPLETE
    assert "strategy state budget of 1000" in result.incomplete_reason


def test_successor_cap():
    """One state with 2^30 next inputs: stopped before they are enumerated."""
    spec = parse_spec("[INPUT]\ny:0...1073741823\n\n[OUTPUT]\nb\n\n[ENV_INIT]\ny = 0\n\n"
                      "[SYS_TRANS]\nb'\n")
    result = synthesize(spec, SynthesisOptions(max_states=10_000))
    assert result.status == Realizability.INCOMPLETE
    assert "successor budget" in result.incomplete_reason


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "-inf"])
def test_bad_time_budget_on_the_command_line(tmp_path, value):
    spec = tmp_path / "s.structuredslugs"
    spec.write_text(HUGE)
    outcome = run_cli("supervisor", ["solve", spec, f"--time-budget={value}"])
    assert outcome.code == 2 and not outcome.traceback
    assert "time_budget" in outcome.err


@pytest.mark.parametrize("value", [".nan", "-3", "0", ".inf"])
def test_bad_time_budget_in_a_mission(tmp_path, value):
    mission = _vending(tmp_path, mission_edit=lambda t: t.replace(
        "pending: true", f"pending: true\n  time_budget_s: {value}"))
    outcome = run_cli("supervisor", ["synthesize", mission, "--out", tmp_path / "out"])
    assert outcome.code == 2 and not outcome.traceback
    assert "mission.yaml" in outcome.err and "time_budget_s" in outcome.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("section,entry", [("budgets", "{time_s: .nan}"),
                                           ("budgets", "{nodes: -5}"), ("repeats", "0")])
def test_bad_sweep_budget(tmp_path, section, entry):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"name: s\nmissions: [{str(MISSIONS / 'vending.yaml')!r}]\n"
                     f"{section}: {entry}\n")
    outcome = run_cli("supervisor", ["sweep", sweep, "--out", tmp_path / "out", "--quiet"])
    assert outcome.code == 2 and "sweep.yaml" in outcome.err and not outcome.traceback


@pytest.mark.parametrize("value", ["0", "-4"])
def test_max_steps_must_be_positive(value):
    outcome = run_cli("supervisor", ["run", MISSIONS / "vending.yaml", "--max-steps", value])
    assert outcome.code == 2 and "--max-steps" in outcome.err and not outcome.traceback


@pytest.mark.parametrize("runner", ["{sim: forced, max_steps: 0}",
                                    "{sim: forced, timeouts: {pay: .nan}}",
                                    "{sim: forced, random: {pay: 1.5}}",
                                    "{sim: forced, random: {pay: -0.1}}",
                                    "{sim: forced, forced, 20}"])
def test_bad_runner_section(tmp_path, runner):
    """Bad runner numbers and keys (keys of mixed types crashed the unknown-key report: found
    by the fuzz suite)."""
    mission = _vending(tmp_path, mission_edit=lambda t: t.replace(
        "runner: {sim: forced, max_steps: 20}", f"runner: {runner}"))
    outcome = run_cli("supervisor", ["run", mission])
    assert outcome.code == 2 and "runner" in outcome.err and not outcome.traceback


@pytest.mark.parametrize("inject", [{"navigate": {"probability": float("nan")}},
                                    {"navigate": {"probability": 2}},
                                    {"navigate": {"calls": "x"}}, {"navigate": {1: 2, "a": 3}}])
def test_bad_failure_injection(inject):
    from bdi_supervisor.domains.pyrobosim.adapters import FailureInjector
    from bdi_supervisor.errors import InputError

    with pytest.raises(InputError, match=r"runner\.inject\.navigate"):
        FailureInjector.from_config(inject, 0, "m.yaml")


# ------------------------------------------------------------------ verdicts and errors


def test_bad_catalog_parameter_is_bad_input_before_synthesis(tmp_path, monkeypatch):
    import bdi_supervisor.synthesis.synthesize as module

    monkeypatch.setattr(module, "synthesize", lambda *a, **k: pytest.fail("synthesis ran"))
    mission = _vending(tmp_path, lambda t: t.replace("parameters: {text: Ready to go}",
                                                     "parameters: {text: .nan}"))
    outcome = run_cli("supervisor", ["synthesize", mission, "--out", tmp_path / "out"])
    assert outcome.code == 2 and not outcome.traceback
    assert "catalog.yaml" in outcome.err and "capabilities.prep_pay.parameters.text" in outcome.err
    assert "REALIZABLE" not in outcome.out
    assert not (tmp_path / "out").exists()


def test_realize_failure_after_synthesis_is_bad_input(tmp_path, monkeypatch):
    """A realization error only found on the strategy is reported as an error, exit 2."""
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.realize import stage

    def broken(*args, **kwargs):
        raise InputError("cannot realize", key="capabilities.pay")

    monkeypatch.setattr(stage, "realize_mission", broken)
    outcome = run_cli("supervisor", ["synthesize", MISSIONS / "vending.yaml",
                                     "--out", tmp_path / "out"])
    assert outcome.code == 2 and "error:" in outcome.err and "cannot realize" in outcome.err


def test_run_with_an_exhausted_budget_is_a_verdict(tmp_path):
    mission = _vending(tmp_path, _billion, lambda t: t.replace(
        "pending: true", "pending: true\n  time_budget_s: 2"))
    outcome = run_cli("supervisor", ["run", mission])
    assert outcome.code == 1 and not outcome.traceback, outcome.err
    assert Realizability.INCOMPLETE in outcome.err and "error:" not in outcome.err
    outcome = run_cli("supervisor", ["run", mission, "--json"])
    assert outcome.code == 1 and json.loads(outcome.out)["synthesis"] == Realizability.INCOMPLETE


def test_run_of_an_unrealizable_mission_is_a_verdict(tmp_path):
    mission = _vending(tmp_path, mission_edit=lambda t: t.replace(
        "synthesis:", "constraints:\n  sys_safety: ['!soda']\nsynthesis:"))
    outcome = run_cli("supervisor", ["run", mission])
    assert outcome.code == 1 and "UNREALIZABLE" in outcome.err and not outcome.traceback


@pytest.mark.parametrize("suffix", ["structuredslugs", "slugsin"])
@pytest.mark.parametrize("section", ["SYS_INIT", "ENV_INIT"])
def test_primed_variable_in_init_is_a_parse_error(tmp_path, suffix, section):
    name = "b" if section == "SYS_INIT" else "a"
    spec = tmp_path / f"p.{suffix}"
    spec.write_text(f"[INPUT]\na\n\n[OUTPUT]\nb\n\n[{section}]\n{name}'\n")
    outcome = run_cli("supervisor", ["solve", spec])
    assert outcome.code == 2 and not outcome.traceback
    assert f"p.{suffix}, line 8" in outcome.err and "next state" in outcome.err


def test_state_cap_can_be_set_on_the_command_line(tmp_path):
    spec = tmp_path / "huge.structuredslugs"
    spec.write_text(HUGE)
    outcome = run_cli("supervisor", ["solve", spec, "--max-states", "10", "--json"])
    assert outcome.code == 3
    assert "strategy state budget of 10 " in json.loads(outcome.out)["incomplete_reason"]
    assert run_cli("supervisor", ["solve", spec, "--max-states", "0"]).code == 2
