"""``bdi-supervisor spec``: every shipped mission in every format; bad input exits 2 cleanly."""

import json
import subprocess
import sys

import pytest
from support.paths import ROOT

from bdi_supervisor.cli.main import main
from bdi_supervisor.spec.io import load_spec

MISSIONS = sorted((ROOT / "config" / "missions").glob("*.yaml"))


@pytest.mark.parametrize("mission", MISSIONS, ids=lambda p: p.stem)
@pytest.mark.parametrize("fmt", ["structuredslugs", "slugsin"])
def test_every_mission_exports(tmp_path, mission, fmt):
    out = tmp_path / f"{mission.stem}.{fmt}"
    assert main(["spec", str(mission), "--format", fmt, "-o", str(out)]) == 0
    spec = load_spec(out)
    assert spec.sys_safety and spec.outputs


def test_json_record_counts(capsys):
    mission = ROOT / "config" / "missions" / "coffee_extended.yaml"
    assert main(["spec", str(mission), "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["propositions"] == {"inputs": 6, "outputs": 8, "input_bits": 6, "output_bits": 8}
    assert record["formulas"]["env_init"] == 6 and record["formulas"]["sys_init"] == 8
    assert record["formulas"]["env_safety"] == 12 and record["formulas"]["sys_liveness"] == 1
    assert record["configuration"] == "SP"


def test_options_override_the_mission(capsys):
    mission = ROOT / "config" / "missions" / "coffee_extended.yaml"
    assert main(["spec", str(mission), "--format", "json", "--encoding", "enumerated",
                 "--liveness", "fair-outcome", "--no-pending"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["configuration"] == "F" and record["encoding"] == "enumerated"
    assert record["inputs"] == ["completed", "failure"]
    assert record["formulas"]["env_liveness"] == 3


BAD = {
    "unknown key": ("colour: red\n", "unknown key"),
    "wrong type": ("synthesis: {pending: maybe}\n", "wrong type"),
    "undefined name": ("request: {goals: [nothing_here]}\n", "undefined name 'nothing_here'"),
    "malformed formula": ("request: {goals: ['br_c &']}\n", "malformed formula"),
    "unsafe identifier": ("request: {sm_outcomes: ['bad name']}\n", "unsafe SM outcome name"),
}


def _mission(tmp_path, extra, catalog_text=None):
    catalog = tmp_path / "cat.yaml"
    catalog.write_text(catalog_text
                       or (ROOT / "config" / "catalogs" / "coffee_extended.yaml").read_text())
    path = tmp_path / "m.yaml"
    path.write_text("catalog: cat.yaml\n" + extra)
    return path


def _run(args):
    return subprocess.run([sys.executable, "-m", "bdi_supervisor", "spec", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_missions_exit_2_without_traceback_or_output(tmp_path, case):
    extra, message = BAD[case]
    out = tmp_path / "out.structuredslugs"
    result = _run([str(_mission(tmp_path, extra)), "-o", str(out)])
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1  # one paragraph
    assert "m.yaml" in result.stderr and "line" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.yaml", "m.yaml"]


def test_conflicting_postconditions_in_the_catalog_exit_2(tmp_path):
    catalog = (ROOT / "config" / "catalogs" / "coffee_extended.yaml").read_text()
    catalog = catalog.replace('completed: [bd, "!gr"]', 'completed: [bd, "!bd"]')
    result = _run([str(_mission(tmp_path, "", catalog)), "--format", "slugsin"])
    assert result.returncode == 2
    assert "conflicting postconditions" in result.stderr and "cat.yaml" in result.stderr
    assert result.stdout == ""


def test_malformed_formula_reports_line_and_column(tmp_path):
    mission = _mission(tmp_path, "constraints:\n  sys_safety:\n    - \"bd_a -> (br_a'\"\n")
    result = _run([str(mission)])
    assert result.returncode == 2
    assert "line 4, column 22" in result.stderr  # just after the formula, where ")" is missing


def test_missing_mission_file(tmp_path):
    result = _run([str(tmp_path / "nope.yaml")])
    assert result.returncode == 2 and "not found" in result.stderr
