"""The shipped domain sweep's grid, budgets as results (INCOMPLETE rows, not ERROR rows) and the
audit-defect column of the tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import ROOT

from bdi_supervisor.sweep.backends import SerialBackend
from bdi_supervisor.sweep.grid import load_sweep
from bdi_supervisor.sweep.report import markdown_table, short_reason
from bdi_supervisor.sweep.runner import run_sweep
from bdi_supervisor.sweep.store import read_rows
from bdi_supervisor.sweep.trial import flatten

SWEEPS = ROOT / "config" / "sweeps"
COFFEE = ROOT / "config" / "missions" / "coffee.yaml"


def test_domains_small_expands_to_the_documented_grid():
    sweep = load_sweep(SWEEPS / "domains_small.yaml")
    assert sweep.name == "domains_small"
    assert len(sweep.trials) == 3 * 2 * 4 * 3
    assert {Path(t.mission).stem for t in sweep.trials} == {
        "logistics_p0", "logistics_p1", "quadcopter_crazyflie"}
    assert all(Path(t.mission).is_file() for t in sweep.trials)
    assert {t.config for t in sweep.trials} == {
        f"{e}-{lv}{p}" for e in ("one-hot", "enumerated") for lv in "SF" for p in ("", "P")}
    assert {t.seed for t in sweep.trials} == {0, 1, 2}
    assert {t.declaration_order for t in sweep.trials} == {"random"}
    assert {(t.time_budget_s, t.node_budget) for t in sweep.trials} == {(30, 5_000_000)}
    assert len({t.key for t in sweep.trials}) == len(sweep.trials)


def test_paper_sweep_has_ten_ordering_seeds():
    sweep = load_sweep(SWEEPS / "paper_coffee_two_rivers.yaml")
    assert {t.seed for t in sweep.trials} == set(range(10))
    assert len(sweep.trials) == 2 * 2 * 4 * 10 * 2


@pytest.mark.parametrize("budget, label", [("time_s: 0.000001", "INCOMPLETE (time budget)"),
                                           ("nodes: 1", "INCOMPLETE (node budget)")])
def test_a_trial_over_its_budget_is_an_incomplete_row_not_an_error(tmp_path, budget, label):
    path = tmp_path / "tiny.yaml"
    path.write_text(f"name: tiny\nmissions: [{COFFEE}]\nbudgets: {{{budget}}}\n")
    outcome = run_sweep(load_sweep(path), tmp_path / "out", SerialBackend(), show_progress=False)
    assert (outcome.ran, outcome.errors) == (1, 0)
    [row] = read_rows(outcome.results)
    assert row["status"] == "OK" and "error" not in row
    assert row["synthesis.status"] == "INCOMPLETE"
    assert row["audit.status"] == row["realize.status"] == "skipped"
    # well-separation ran before synthesis, within what was left of the trial's time budget
    assert row["well_separation.status"] in ("WELL_SEPARATED", "ANALYSIS_INCOMPLETE")
    assert f"| {label} |" in markdown_table([row])
    assert f"| {row['well_separation.status']} | skipped |" in markdown_table([row])


def test_defect_kinds_are_columns_and_reach_the_table():
    row: dict = {}
    flatten({"raw_defects": ["GOAL_UNREACHABLE_TRAP", "DEADLOCK"], "raw_warnings": []},
            "audit", row)
    assert row == {"audit.raw_defects": "GOAL_UNREACHABLE_TRAP, DEADLOCK",
                   "audit.raw_defects.count": 2, "audit.raw_warnings": "",
                   "audit.raw_warnings.count": 0}
    base = {"mission_name": "quad", "declaration_order": "random", "reordering": True,
            "reordering_threshold": None, "synthesis.status": "REALIZABLE"}
    rows = [{**base, "key": "a", "config": "one-hot-FP", "audit.status": "FAIL",
             "audit.raw_defects": "GOAL_UNREACHABLE_TRAP"},
            {**base, "key": "b", "config": "one-hot-S", "audit.status": "PASS",
             "audit.raw_defects": ""}]
    lines = markdown_table(rows, timing=False).splitlines()
    assert "audit defects" in lines[2]
    assert lines[4].startswith("| one-hot-FP") and lines[4].endswith(
        "| FAIL | GOAL_UNREACHABLE_TRAP |")
    assert lines[5].startswith("| one-hot-S") and lines[5].endswith("| PASS | none |")


def test_budget_reasons_shorten_to_the_budget_and_the_stage():
    assert short_reason("time budget of 30 exhausted") == "time budget"
    assert short_reason("node budget of 5000000 exhausted during strategy extraction "
                        "(the spec is realizable)") == "node budget, extraction"
    assert short_reason("something else") == "something else"


def test_trials_stopped_by_a_budget_do_not_count_as_empty_strategies():
    base = {"mission_name": "p1", "config": "one-hot-FP", "declaration_order": "random",
            "reordering": True, "reordering_threshold": None}
    rows = [{**base, "key": "a", "synthesis.status": "REALIZABLE",
             "synthesis.metrics.strategy_states": 61, "synthesis.metrics.peak_nodes": 1000},
            {**base, "key": "b", "synthesis.status": "INCOMPLETE",
             "synthesis.incomplete_reason": "time budget of 30 exhausted",
             "synthesis.metrics.strategy_states": 0, "synthesis.metrics.peak_nodes": 400}]
    line = markdown_table(rows, timing=False).splitlines()[4]
    assert "| INCOMPLETE (time budget)×1, REALIZABLE×1 |" in line
    assert "| 1000 |" in line and "| 61 |" in line
    assert "400" not in line and "30.5" not in line
