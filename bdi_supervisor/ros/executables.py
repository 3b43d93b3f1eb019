"""The entry points of the ROS 2 executables (console scripts in ``lib/bdi_supervisor`` of a
ROS install, where ``launch_ros`` finds them; a pip or wheel install has none of them).

Plain Python: each function imports its node module only when called. Where that import fails
for want of ROS 2 (rclpy, a message package), the executable says so in one ``error:`` line and
exits 2 instead of printing a traceback.
"""

from __future__ import annotations

import importlib
import sys

from bdi_supervisor.common import ExitCode

#: executable → the module whose ``main()`` it runs
NODES = {
    "synthesis_node": "bdi_supervisor.ros.synthesis_node",
    "supervisor_node": "bdi_supervisor.ros.supervisor_node",
    "monitor_node": "bdi_monitor.ros.monitor_node",
    "drone_node": "bdi_supervisor.domains.quadcopter.ros.drone_node",
    "two_rivers_world": "bdi_supervisor.domains.two_rivers.ros.world_node",
    "beer_robot_world": "bdi_supervisor.domains.beer_robot.ros.world_node",
    "pyrobosim_world": "bdi_supervisor.domains.pyrobosim.ros.world_node",
    "synthesis_server": "bdi_supervisor.ros.synthesis_server",
}
#: where a ROS 2 installation is described
HOW = ("source a ROS 2 Jazzy installation (docs/ros2.md); without ROS 2, use the command lines "
       "bdi-supervisor and bdi-monitor")


def start(executable: str) -> int:
    """Run ``executable``'s node; exit 2 with one line where ROS 2 cannot be imported."""
    module_name = NODES[executable]
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing.startswith(("bdi_supervisor", "bdi_monitor")):
            raise  # the project's own module: a bug, not a missing ROS 2
        what = f"'{missing}', which cannot be imported" if missing else f"it: {error}"
        print(f"error: {executable} needs ROS 2 ({what}); {HOW}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return module.main()


def synthesis_node() -> int:
    return start("synthesis_node")


def supervisor_node() -> int:
    return start("supervisor_node")


def monitor_node() -> int:
    return start("monitor_node")


def drone_node() -> int:
    return start("drone_node")


def two_rivers_world() -> int:
    return start("two_rivers_world")


def beer_robot_world() -> int:
    return start("beer_robot_world")


def pyrobosim_world() -> int:
    return start("pyrobosim_world")


def synthesis_server() -> int:
    return start("synthesis_server")
