"""``ros2 launch bdi_supervisor mission.launch.py mission:=quadcopter_pihawk_dropout
runner:=flexbe exit_when_done:=true drone_backend:=rotorpy``: the real launch service, FlexBE
onboard, the synthesis, supervisor and monitor nodes and the drone node on RotorPy, nothing built
beforehand. The dropout mission ends as designed, ``aborted`` (exit 1), with the drone's calls
of the failure branch in order. (The three missions on the missions' own kinematic backend,
held record by record against the embedded executor, are cases of test_ros_flexbe_missions.py.)

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
#: the drone's calls of the dropout run: the nominal flight up to segment 3, then the retreat's
#: two go-to legs, the landing and disarming
CALLS = ["arm", "takeoff", *["plan", "upload", "execute"] * 3, "go_to", "go_to", "land",
         "disarm"]


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


@pytest.mark.simulation
def test_the_dropout_aborts_on_rotorpy_under_flexbe(ros_env, tmp_path):
    pytest.importorskip("rotorpy", reason="RotorPy not installed (pip install '.[rotorpy]')")
    code, output = launch("quadcopter_pihawk_dropout", ros_env, tmp_path,
                          "drone_backend:=rotorpy")
    assert code == 1, output[-4000:]
    assert re.search(r"BEStatus FINISHED \(behavior \d+\) \['aborted'\]", output), output
    assert "run ended: failed" in output, output
    made = re.findall(r"\[drone\]: (arm|disarm|takeoff|plan|upload|execute|go_to|land): ",
                      output)
    assert made == CALLS, output
    assert "Traceback" not in output and "never retrieved" not in output, output
    assert "'backend': 'rotorpy'" in output
    assert "execute: pose stale" in output and "(code 2)" in output
