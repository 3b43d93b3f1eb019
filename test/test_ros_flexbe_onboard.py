"""``runner:=flexbe`` against the real FlexBE onboard: the realized behavior, installed where
FlexBE's behavior library finds it, is selected by the supervisor node and runs to its container
outcome; ``exit_when_done`` then ends the process (and the launch) with the run's result.

Needs FlexBE's flexbe_msgs, flexbe_core, flexbe_onboard and flexbe_states (not on PyPI; CI
sources ../shared/ros-stack/env.sh: FlexBE 3.0.7, and 2.3.3 or 4.0.3 with ``ROS_STACK_FLEXBE``)
and, for the launch test, Jazzy's ``launch``/``launch_ros`` (the same stack): the tests skip,
saying so, where they are absent (test_ros_flexbe_run.py covers the hand-shake and reports as
plain functions everywhere). See docs/flexbe.md.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

pytestmark = pytest.mark.ros
pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
for module in ("flexbe_msgs.msg", "flexbe_onboard.start_behavior", "flexbe_states.log_state"):
    pytest.importorskip(module, reason=STACK_MISSING.format(what=f"FlexBE ({module})"))

from support.ros_helpers import ament_prefix, start_launch, start_node, stop  # noqa: E402

from bdi_supervisor.ros import launch_plan  # noqa: E402
from bdi_supervisor.ros.synthesis_node import run_pipeline  # noqa: E402

VENDING = ROOT / "config" / "missions" / "vending.yaml"
MODULES = {"synthesis_node": "bdi_supervisor.ros.synthesis_node",
           "supervisor_node": "bdi_supervisor.ros.supervisor_node",
           "monitor_node": "bdi_monitor.ros.monitor_node"}


def install_behavior(package_dir: Path, prefix: Path) -> Path:
    """What ``colcon build`` installs of a generated behavior package, in an ament prefix: the
    index marker, ``share/<pkg>/package.xml``, ``lib/<pkg>/manifest/*.xml`` and the module."""
    name = (package_dir / "resource").iterdir().__next__().name
    marker = prefix / "share" / "ament_index" / "resource_index" / "packages" / name
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    (prefix / "share" / name).mkdir(parents=True, exist_ok=True)
    shutil.copy(package_dir / "package.xml", prefix / "share" / name / "package.xml")
    shutil.copytree(package_dir / "manifest", prefix / "lib" / name / "manifest")
    shutil.copytree(package_dir / name, prefix / "python" / name)
    return prefix


@pytest.fixture
def vending(tmp_path):
    """The vending mission's run folder (pipeline as the synthesis node runs it) and its
    behavior package installed in an ament prefix."""
    record = run_pipeline(VENDING, tmp_path / "run")
    assert record["audit"] == "PASS" and record["behavior"], record
    return tmp_path / "run", install_behavior(tmp_path / "run" / "behavior",
                                              tmp_path / "behaviors")


def flexbe_env(env: dict[str, str], behaviors: Path, *prefixes: Path) -> dict[str, str]:
    paths = [str(p) for p in (*prefixes, behaviors)]
    ament = os.pathsep.join([*paths, env.get("AMENT_PREFIX_PATH", sys.prefix)])
    return {**env, "AMENT_PREFIX_PATH": ament,
            "PYTHONPATH": os.pathsep.join([str(behaviors / "python"),
                                           env.get("PYTHONPATH", "")])}


def start_onboard(env: dict[str, str]) -> subprocess.Popen:
    return start_node("flexbe_onboard.start_behavior", ["-r", "__node:=behavior"], env)


def test_the_supervisor_waits_for_onboard_and_the_behavior_finishes(ros_env, vending, tmp_path):
    """Onboard starts 3 s after the supervisor node: the selection is sent only once onboard
    subscribes, STARTED acknowledges it, FINISHED ``finished`` ends the run: exit 0."""
    folder, behaviors = vending
    env = flexbe_env({**ros_env, "ROS_LOG_DIR": str(tmp_path / "log")}, behaviors)
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", "mission:=vending", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", "exit_when_done:=true", "-p", "flexbe_timeout:=60.0"], env)
    time.sleep(3)
    onboard = start_onboard(env)
    with contextlib.suppress(subprocess.TimeoutExpired):
        supervisor.wait(timeout=60)
    code, output = stop(supervisor)
    stop(onboard)
    assert code == 0, output
    assert output.index("sent BehaviorSelection 1") < output.index("acknowledged: STARTED")
    assert "BEStatus FINISHED" in output and "run ended: goal_reached" in output, output


def test_no_onboard_ends_the_run_with_a_clear_error(ros_env, vending):
    folder, behaviors = vending
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", "mission:=vending", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", "exit_when_done:=true", "-p", "flexbe_timeout:=2.0"],
        flexbe_env(ros_env, behaviors))
    with contextlib.suppress(subprocess.TimeoutExpired):
        supervisor.wait(timeout=30)
    code, output = stop(supervisor)
    assert code == 1, output
    assert "no subscriber on flexbe/start_behavior within 2 s" in output, output


def test_ros2_launch_runner_flexbe_runs_to_finished(ros_env, vending, tmp_path):
    """``ros2 launch bdi_supervisor mission.launch.py mission:=vending runner:=flexbe
    exit_when_done:=true``: onboard's launch file is included from where FlexBE installs it, the
    launch ends by itself with 0 once FlexBE finished the behavior."""
    if importlib.util.find_spec("launch_ros") is None or importlib.util.find_spec("launch") is None:
        pytest.skip(STACK_MISSING.format(what="ROS 2 launch/launch_ros"))
    _, behaviors = vending
    nodes = ament_prefix(tmp_path / "prefix", launch_plan.PACKAGE, MODULES)
    # FlexBE's behavior library reads the package.xml of every package on AMENT_PREFIX_PATH
    shutil.copy(ROOT / "package.xml", nodes / "share" / launch_plan.PACKAGE / "package.xml")
    env = flexbe_env({**ros_env, "ROS_LOG_DIR": str(tmp_path / "log")}, behaviors, nodes)
    process = start_launch(ROOT / "launch" / "mission.launch.py", [
        "mission:=vending", "runner:=flexbe", "exit_when_done:=true"], env)
    try:
        output, _ = process.communicate(timeout=90)
        code = process.returncode
    except subprocess.TimeoutExpired:
        code, output = stop(process)
    assert code == 0, output
    assert "BEStatus FINISHED" in output and "run ended: goal_reached" in output, output
    assert "Traceback" not in output, output
    runs = list((tmp_path / "log" / "bdi_supervisor").glob("vending_*/attempt_1/reduced.json"))
    assert len(runs) == 1, output  # the run folder under the ROS log folder


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
