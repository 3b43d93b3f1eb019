"""``ros2 launch bdi_supervisor mission.launch.py mission:=<quadcopter mission> runner:=flexbe
exit_when_done:=true``: the real launch service, FlexBE onboard, the synthesis, supervisor and
monitor nodes and the drone node, nothing built beforehand. Each mission ends as designed: the
two nominal flights ``finished`` (exit 0), the PiHawk's dropout ``aborted`` (exit 1) after the
failure branch, also on RotorPy.

Needs Jazzy's launch/launch_ros and FlexBE (``../shared/ros-stack/env.sh``) and
flexible_drones_msgs (``../shared/ros-stack/domains/env.sh``); skips naming them otherwise.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest
from support.paths import ROOT
from support.ros_stack import DOMAINS_MISSING, STACK_MISSING

pytestmark = pytest.mark.ros
pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
for _module in ("launch", "launch_ros", "flexbe_onboard.start_behavior", "flexbe_states.log_state"):
    if importlib.util.find_spec(_module.split(".")[0]) is None:
        pytest.skip(STACK_MISSING.format(what=_module), allow_module_level=True)
pytest.importorskip("flexible_drones_msgs.action",
                    reason=DOMAINS_MISSING.format(what="flexible_drones_msgs"))

from support.ros_helpers import ament_prefix, start_launch, stop  # noqa: E402

from bdi_supervisor.ros import launch_plan  # noqa: E402

MODULES = {"synthesis_node": "bdi_supervisor.ros.synthesis_node",
           "supervisor_node": "bdi_supervisor.ros.supervisor_node",
           "monitor_node": "bdi_monitor.ros.monitor_node",
           "drone_node": "bdi_supervisor.domains.quadcopter.ros.drone_node"}
#: mission -> (exit code, container outcome, run state, the drone's calls in order)
NOMINAL = ["arm", "takeoff", *["plan", "upload", "execute"] * 5, "land", "disarm"]
DESIGNED = {
    "quadcopter_crazyflie": (0, "finished", "goal_reached", NOMINAL),
    "quadcopter_pihawk": (0, "finished", "goal_reached", NOMINAL),
    "quadcopter_pihawk_dropout": (1, "aborted", "failed",
                                  [*NOMINAL[:11], "go_to", "go_to", "land", "disarm"]),
}


def launch(mission: str, ros_env: dict, tmp_path, *args: str) -> tuple[int, str]:
    nodes = ament_prefix(tmp_path / "prefix", launch_plan.PACKAGE, MODULES)
    # FlexBE's behavior library reads the package.xml of every package on AMENT_PREFIX_PATH
    shutil.copy(ROOT / "package.xml", nodes / "share" / launch_plan.PACKAGE / "package.xml")
    env = {**ros_env, "ROS_LOG_DIR": str(tmp_path / "log"),
           "AMENT_PREFIX_PATH": os.pathsep.join([str(nodes), ros_env.get("AMENT_PREFIX_PATH",
                                                                         sys.prefix)])}
    process = start_launch(ROOT / "launch" / "mission.launch.py", [
        f"mission:={mission}", "runner:=flexbe", "exit_when_done:=true", *args], env)
    try:
        output, _ = process.communicate(timeout=240)
        return process.returncode, output
    except subprocess.TimeoutExpired:
        return stop(process)


def check(mission: str, code: int, output: str) -> None:
    exit_code, outcome, state, calls = DESIGNED[mission]
    assert code == exit_code, output[-4000:]
    assert re.search(rf"BEStatus FINISHED \(behavior \d+\) \['{outcome}'\]", output), output
    assert f"run ended: {state}" in output, output
    made = re.findall(r"\[drone\]: (arm|disarm|takeoff|plan|upload|execute|go_to|land): ",
                      output)
    assert made == calls, output
    assert "Traceback" not in output and "never retrieved" not in output, output


@pytest.mark.parametrize("mission", sorted(DESIGNED))
def test_each_quadcopter_mission_ends_as_designed_under_flexbe(mission, ros_env, tmp_path):
    code, output = launch(mission, ros_env, tmp_path)
    check(mission, code, output)
    if mission.endswith("dropout"):
        assert "execute: pose stale" in output and "(code 2)" in output


@pytest.mark.simulation
def test_the_dropout_aborts_on_rotorpy_under_flexbe(ros_env, tmp_path):
    pytest.importorskip("rotorpy", reason="RotorPy not installed (pip install '.[rotorpy]')")
    code, output = launch("quadcopter_pihawk_dropout", ros_env, tmp_path,
                          "drone_backend:=rotorpy")
    check("quadcopter_pihawk_dropout", code, output)
    assert "'backend': 'rotorpy'" in output
