"""Pipeline stages: audit raw → stop on FAIL/INCOMPLETE → reduce → audit reduced, files written."""

import dataclasses
import json

import pytest
from support.audit_builders import one_hot
from support.paths import MISSIONS

from bdi_supervisor.audit.config import audit_config, mission_goals
from bdi_supervisor.audit.predicates import compile_predicate
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission.loader import load_mission
from bdi_supervisor.pipeline.audit_reduce import audit_mission
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis import strategy as strategy_io
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

COFFEE = load_mission(MISSIONS / "coffee.yaml")


def coffee(loop_target=1):
    return one_hot(COFFEE.catalog, [
        ("", "bd_a", [1]), ("bd_c", "gr_a", [2]), ("gr_c", "br_a", [3]),
        ("br_c", "bd_a", [loop_target]),
    ])


def test_coffee_stages_write_records_and_reduce_four_to_three(tmp_path):
    stages = audit_mission(coffee(), COFFEE, out_dir=tmp_path, draw=True)
    assert stages.deployable and stages.stopped is None
    assert stages.raw_audit.goals == ["br_c'"]
    assert json.loads((tmp_path / "audit.json").read_text())["verdict"] == "PASS"
    reduced = strategy_io.load(tmp_path / "reduced.json")
    assert len(reduced.states) == 3 and reduced.metadata["reduced"] is True
    record = json.loads((tmp_path / "audit_reduced.json").read_text())
    assert record["mode"] == "structural" and record["verdict"] == "PASS"
    assert (tmp_path / "strategy_raw.dot").exists() and (tmp_path / "strategy_reduced.dot").exists()
    assert stages.summary()["reduced_states"] == 3


def test_failing_raw_audit_stops_before_reduction(tmp_path):
    trap = one_hot(COFFEE.catalog, [("", "bd_a", [1]), ("bd_c", "bd_a", [1])])
    stages = audit_mission(trap, COFFEE, out_dir=tmp_path)
    assert stages.stopped == "raw strategy failed the audit" and not stages.deployable
    assert (tmp_path / "audit.json").exists() and not (tmp_path / "reduced.json").exists()
    overridden = dataclasses.replace(COFFEE, sections={"audit": {"proceed_on_fail": True}})
    stages = audit_mission(trap, overridden, out_dir=tmp_path)
    assert stages.reduced is not None and (tmp_path / "reduced.json").exists()
    assert stages.reduced_audit.verdict == "FAIL" and not stages.deployable


def test_incomplete_raw_audit_stops_unless_overridden(tmp_path):
    slow = dataclasses.replace(COFFEE, sections={"audit": {"time_budget_s": 0}})
    assert audit_mission(coffee(), slow).stopped.startswith("raw audit incomplete")
    go = dataclasses.replace(COFFEE, sections={"audit": {"time_budget_s": 0,
                                                         "proceed_on_incomplete": True}})
    assert audit_mission(coffee(), go).reduced is not None


def test_configured_goals_and_bad_section():
    mission = dataclasses.replace(COFFEE, sections={"audit": {"goals": ["gr_c"]}})
    assert mission_goals(mission, coffee()) == ["gr_c"]
    for section, key in (({"colour": 1}, "audit.colour"), ({"livelock": "maybe"}, "audit.livelock"),
                         ({"goals": "br_c"}, "audit.goals"), ({"proceed_on_fail": 1},
                                                               "audit.proceed_on_fail")):
        with pytest.raises(InputError) as info:
            audit_config(dataclasses.replace(COFFEE, sections={"audit": section}))
        assert info.value.key == key


def test_enumerated_goal_is_rewritten_to_capability_and_generic_outcome():
    # coffee capabilities sorted: bd=1, br=2, gr=3; br_c becomes capability = 2 & completed'
    strategy = Strategy(
        [Variable("completed", "env"), Variable("failure", "env"),
         Variable("capability", "sys", "int", 0, 3)],
        [StrategyState(0, {"completed": False, "failure": False}, {"capability": 2}, [], 0, True)])
    (goal,) = mission_goals(COFFEE, strategy)
    predicate = compile_predicate(goal)
    assert predicate({"capability": 2}, {"completed": True})
    assert not predicate({"capability": 1}, {"completed": True})
    assert not predicate({"capability": 2}, {"completed": False})


def test_audit_reads_the_encoding_off_the_strategy_not_the_mission_default():
    enumerated_default = dataclasses.replace(
        COFFEE, synthesis=dataclasses.replace(COFFEE.synthesis, encoding="enumerated"))
    stages = audit_mission(coffee(), enumerated_default)
    assert stages.raw_audit.encoding == "one-hot"
    assert stages.raw_audit.verdict == "PASS" and stages.deployable
