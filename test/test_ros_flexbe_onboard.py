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

from bdi_supervisor.realize.install import PrefixPaths, prepare_prefix  # noqa: E402
from bdi_supervisor.ros import launch_plan  # noqa: E402
from bdi_supervisor.ros.synthesis_node import run_pipeline  # noqa: E402

VENDING = ROOT / "config" / "missions" / "vending.yaml"
MODULES = {"synthesis_node": "bdi_supervisor.ros.synthesis_node",
           "supervisor_node": "bdi_supervisor.ros.supervisor_node",
           "monitor_node": "bdi_monitor.ros.monitor_node"}


@pytest.fixture
def vending(tmp_path):
    """The vending mission's run folder (pipeline as the synthesis node runs it) and an empty
    run-time prefix, prepared as the launch prepares it before onboard starts."""
    record = run_pipeline(VENDING, tmp_path / "run")
    assert record["audit"] == "PASS" and record["behavior"], record
    return tmp_path / "run", prepare_prefix(tmp_path / "run" / launch_plan.FLEXBE_PREFIX)


def flexbe_env(env: dict[str, str], prefix: PrefixPaths, *ament: Path) -> dict[str, str]:
    """``env`` with the prefix (and other ament prefixes) first on onboard's paths."""
    paths = [str(p) for p in (prefix.ament_prefix, *ament)]
    return {**env,
            "AMENT_PREFIX_PATH": os.pathsep.join([*paths, env.get("AMENT_PREFIX_PATH",
                                                                  sys.prefix)]),
            "PYTHONPATH": os.pathsep.join([str(prefix.python_path), env.get("PYTHONPATH", "")])}


def start_onboard(env: dict[str, str]) -> subprocess.Popen:
    return start_node("flexbe_onboard.start_behavior", ["-r", "__node:=behavior"], env)


def test_the_supervisor_waits_for_onboard_and_the_behavior_finishes(ros_env, vending, tmp_path):
    """Onboard starts 3 s after the supervisor node: the selection is sent only once onboard
    subscribes, STARTED acknowledges it, FINISHED ``finished`` ends the run: exit 0. The
    behavior was installed into the prefix by the supervisor node, after onboard's start."""
    folder, prefix = vending
    env = flexbe_env({**ros_env, "ROS_LOG_DIR": str(tmp_path / "log")}, prefix)
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", "mission:=vending", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", f"flexbe_prefix:={prefix.root}",
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
    assert f"installed vending_flexbe_behaviors.vending_sm into {prefix.root}" in output


def test_no_onboard_ends_the_run_with_a_clear_error(ros_env, vending):
    folder, prefix = vending
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", "mission:=vending", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", f"flexbe_prefix:={prefix.root}",
        "-p", "exit_when_done:=true", "-p", "flexbe_timeout:=2.0"],
        flexbe_env(ros_env, prefix))
    with contextlib.suppress(subprocess.TimeoutExpired):
        supervisor.wait(timeout=30)
    code, output = stop(supervisor)
    assert code == 1, output
    assert "no subscriber on flexbe/start_behavior within 2 s" in output, output


def test_ros2_launch_runner_flexbe_runs_to_finished(ros_env, tmp_path):
    """``ros2 launch bdi_supervisor mission.launch.py mission:=vending runner:=flexbe
    exit_when_done:=true`` with nothing built: onboard's launch file is included from where
    FlexBE installs it, the behavior synthesized at launch is installed into the run folder's
    prefix and run, the launch ends by itself with 0 once FlexBE finished the behavior."""
    if importlib.util.find_spec("launch_ros") is None or importlib.util.find_spec("launch") is None:
        pytest.skip(STACK_MISSING.format(what="ROS 2 launch/launch_ros"))
    nodes = ament_prefix(tmp_path / "prefix", launch_plan.PACKAGE, MODULES)
    # FlexBE's behavior library reads the package.xml of every package on AMENT_PREFIX_PATH
    shutil.copy(ROOT / "package.xml", nodes / "share" / launch_plan.PACKAGE / "package.xml")
    env = {**ros_env, "ROS_LOG_DIR": str(tmp_path / "log"),
           "AMENT_PREFIX_PATH": os.pathsep.join([str(nodes), ros_env.get("AMENT_PREFIX_PATH",
                                                                         sys.prefix)])}
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
    installed = runs[0].parent.parent / launch_plan.FLEXBE_PREFIX / "current" / "python"
    assert (installed / "vending_flexbe_behaviors" / "vending_sm.py").is_file()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
