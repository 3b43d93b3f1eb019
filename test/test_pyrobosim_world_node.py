"""The PyRoboSim world node (``pyrobosim_world``) on real rclpy: it serves the mission's
world on ``/execute_action`` with the mission's seeded failures, logs each action, ends with 0 on
SIGINT, and refuses a bad start with one ``error:`` line and exit 2.

Needs rclpy, pyrobosim_msgs and pyrobosim_ros (../shared/ros-stack/domains/env.sh) and PyRoboSim.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time

import pytest

pytestmark = [pytest.mark.ros, pytest.mark.simulation]
pytest.importorskip("rclpy", reason="real rclpy not installed (pip install -e '.[ros]')")
pytest.importorskip("pyrobosim", reason="PyRoboSim not installed (pip install -e '.[sim]')")
pytest.importorskip("pyrobosim_ros.ros_interface", reason="pyrobosim_ros not installed "
                    "(source ../shared/ros-stack/domains/env.sh)")

import rclpy  # noqa: E402
from pyrobosim_msgs.action import ExecuteTaskAction  # noqa: E402
from pyrobosim_msgs.msg import ExecutionResult, TaskAction  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from support.ros_helpers import spin_until, start_node, stop  # noqa: E402

from bdi_supervisor.domains.pyrobosim.outcomes import status_name  # noqa: E402

WORLD_NODE = "bdi_supervisor.domains.pyrobosim.ros.world_node"


def run_goal(client, executor, **fields) -> int:
    """Send one task action; its ExecutionResult status."""
    goal = ExecuteTaskAction.Goal(action=TaskAction(robot="robot", **fields))
    sent = client.send_goal_async(goal)
    assert spin_until(executor, sent.done, 30), fields
    result = sent.result().get_result_async()
    assert spin_until(executor, result.done, 30), fields
    return result.result().result.execution_result.status


def until_success(client, executor, **fields) -> list[int]:
    """Repeat a task action until it succeeds (at most 8 times, as a supervisor retries)."""
    statuses = [run_goal(client, executor, **fields)]
    while statuses[-1] != ExecutionResult.SUCCESS and len(statuses) < 8:
        statuses.append(run_goal(client, executor, **fields))
    return statuses


def test_the_world_serves_the_missions_failures_and_logs_them(ros_env, rclpy_context, tmp_path):
    """logistics_p1_faults: the fridge closed, navigation and pick failing by execution options
    (first call and seeded draws), opening by a lock; retries succeed as in the embedded run."""
    log = tmp_path / "actions.jsonl"
    world = start_node(WORLD_NODE, ["-p", "mission:=logistics_p1_faults",
                                    "-p", f"action_log:={log}"], ros_env)
    node = rclpy.create_node("world_client", context=rclpy_context)
    executor = SingleThreadedExecutor(context=rclpy_context)
    executor.add_node(node)
    client = ActionClient(node, ExecuteTaskAction, "/execute_action")
    try:
        assert spin_until(executor, client.server_is_ready, 60), "no /execute_action"
        statuses = (until_success(client, executor, type="navigate", target_location="soda0")
                    + until_success(client, executor, type="open")
                    + until_success(client, executor, type="pick", object="soda0"))
    finally:
        client.destroy()
        executor.shutdown()
        node.destroy_node()
        code, output = stop(world)
    assert code == 0, output
    served = [json.loads(line) for line in log.read_text().splitlines()]
    assert [a["status"] for a in served] == [status_name(s) for s in statuses]
    assert [a["action"] for a in served if a["status"] == "SUCCESS"] == ["navigate", "open",
                                                                        "pick"]
    failing = {"options": "EXECUTION_FAILURE", "lock": "PRECONDITION_FAILURE"}
    assert all(a["status"] == ("SUCCESS" if a["injected"] is None else failing[a["injected"]])
               for a in served), served
    firsts = {a["action"]: a["injected"] for a in reversed(served)}  # calls: [1] fail each
    assert firsts == {"navigate": "options", "open": "lock", "pick": "options"}
    assert "serving the world of logistics_p1_faults (seed 1" in output
    assert "open: PRECONDITION_FAILURE [injected: lock] (Location: fridge is locked.)" in output


@pytest.mark.parametrize("arguments, message", [
    (["-p", "mission:=coffee"], "runs no PyRoboSim world"),
    (["-p", "mission:=no_such_mission"], "parameter 'mission'"),
    ([], "parameter 'mission'"),
    (["-p", "mission:=logistics_p0", "-p", "action_log:=/proc/no/such/file"],
     "parameter 'action_log'"),
])
def test_a_bad_start_is_one_error_line_and_exit_2(ros_env, arguments, message):
    world = start_node(WORLD_NODE, arguments, ros_env)
    with contextlib.suppress(subprocess.TimeoutExpired):
        world.wait(timeout=60)
    code, output = stop(world)
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert code == 2, output
    assert len(errors) == 1 and message in errors[0], output
    assert errors[0].startswith("error: pyrobosim_world: ") and "Traceback" not in output


def test_sigint_right_after_start_ends_with_0(ros_env):
    world = start_node(WORLD_NODE, ["-p", "mission:=logistics_p0"], ros_env)
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = world.stdout.readline()
        lines.append(line)
        if "PyRoboSim ROS node ready" in line or not line:
            break
    code, output = stop(world)
    assert code == 0, "".join(lines) + output
