"""The hand-over checks, the audit gate and the adapters file as plain functions (no rclpy): the
CLI and the supervisor node share them."""

from __future__ import annotations

import pytest

from bdi_supervisor.errors import InputError
from bdi_supervisor.handover import (
    Refused,
    RunState,
    accept_handover,
    check_audit,
    deployable,
    handover_body,
    same_mission,
)
from bdi_supervisor.runtime.adapter_config import parse_adapters, read_adapters
from bdi_supervisor.runtime.bdi_state import FINAL_STATUSES


@pytest.fixture
def folder(tmp_path):
    run = tmp_path / "attempt_1"
    run.mkdir()
    (run / "reduced.json").write_text('{"states": []}\n')
    (tmp_path / "mission.yaml").write_text("name: m\n")
    return run


def test_a_hand_over_of_the_mission_with_an_unchanged_reduced_json_is_accepted(folder):
    mission = folder.parent / "mission.yaml"
    body = handover_body(mission, folder, 1)
    assert body["audit"] == "PASS" and body["attempt"] == 1
    assert accept_handover(body, mission) == folder
    assert same_mission(body, folder.parent / "." / "mission.yaml")  # the same file


@pytest.mark.parametrize("change, why", [
    ({"audit": "FAIL"}, "without audit PASS ('FAIL')"),
    ({"audit": None}, "without audit PASS (None)"),
    ({"folder": ""}, "names no reduced.json"),
    ({"folder": "/no/such/folder"}, "names no reduced.json"),
    ({"reduced_sha256": "0" * 64}, "changed after its audit"),
    ({"mission": "/other/mission.yaml"}, "another mission"),
])
def test_a_bad_hand_over_is_refused_saying_why(folder, change, why):
    mission = folder.parent / "mission.yaml"
    body = {**handover_body(mission, folder, 1), **change}
    with pytest.raises(Refused, match=why.replace("(", r"\(").replace(")", r"\)")):
        accept_handover(body, mission)


def test_a_reduced_json_edited_after_the_hand_over_is_refused(folder):
    mission = folder.parent / "mission.yaml"
    body = handover_body(mission, folder, 1)
    (folder / "reduced.json").write_text('{"states": [1]}\n')
    with pytest.raises(Refused, match="changed after its audit"):
        accept_handover(body, mission)


def test_the_audit_gate_of_cli_and_node():
    assert deployable("PASS") and deployable(None)
    check_audit("PASS")
    for verdict in ("FAIL", "INCOMPLETE"):
        assert not deployable(verdict)
        with pytest.raises(Refused, match=f"supervisor audit {verdict} in /run; not executing"):
            check_audit(verdict, "/run")
    with pytest.raises(Refused) as caught:
        check_audit("FAIL")
    assert str(caught.value) == "supervisor audit FAIL; not executing"


def test_run_states_cover_the_executor_statuses():
    assert {s.value for s in RunState} >= set(FINAL_STATUSES)
    assert all(RunState(s).final for s in FINAL_STATUSES)
    assert [s.value for s in RunState if s.healthy] == ["waiting", "running", "goal_reached"]


GOOD = {"bd": {"kind": "service", "name": "/coffee/button", "type": "std_srvs/srv/Trigger"},
        "br": {"kind": "action", "name": "/coffee/brew", "type": "test_msgs/action/Fibonacci",
               "goal": {"order": 3}, "outcomes": {"succeeded": "completed"}, "timeout": 5}}


def test_adapters_file_parsed_into_specs(tmp_path):
    path = tmp_path / "adapters.yaml"
    path.write_text("adapters:\n  bd: {kind: service, name: /b, type: std_srvs/srv/Trigger}\n")
    (spec,) = read_adapters(path, ["bd", "gr"]).values()
    assert (spec.kind, spec.name, spec.interface, spec.timeout) == (
        "service", "/b", ("std_srvs", "srv", "Trigger"), 10.0)
    assert spec.source == str(path) and spec.where == "adapters.bd"
    specs = parse_adapters(GOOD)
    assert specs["br"].constants == {"order": 3} and specs["br"].timeout == 5.0
    assert specs["br"].status_outcomes == {"succeeded": "completed"}
    assert parse_adapters(None) == {} and parse_adapters({"adapters": None}) == {}


@pytest.mark.parametrize("config, key, message", [
    ({"fly": GOOD["bd"]}, "adapters.fly", "no such capability"),
    ([1, 2], "adapters", "must be a mapping"),
    ({"bd": "service"}, "adapters.bd", "must be a mapping"),
    ({"bd": {**GOOD["bd"], "kind": "topic"}}, "adapters.bd.kind", "unknown adapter kind"),
    ({"bd": {**GOOD["bd"], "name": "no spaces"}}, "adapters.bd.name", "not a ROS name"),
    ({"bd": {**GOOD["bd"], "type": "std_srvs/action/Trigger"}}, "adapters.bd.type",
     "not an interface type name"),
    ({"bd": {**GOOD["bd"], "type": "os.system"}}, "adapters.bd.type", "interface type name"),
    ({"bd": {**GOOD["bd"], "timeout": True}}, "adapters.bd.timeout", "bad timeout"),
    ({"bd": {**GOOD["bd"], "goal": {}}}, "adapters.bd.goal", "unknown key"),
    ({"br": {**GOOD["br"], "outcomes": {"exploded": "failure"}}}, "adapters.br.outcomes",
     "unknown goal status"),
    ({"br": {**GOOD["br"], "goal": [3]}}, "adapters.br.goal", "must be a mapping"),
])
def test_bad_adapters_are_reported_with_file_and_key(config, key, message):
    with pytest.raises(InputError, match=message) as caught:
        parse_adapters(config, "adapters.yaml", ["bd", "br"])
    assert caught.value.key == key and caught.value.file == "adapters.yaml"
