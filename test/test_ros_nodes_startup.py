"""Synthesis and supervisor nodes: parameters, bad parameters → exit 2, endpoints and QoS
(real rclpy; the pipeline runs are in test_ros_mission.py)."""

from __future__ import annotations

import contextlib
import subprocess
import sys

import pytest
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")

from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy  # noqa: E402

from bdi_supervisor.errors import InputError  # noqa: E402
from bdi_supervisor.ros import supervisor_node, synthesis_node, topics  # noqa: E402
from bdi_supervisor.ros.node_main import ParameterError  # noqa: E402

COFFEE = ROOT / "config" / "missions" / "coffee_extended.yaml"


def _params(**values):
    return [Parameter(k, value=v) for k, v in values.items()]


@pytest.mark.parametrize("values, error, match", [
    ({}, ParameterError, "parameter 'mission'"),
    ({"mission": str(COFFEE), "runner": "smach"}, ParameterError, "parameter 'runner'"),
    ({"mission": str(COFFEE), "max_steps": -1}, ParameterError, "parameter 'max_steps'"),
    ({"mission": str(COFFEE), "autonomy": "medium"}, ParameterError, "autonomy"),
    ({"mission": str(COFFEE), "ros_adapters": "/no/such.yaml"}, ParameterError, "ros_adapters"),
    ({"mission": str(COFFEE), "monitor_timeout": 0.0}, ParameterError, "monitor_timeout"),
])
def test_supervisor_bad_parameters(rclpy_context, values, error, match):
    with pytest.raises(error, match=match):
        supervisor_node.SupervisorNode(rclpy_context, _params(**values))


def test_runner_flexbe_without_flexbe_msgs_is_a_parameter_error(rclpy_context, monkeypatch):
    """Where flexbe_msgs cannot be imported (here made so: ``None`` in ``sys.modules`` is how
    Python marks a module as unimportable), ``runner:=flexbe`` is refused naming it."""
    monkeypatch.setitem(sys.modules, "flexbe_msgs", None)
    monkeypatch.setitem(sys.modules, "flexbe_msgs.msg", None)
    with pytest.raises(ParameterError, match="flexbe_msgs"):
        supervisor_node.SupervisorNode(rclpy_context, _params(mission=str(COFFEE),
                                                              runner="flexbe"))


def test_runner_flexbe_starts_where_flexbe_is_installed(rclpy_context):
    """With FlexBE's flexbe_msgs installed, ``runner:=flexbe`` starts: it publishes the
    selection on flexbe/start_behavior, listens on flexbe/status and waits for a hand-over."""
    pytest.importorskip("flexbe_msgs.msg", reason=STACK_MISSING.format(what="FlexBE's flexbe_msgs"))
    node = supervisor_node.SupervisorNode(rclpy_context, _params(mission=str(COFFEE),
                                                                 runner="flexbe"))
    try:
        (pub,) = node.get_publishers_info_by_topic("/" + topics.FLEXBE_START)
        assert pub.topic_type == "flexbe_msgs/msg/BehaviorSelection"
        (sub,) = node.get_subscriptions_info_by_topic("/" + topics.FLEXBE_STATUS)
        assert sub.topic_type == "flexbe_msgs/msg/BEStatus"
        assert node.state == "waiting" and node.thread is None
    finally:
        node.destroy_node()


def test_supervisor_rejects_adapters_for_unknown_capabilities(rclpy_context, tmp_path):
    config = tmp_path / "adapters.yaml"
    config.write_text("adapters:\n  fly: {kind: service, name: /fly, type: std_srvs/srv/Trigger}\n")
    with pytest.raises(InputError, match="no such capability") as caught:
        supervisor_node.SupervisorNode(rclpy_context, _params(
            mission=str(COFFEE), ros_adapters=str(config)))
    assert caught.value.key == "adapters.fly"


@pytest.mark.parametrize("text, match", [
    # keys of mixed types: reported, not a TypeError from sorting them
    ("adapters:\n  1: {kind: service}\n  fly: {kind: service}\n", "no such capability"),
    # alias expansion is bounded as for every other input file
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
     + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
               for p, c in zip("abcdefg", "bcdefgh")), "alias"),
    ("adapters: [not, a, mapping]\n", "mapping"),
])
def test_supervisor_adapters_file_is_read_with_the_input_limits(rclpy_context, tmp_path, text,
                                                                 match):
    config = tmp_path / "adapters.yaml"
    config.write_text(text)
    with pytest.raises(InputError, match=match) as caught:
        supervisor_node.SupervisorNode(rclpy_context, _params(
            mission=str(COFFEE), ros_adapters=str(config)))
    assert caught.value.file == str(config)


