"""No process of ``mission.launch.py`` outlives the launch that started it.

``ros2 launch`` stops its nodes while it shuts down, but only those it still waits for: a launch
that is killed leaves them running, and so does a launch whose event loop lost them (an
exception raised while the launch service visits the actions that start them: it forgets their
processes and exits at once). Each node of this package watches its launch
(:mod:`bdi_supervisor.ros.parent`) and ends by itself; FlexBE onboard, started by its own launch
file, runs under the module's ``launch-prefix`` and is stopped by the kernel. Two ways to lose
the launch, both deterministic:

- ``test/data/ros/lost_nodes.launch.py`` includes ``mission.launch.py`` and then raises in the
  same visit: the launch exits 1 while its nodes are starting (before this change they ran on,
  their parent init, until killed);
- the launch process is SIGKILLed once its nodes run.

The launch runs in its own process group (``start_launch``); what is left in that group after
the launch ended is the leftovers, checked here, then killed.

Linux only (``/proc``, the kernel's parent-death signal); needs the Jazzy launch packages.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

pytestmark = pytest.mark.ros
pytest.importorskip("rclpy", reason="real rclpy not installed (pip install -e '.[ros]')")
for _module in ("launch", "launch_ros.actions"):
    pytest.importorskip(_module, reason=STACK_MISSING.format(what=_module))
if not Path("/proc/self/stat").is_file():
    pytest.skip("needs /proc (Linux)", allow_module_level=True)

from support.ros_helpers import (  # noqa: E402
    TimedOutput,
    ament_prefix,
    node_modules,
    start_launch,
    start_node,
    stop,
)

from bdi_supervisor.ros import launch_plan  # noqa: E402

LOST = ROOT / "test" / "data" / "ros" / "lost_nodes.launch.py"
MISSION_LAUNCH = ROOT / "launch" / "mission.launch.py"
#: seconds within which a node whose launch is gone must have ended (the kernel's SIGTERM, or
#: the start-up check, then the node's clean shutdown; generous for a loaded machine)
ENDS_WITHIN = 20.0


@pytest.fixture
def launch_env(ros_env, tmp_path):
    nodes = ament_prefix(tmp_path / "prefix", launch_plan.PACKAGE, node_modules())
    shutil.copy(ROOT / "package.xml", nodes / "share" / launch_plan.PACKAGE / "package.xml")
    return {**ros_env, "ROS_LOG_DIR": str(tmp_path / "log"),
            "AMENT_PREFIX_PATH": os.pathsep.join([str(nodes), ros_env.get("AMENT_PREFIX_PATH",
                                                                          sys.prefix)])}


def group(pgid: int) -> dict[int, str]:
    """The live processes of process group ``pgid`` (pid → command line); zombies left out."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[2]) == pgid and fields[0] != "Z":
            found[int(entry.name)] = cmdline
    return found


def ours(processes: dict[int, str]) -> dict[int, str]:
    """The nodes of this package among ``processes`` (their executables in its lib folder)."""
    return {pid: cmd for pid, cmd in processes.items() if f"/lib/{launch_plan.PACKAGE}/" in cmd}


def left_after(pgid: int, seconds: float) -> dict[int, str]:
    """The processes still in group ``pgid`` once ``seconds`` passed (or none is)."""
    deadline = time.monotonic() + seconds
    while group(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
    return group(pgid)


def test_nodes_a_launch_lost_while_starting_them_end_by_themselves(launch_env):
    """The launch forgets the nodes it was starting and exits 1 at once: the synthesis,
    supervisor and monitor nodes (beer_robot has properties) end by themselves."""
    launch = TimedOutput(start_launch(LOST, ["mission:=beer_robot", "runner:=embedded"],
                                      launch_env))
    try:
        code, _ = launch.wait_exit(60)
        started = ours(group(launch.process.pid))
        left = left_after(launch.process.pid, ENDS_WITHIN)
    finally:
        _, output = launch.stop()
    assert code == 1 and "an error while the launch starts its nodes" in output, output
    assert "process started" not in output, output  # the launch never knew they ran
    names = {cmd.split(f"/lib/{launch_plan.PACKAGE}/")[1].split()[0] for cmd in started.values()}
    assert names == {"synthesis_node", "supervisor_node", "monitor_node"}, started
    assert not left, left


def test_killing_the_launch_ends_its_nodes(launch_env):
    """``kill -9`` of ``ros2 launch`` (``runner:=flexbe``: the river's world node too, and
    FlexBE onboard) while the behavior runs: every process of the launch ends by itself."""
    launch = TimedOutput(start_launch(MISSION_LAUNCH, ["mission:=two_rivers",
                                                       "runner:=flexbe"], launch_env))
    try:
        ready = launch.wait_for("[two_rivers_world]: two_rivers world of mission", 90)
        running = launch.wait_for("acknowledged", 90)
        before = group(launch.process.pid)
        os.kill(launch.process.pid, signal.SIGKILL)
        launch.wait_exit(10)
        left = left_after(launch.process.pid, ENDS_WITHIN)
    finally:
        _, output = launch.stop()
    assert ready is not None and running is not None, output
    names = {cmd.split(f"/lib/{launch_plan.PACKAGE}/")[1].split()[0]
             for cmd in ours(before).values()}
    assert names == {"synthesis_node", "supervisor_node", "two_rivers_world"}, before
    assert any("start_behavior" in cmd for cmd in before.values()), before
    assert not left, left


@pytest.mark.parametrize(("value", "code", "says"), [
    ("gone", 0, "the launch (pid {pid}) that started this node is gone: not starting"),
    ("abc", 2, "error: two_rivers_world: environment variable BDI_LAUNCH_PID='abc': expected "
               "the process id"),
])
def test_a_node_whose_launch_is_gone_does_not_start(ros_env, value, code, says):
    """A node started after its launch ended (the launch's process id names nothing) ends at
    once, before it joins ROS; a value that is no process id is one ``error:`` line, exit 2."""
    import subprocess

    from bdi_supervisor.ros.parent import LAUNCH_PID

    if value == "gone":
        ended = subprocess.Popen([sys.executable, "-c", "pass"])
        ended.wait()
        value = str(ended.pid)
    env = {**ros_env, LAUNCH_PID: value}
    node = start_node("bdi_supervisor.domains.two_rivers.ros.world_node",
                      ["-p", "mission:=two_rivers"], env)
    try:
        node.wait(timeout=60)
    finally:
        returned, output = stop(node)
    assert returned == code, output
    assert says.format(pid=value) in output, output
    assert "Traceback" not in output and "two_rivers world of mission" not in output, output
