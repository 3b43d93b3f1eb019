"""The PyRoboSim missions under the real FlexBE engine, against the world node on real rclpy.

The world node (``bdi_supervisor.domains.pyrobosim.ros.world_node``) runs as its own process and
serves the mission's world with its seeded failures; the behavior the synthesis node realizes for
the mission is imported and run in this process the way ``flexbe_onboard`` runs it (as
test_realize_flexbe_runtime.py does), its states being the catalog's: the project's
``bdi_flexbe_states.pyrobosim`` states.

The ``_faults`` missions exercise every state and every kind of seeded failure (all four run
under the launch in test_ros_flexbe_missions.py). The oracle is the embedded executor's run of
the same mission (same seed): the world must serve exactly the actions the embedded run
performed, with the same statuses and the same injected failures, FlexBE must take the
embedded run's states and outcomes (each failure, its ``log_failed`` recovery, the retry) and end
with the same container outcome.

Needs rclpy, FlexBE (flexbe_core, flexbe_states), pyrobosim_msgs and pyrobosim_ros
(../shared/ros-stack and its domains/) and PyRoboSim.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.ros, pytest.mark.simulation]
for _module, _why in (("rclpy", "real rclpy not installed (pip install -e '.[ros]')"),
                      ("flexbe_core", "FlexBE not installed (source ../shared/ros-stack/env.sh)"),
                      ("flexbe_states.log_state", "FlexBE's stock states not installed"),
                      ("pyrobosim", "PyRoboSim not installed (pip install -e '.[sim]')"),
                      ("pyrobosim_ros.ros_interface", "pyrobosim_ros not installed (source "
                                                      "../shared/ros-stack/domains/env.sh)")):
    pytest.importorskip(_module, reason=_why)

from flexbe_support.engine import import_behavior, onboard_node, run_behavior  # noqa: E402
from pyrobosim_msgs.action import ExecuteTaskAction  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from support.paths import CATALOGS  # noqa: E402
from support.ros_helpers import next_domain, start_node, stop  # noqa: E402
from support.supervisors import prepared  # noqa: E402

from bdi_supervisor.realize.stage import behavior_name, mission_outcomes, realize  # noqa: E402
from bdi_supervisor.runtime.session import RunOptions, run_supervisor  # noqa: E402

WORLD_NODE = "bdi_supervisor.domains.pyrobosim.ros.world_node"


def embedded_actions(name: str) -> tuple:
    """The embedded run of mission ``name`` and the PyRoboSim actions it ran (action, target,
    status, injected)."""
    mission, prep = prepared(name)
    result = run_supervisor(mission, prep.machine, prep.reduced, options=RunOptions())
    actions = []
    for step in result.steps:
        detail = step.outcome.detail or {}
        if "action" in detail:
            target = step.parameters.get("target_location") or step.parameters.get("object", "")
            actions.append((detail["action"], str(target), detail["status"], step.outcome.forced))
    return result, actions


@pytest.fixture
def node():
    """A node as onboard sets it up, on the test's own ROS domain."""
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ["ROS_DOMAIN_ID"] = str(next_domain())
    with onboard_node("bdi_pyrobosim_flexbe_test") as pair:
        yield pair


def initialize_flexbe(ros_node) -> None:
    """flexbe_core on ``ros_node``, as a behavior's constructor does it (FlexBE 3.x and 4.x,
    else 2.x's name)."""
    try:
        from flexbe_core import initialize_flexbe_core
    except ImportError:
        from flexbe_core import set_node as initialize_flexbe_core
    initialize_flexbe_core(ros_node)


