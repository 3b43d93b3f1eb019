"""Mission loader: shipped missions load; options and bad input."""

from pathlib import Path

import pytest
from support.paths import CATALOGS, MISSIONS

from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import Var


@pytest.mark.parametrize("path", sorted(MISSIONS.glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_missions_load(path):
    mission = load_mission(path)
    assert mission.catalog.capabilities
    assert Path(mission.catalog_path).is_file()


def test_request_and_defaults():
    mission = load_mission(MISSIONS / "vending_extended.yaml")
    assert mission.request.sm_outcomes == ("finished",)
    assert mission.request.initial_conditions[0].formula == Var("prep_pay_a")
    assert mission.synthesis == SynthesisOptions()
    assert mission.synthesis.label == "SP"


def _write(tmp_path, body, catalog=True):
    if catalog:
        (tmp_path / "cat.yaml").write_text((CATALOGS / "coffee_extended.yaml").read_text())
    path = tmp_path / "m.yaml"
    path.write_text(body)
    return path


GOOD = """\
catalog: cat.yaml
request:
  initial_conditions: [bd_a]
  goals: [br_c]
constraints:
  sys_safety:
    - "bd_a -> !br_a'"
    - {name: keep-going, formula: "TRUE"}
synthesis:
  encoding: enumerated
  liveness: fair-outcome
  pending: false
  declaration_order: random
  seed: 7
  time_budget_s: 30
runner: {kind: embedded}
properties: {p1: "AG bel finished"}
"""


def test_options_constraints_and_pass_through(tmp_path):
    mission = load_mission(_write(tmp_path, GOOD))
    assert mission.synthesis.encoding == "enumerated" and mission.synthesis.seed == 7
    assert mission.synthesis.label == "F"
    safety = mission.constraints["sys_safety"]
    assert safety[0].key == "constraints.sys_safety[0]" and safety[0].line == 7
    assert safety[1].key == "keep-going"
    assert mission.section("runner") == {"kind": "embedded"}
    assert mission.section("audit") == {}
    error = mission.section_error("bad adapter", "runner", "kind", found="'x'")
    assert error.line == 16 and error.key == "runner.kind"


def test_solver_options_come_from_the_mission_file(tmp_path):
    mission = load_mission(_write(tmp_path, GOOD.replace("  time_budget_s: 30",
                                                         "  max_growth: 1.2")))
    assert mission.synthesis.max_growth == 1.2 and mission.synthesis.time_budget is None
    mission = load_mission(_write(tmp_path, GOOD))
    assert mission.synthesis.max_growth is None and mission.synthesis.time_budget == 30
    assert mission.synthesis.reachable
    mission = load_mission(_write(tmp_path, GOOD.replace("  time_budget_s: 30",
                                                         "  reachable: false")))
    assert not mission.synthesis.reachable


@pytest.mark.parametrize("old, new, message, line", [
    ("runner: {kind: embedded}", "runner: [embedded]", "wrong type", 16),
    ("  pending: false", "  pending: maybe", "wrong type", 12),
    ("  encoding: enumerated", "  encoding: binary", "unknown encoding", 10),
    ("synthesis:", "colour: red\nsynthesis:", "unknown key", 9),
    ("  goals: [br_c]", "  goal: [br_c]", "unknown key", 4),
    ("    - \"bd_a -> !br_a'\"", "    - \"bd_a -> !br_a''\"", "malformed formula", 7),
    ("catalog: cat.yaml", "catalog: missing.yaml", "file not found", 1),
    ("  sys_safety:", "  sys_trans:", "unknown key", 6),
    ("  time_budget_s: 30", "  time_budget_s: -1", "must be positive", 15),
    ("  time_budget_s: 30", "  max_growth: 0.9", "must be a growth factor", 15),
    ("  time_budget_s: 30", "  max_growth: fast", "wrong type", 15),
    ("  time_budget_s: 30", "  reachable: some", "wrong type", 15),
])
def test_bad_missions_are_located(tmp_path, old, new, message, line):
    assert old in GOOD
    with pytest.raises(InputError, match=message) as info:
        load_mission(_write(tmp_path, GOOD.replace(old, new, 1)))
    assert info.value.line == line
    assert info.value.file.endswith("m.yaml")


def test_unknown_sm_outcome(tmp_path):
    with pytest.raises(InputError, match="has no proposition"):
        load_mission(_write(tmp_path, GOOD.replace("  goals: [br_c]", "  goals: [br_c]\n  "
                                                                      "sm_outcomes: [done_ok]")))
