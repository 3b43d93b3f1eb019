"""``launch/mission.launch.py`` of this tree run by the real ROS 2 ``launch.LaunchService`` (as
``ros2 launch`` runs it), in a child process on the test's own DDS domain.

Checks the launch's failure handling (a bad mission stops it before any node; a node that exits
with an error stops the others and the launch exits non-zero) and the start-up order (with
``mission:=beer_robot`` the monitor hears the whole run although it is ready seconds after the
supervisor got its hand-over).

Needs the Jazzy ``launch`` and ``launch_ros`` Python packages, which are not on PyPI (neither as
``ros-jazzy-*`` wheels nor otherwise; PyPI's ``launch`` is an unrelated project): these tests
skip, saying so, where they are absent. The nodes are this tree's modules, started through a
temporary ament prefix (``lib/bdi_supervisor/<executable>``) as an install's console scripts
would be; the configuration is this tree's ``config/`` (beside ``launch/``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
launch = pytest.importorskip("launch", reason=STACK_MISSING.format(what="ROS 2 launch"))
if getattr(launch, "__file__", None) is None:  # only this repository's launch/ folder
    pytest.skip(STACK_MISSING.format(what="ROS 2 launch"), allow_module_level=True)
if not hasattr(launch, "LaunchService"):
    pytest.skip(f"'launch' at {launch.__file__} is not ROS 2 launch (PyPI's unrelated 'launch'?)",
                allow_module_level=True)
pytest.importorskip("launch_ros.actions", reason=STACK_MISSING.format(what="ROS 2 launch_ros"))

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from support.ros_helpers import (  # noqa: E402
    TimedOutput,
    ament_prefix,
    latest_status,
    spin_until,
    start_launch,
    stop,
)

from bdi_supervisor.ros import diagnostics, launch_plan, qos, topics, wire  # noqa: E402

LAUNCH_FILE = ROOT / "launch" / "mission.launch.py"
MODULES = {"synthesis_node": "bdi_supervisor.ros.synthesis_node",
           "supervisor_node": "bdi_supervisor.ros.supervisor_node",
           "monitor_node": "bdi_monitor.ros.monitor_node"}
assert set(MODULES) == set(launch_plan.EXECUTABLES)


@pytest.fixture
def launch_env(ros_env, tmp_path_factory):
    prefix = ament_prefix(tmp_path_factory.mktemp("prefix"), launch_plan.PACKAGE, MODULES)
    logs = tmp_path_factory.mktemp("ros_log")
    return {**ros_env, "AMENT_PREFIX_PATH": os.pathsep.join([str(prefix), sys.prefix]),
            "ROS_LOG_DIR": str(logs)}


def run_launch(args: list[str], env: dict[str, str], timeout: float = 60) -> tuple[int, str]:
    process = start_launch(LAUNCH_FILE, args, env)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return stop(process)  # reported as a hang by the caller's assertions
    return process.returncode, output


def test_a_bad_mission_fails_the_launch_before_any_node_starts(launch_env, tmp_path):
    mission = tmp_path / "bad.yaml"
    text = (ROOT / "config" / "missions" / "coffee.yaml").read_text().replace(
        "../catalogs/", str(ROOT / "config" / "catalogs") + "/")
    mission.write_text(text + "bogus_key: 1\n")
    code, output = run_launch([f"mission:={mission}"], launch_env)
    assert code != 0, output
    line = len(text.splitlines()) + 1
    assert f"{mission}, line {line}, key 'bogus_key': unknown key" in output, output
    assert "process started" not in output and "Traceback" not in output, output


def test_a_node_exiting_with_an_error_stops_the_others_and_fails_the_launch(launch_env,
                                                                           tmp_path):
    """An unusable ``output_dir``: the synthesis node exits 2 at start-up with a clear message;
    the launch stops the supervisor node (which would wait forever for a hand-over) and exits
    non-zero."""
    (tmp_path / "file").write_text("")
    code, output = run_launch(["mission:=coffee", f"output_dir:={tmp_path / 'file' / 'out'}"],
                              launch_env)
    assert code != 0, output
    assert "error: bdi_synthesis: parameter 'output_dir'" in output, output
    assert "bdi_synthesis (synthesis_node) exited with code 2" in output, output
    assert "sending signal 'SIGINT' to process[supervisor_node" in output, output
    assert "[supervisor_node-2]: process has finished cleanly" in output, output
    assert "Traceback" not in output, output


BOUNDED = ROOT / "test" / "data" / "ros" / "coffee_bounded.yaml"


@pytest.mark.parametrize("mission, verdict, code", [
    ("two_rivers_goat_stays", "UNREALIZABLE; no supervisor handed over", 1),
    ("logistics_p0_holding_start", "UNREALIZABLE; no supervisor handed over", 1),
    (str(BOUNDED), "audit FAIL; no supervisor handed over", 5),
])
def test_a_mission_without_a_supervisor_ends_the_launch_with_its_verdict(
        launch_env, tmp_path, mission, verdict, code):
    """With ``exit_when_done`` the synthesis node ends with its verdict's code (unrealizable 1,
    audit failed 5), naming the ``bdi-supervisor explain`` command of an unrealizable mission
    and leaving the verdict in the attempt's verdict.json; the launch exits 1 within 5 s of it
    (it waited for a hand-over for ever before)."""
    launch = TimedOutput(start_launch(LAUNCH_FILE, [
        f"mission:={mission}", "exit_when_done:=true", f"output_dir:={tmp_path}"], launch_env))
    try:
        said = launch.wait_for(f"{verdict}; exit {code}", 120)
        exit_code, ended = launch.wait_exit(60)
    finally:
        _, output = launch.stop()
    assert said is not None and exit_code == 1, output
    assert ended - said < 5.0, (ended - said, output)
    assert f"bdi_synthesis (synthesis_node) exited with code {code}" in output, output
    assert "[supervisor_node-2]: process has finished cleanly" in output, output
    assert "Traceback" not in output, output
    written = json.loads((tmp_path / "attempt_1" / "verdict.json").read_text())
    assert (written["stage"], written["exit_code"]) == ("synthesis", code)
    if code == 1:
        command = f"bdi-supervisor explain {ROOT / 'config' / 'missions' / mission}.yaml -o "
        assert f"why: {command}" in output and written["explain"].startswith(command), output
    print(f"launch ended {ended - said:.2f} s after the verdict ({Path(mission).stem}, "
          "runner embedded)")


def test_the_monitor_hears_the_whole_beer_robot_run(launch_env, rclpy_context, tmp_path):
    """The monitor needs seconds (synthesis and launch-time model check) before it subscribes;
    the supervisor gets its hand-over earlier and waits for it, so the monitor accounts for every
    record of the run (it saw 0 before). Ctrl-C then ends the launch with 0."""
    process = start_launch(LAUNCH_FILE, ["mission:=beer_robot", f"output_dir:={tmp_path}"],
                           launch_env)
    node = rclpy.create_node("observer", context=rclpy_context)
    records, arrays = [], []
    node.create_subscription(String, topics.BDI_STATE,
                             lambda m: records.append(wire.decode_record(m.data)), qos.STREAM)
    node.create_subscription(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC, arrays.append,
                             qos.DIAGNOSTICS)
    executor = SingleThreadedExecutor(context=rclpy_context)
    executor.add_node(node)

    def latest(name):
        return latest_status(arrays, name)

    def monitor_has_all():
        """The whole run arrived here and at the monitor, and the supervisor reports its end
        (the three come in any order)."""
        stream, run = latest("bdi_monitor: stream"), latest("bdi_supervisor: run")
        return (records and records[-1]["event"] == "end" and stream is not None
                and stream.values["accepted"] == str(len(records)) and run is not None
                and run.values["state"] != "running")
    try:
        done = spin_until(executor, monitor_has_all, 60)
        stream, run = latest("bdi_monitor: stream"), latest("bdi_supervisor: run")
    finally:
        executor.shutdown()
        node.destroy_node()
        code, output = stop(process)
    assert done, (len(records), stream, output)
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert stream.values["gaps"] == "0" and stream.values["runs"] == "1"
    assert run.values["state"] == "goal_reached" and run.values["monitor"] == "bdi_monitor"
    if "waiting up to" in output:  # the usual order: the hand-over came first
        assert (output.index("waiting up to") < output.index("'bdi_monitor' is subscribed")
                < output.index("running the supervisor of beer_robot")), output
    assert code == 0, output
    assert output.count("process has finished cleanly") == 3 and "Traceback" not in output, output


def test_runner_flexbe_without_onboard_fails_before_any_process(launch_env):
    """No flexbe_onboard on AMENT_PREFIX_PATH: the launch says so and starts nothing (it used to
    start the synthesis and supervisor nodes, then fail on the include and leave them running)."""
    code, output = run_launch(["mission:=vending", "runner:=flexbe"], launch_env)
    assert code != 0, output
    assert "package 'flexbe_onboard' is not installed" in output, output
    assert "process started" not in output and "Traceback" not in output, output


def test_exit_when_done_ends_the_launch_with_the_run_result(launch_env, tmp_path):
    """vending reaches its goal: exit 0; coffee stopped by a step limit of 1 before it brews:
    the supervisor node exits 3 (a budget: its step limit), the launch 1."""
    code, output = run_launch(["mission:=vending", "exit_when_done:=true",
                               f"output_dir:={tmp_path / 'v'}"], launch_env, timeout=120)
    assert code == 0 and "run ended: goal_reached" in output, output
    short = tmp_path / "coffee_short.yaml"
    short.write_text((ROOT / "config" / "missions" / "coffee.yaml").read_text().replace(
        "../catalogs/", str(ROOT / "config" / "catalogs") + "/").replace(
        "max_steps: 20", "max_steps: 1"))
    code, output = run_launch([f"mission:={short}", "exit_when_done:=true",
                               f"output_dir:={tmp_path / 'c'}"], launch_env, timeout=120)
    assert code != 0 and "run ended: step_limit" in output, output
    assert "exited with code 3 (a budget ran out: synthesis or audit budget, or the run's " \
        "step limit)" in output, output