def start_world(name: str, log: Path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return start_node(WORLD_NODE, ["-p", f"mission:={name}", "-p", f"action_log:={log}"], env)


def wait_for_world(ros_node, executor, timeout: float = 60.0) -> bool:
    client = ActionClient(ros_node, ExecuteTaskAction, "/execute_action")
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if client.server_is_ready():
                return True
            executor.spin_once(timeout_sec=0.1)
        return False
    finally:
        client.destroy()


@pytest.mark.parametrize("name", ["logistics_p0_faults", "logistics_p1_faults"])
def test_flexbe_runs_the_mission_as_the_embedded_executor(name, node, tmp_path):
    ros_node, executor = node
    embedded, expected = embedded_actions(name)
    mission, prep = prepared(name)
    realization = realize(prep.reduced, mission.catalog, behavior=behavior_name(mission.name),
                          out_dir=tmp_path / "behavior", sm_outcomes=mission_outcomes(mission))
    world = start_world(name, tmp_path / "actions.jsonl")
    try:
        assert wait_for_world(ros_node, executor), "the world node did not serve /execute_action"
        behavior = import_behavior(realization)(ros_node)
        run = run_behavior(behavior, executor, limit=120.0)
    finally:
        code, output = stop(world)
    served = [json.loads(line) for line in (tmp_path / "actions.jsonl").read_text().splitlines()]
    got = [(a["action"], a["target"], a["status"], a["injected"] is not None) for a in served]
    assert code == 0, output
    assert embedded.status == "goal_reached" and run.outcome == embedded.sm_outcome, output[-3000:]
    assert got == expected
    # FlexBE took the embedded run's states and outcomes: every failure injected, then its
    # log_failed recovery and the retry
    assert run.trace == [(s.state, s.outcome.flexbe_outcome) for s in embedded.steps]
    failures = [a for a in served if a["status"] != "SUCCESS"]
    assert failures and all(a["injected"] for a in failures)
    assert len(failures) == len(embedded.recoveries())
    print(f"{name}: {run.outcome}, {len(run.trace)} steps, {len(failures)} failures injected and "
          f"recovered, {run.seconds:.1f} s")


@pytest.mark.parametrize("catalog", ["logistics_p0", "logistics_p1"])
def test_the_catalog_states_take_its_parameters_and_have_its_outcomes(catalog, node):
    """Every non-stock state of the catalog is built with the capability's parameters (the
    realized behavior passes exactly those) and has the capability's FlexBE outcomes, in order
    (FlexBE 4.x reports outcomes by index)."""
    from bdi_supervisor.catalog.interfaces import resolve_interface, stock_state
    from bdi_supervisor.catalog.loader import load_catalog

    initialize_flexbe(node[0])
    loaded = load_catalog(CATALOGS / f"{catalog}.yaml")
    checked = set()
    for cap in loaded.capabilities.values():
        if stock_state(cap.interface) is not None:
            continue
        module, cls = resolve_interface(cap.interface)
        state_class = getattr(importlib.import_module(module), cls)
        arguments = {p.name: "x" if p.variable else p.value for p in cap.parameters}
        signature = inspect.signature(state_class.__init__)
        required = {n for n, p in list(signature.parameters.items())[1:]
                    if p.default is inspect.Parameter.empty}
        assert required <= set(arguments) <= set(signature.parameters), cap.name
        state = state_class(**arguments)
        assert list(state.outcomes) == list(cap.flexbe_outcomes), cap.name
        checked.add(cap.interface)
    assert len(checked) == (4 if catalog == "logistics_p1" else 3), checked


def _poll(task, executor, limit: float = 10.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        outcome = task.outcome()
        if outcome is not None:
            return outcome
        executor.spin_once(timeout_sec=0.02)
    return None


def _world_stub(ros_node, topic: str, status: int | None):
    """An ExecuteTaskAction server answering every goal with ``status`` (``None``: rejecting
    every goal, so no result ever comes)."""
    from rclpy.action import ActionServer, GoalResponse

    def execute(goal_handle):
        goal_handle.succeed()
        result = ExecuteTaskAction.Result()
        result.execution_result.status = status
        return result

    return ActionServer(ros_node, ExecuteTaskAction, topic, execute_callback=execute,
                        goal_callback=lambda goal: (GoalResponse.REJECT if status is None
                                                    else GoalResponse.ACCEPT))


#: what the navigate state reports per ExecutionResult status (the catalog's five outcomes)
NAVIGATE_BY_STATUS = {0: "done", 1: "planning_failed", 2: "planning_failed", 3: "motion_failed",
                      4: "motion_failed", 5: "motion_failed", 6: "canceled", -1: "motion_failed"}


@pytest.mark.parametrize("status", sorted(NAVIGATE_BY_STATUS))
def test_every_status_of_the_world_is_an_outcome(status, node):
    """Each PyRoboSim status becomes the navigate state's outcome (the workshop's state raises
    TypeError on EXECUTION_FAILURE and CANCELED) and done/failed for the other actions."""
    from bdi_flexbe_states.pyrobosim.execute_task import ExecuteTask

    ros_node, executor = node
    initialize_flexbe(ros_node)
    topic = f"/world_stub_{status + 1}"
    server = _world_stub(ros_node, topic, status)
    try:
        for action, expected in (("navigate", NAVIGATE_BY_STATUS[status]),
                                 ("pick", "done" if status == 0 else "failed")):
            task = ExecuteTask(action, robot_name="robot", action_topic=topic,
                               server_timeout=10.0, timeout=0.0, timeout_outcome="timeout",
                               unsent_outcome="unsent")
            task.send(ros_node, object="bread0")
            assert _poll(task, executor) == expected, action
    finally:
        server.destroy()


def test_no_server_and_no_result_end_in_their_outcomes(node):
    from bdi_flexbe_states.pyrobosim.execute_task import ExecuteTask

    ros_node, executor = node
    initialize_flexbe(ros_node)
    absent = ExecuteTask("navigate", robot_name="robot", action_topic="/no_world_here",
                         server_timeout=0.5, timeout=0.0, timeout_outcome="timeout",
                         unsent_outcome="planning_failed")
    start = time.monotonic()
    absent.send(ros_node, target_location="table")
    assert _poll(absent, executor) == "planning_failed"
    assert 0.5 <= time.monotonic() - start < 5.0
    server = _world_stub(ros_node, "/rejecting_world", None)
    try:
        silent = ExecuteTask("pick", robot_name="robot", action_topic="/rejecting_world",
                             server_timeout=10.0, timeout=0.5, timeout_outcome="failed",
                             unsent_outcome="failed")
        silent.send(ros_node, object="bread0")
        assert _poll(silent, executor) == "failed"
        silent.cancel()  # nothing runs: canceling is harmless
        executor.spin_once(timeout_sec=0.05)
    finally:
        server.destroy()