def test_supervisor_bad_mission_file_is_an_input_error(rclpy_context, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ncatalog: nowhere.yaml\n")
    with pytest.raises(InputError):
        supervisor_node.SupervisorNode(rclpy_context, _params(mission=str(bad)))


def test_supervisor_waits_for_a_latched_handover(rclpy_context):
    node = supervisor_node.SupervisorNode(rclpy_context, _params(mission=str(COFFEE)))
    try:
        (sub,) = node.get_subscriptions_info_by_topic("/" + topics.HANDOVER)
        assert sub.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
        (pub,) = node.get_publishers_info_by_topic("/" + topics.BDI_STATE)
        assert pub.topic_type == "std_msgs/msg/String"
        # a late monitor still gets the run from its first record
        assert pub.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
        assert pub.qos_profile.reliability == ReliabilityPolicy.RELIABLE
        assert node.state == "waiting" and node.thread is None
    finally:
        node.destroy_node()


@pytest.mark.parametrize("main", [supervisor_node.main, synthesis_node.main])
def test_mains_exit_2_on_bad_parameters(ros_env, capsys, main):
    assert main(["x", "--ros-args", "-p", "mission:=/no/such.yaml"]) == 2
    err = capsys.readouterr().err
    assert "parameter 'mission'" in err and "Traceback" not in err


@pytest.mark.parametrize("where", ["file", "file/below", "/proc/no_such_dir"])
def test_synthesis_unusable_output_dir_is_a_parameter_error(rclpy_context, tmp_path, where):
    """Checked at start-up, before any synthesis (was a FileNotFoundError traceback mid-pipeline
    while the supervisor waited for a hand-over forever)."""
    (tmp_path / "file").write_text("not a folder\n")
    output = where if where.startswith("/") else str(tmp_path / where)
    with pytest.raises(ParameterError, match="parameter 'output_dir'"):
        synthesis_node.SynthesisNode(rclpy_context, _params(mission=str(COFFEE),
                                                            output_dir=output))
    assert not list(tmp_path.glob("**/attempt_*"))


def test_synthesis_main_exits_2_on_an_unusable_output_dir(ros_env, capsys, tmp_path):
    (tmp_path / "file").write_text("")
    assert synthesis_node.main(["x", "--ros-args", "-p", f"mission:={COFFEE}",
                                "-p", f"output_dir:={tmp_path / 'file' / 'out'}"]) == 2
    err = capsys.readouterr().err
    assert "parameter 'output_dir'" in err and "Traceback" not in err, err


def test_nodes_accept_shipped_mission_names(rclpy_context, tmp_path):
    """``ros2 run … -p mission:=coffee`` works as ``mission:=coffee`` does in the launch file and
    on the command line; an unknown name lists the shipped ones."""
    node = supervisor_node.SupervisorNode(rclpy_context, _params(mission="coffee"))
    try:
        assert node.mission.name == "coffee"
        assert node.mission.file == str(ROOT / "config" / "missions" / "coffee.yaml")
    finally:
        node.destroy_node()
    with pytest.raises(ParameterError, match=r"shipped mission: .*coffee_extended"):
        supervisor_node.SupervisorNode(rclpy_context, _params(mission="no_such_mission"))


def test_supervisor_main_runs_a_mission_given_by_name(ros_env):
    from support.ros_helpers import start_node, stop

    process = start_node("bdi_supervisor.ros.supervisor_node", ["-p", "mission:=vending"],
                         ros_env)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=3)  # a refused mission ends the process at once
    code, output = stop(process)
    assert code == 0 and "error:" not in output and "Traceback" not in output, output


def test_synthesis_run_folders_go_under_the_ros_log_folder(rclpy_context, tmp_path,
                                                          monkeypatch):
    monkeypatch.setenv("ROS_LOG_DIR", str(tmp_path / "logs"))
    node = synthesis_node.SynthesisNode(rclpy_context, _params(mission="coffee"))
    try:
        assert node.output_dir.parent == tmp_path / "logs" / "bdi_supervisor"
        assert node.output_dir.name.startswith("coffee_")
        assert (node.output_dir / "attempt_1" / "reduced.json").is_file()
        assert node.record["handed_over"] is True
    finally:
        node.destroy_node()
