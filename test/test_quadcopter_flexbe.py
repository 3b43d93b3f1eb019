"""The quadcopter missions flown by FlexBE: the realized behaviors run under the real flexbe_core
with the project's drone states (``bdi_flexbe_states.quadcopter``) against ``drone_node`` (real
rclpy, its own process) on the simulated course.

Each behavior runs the way ``flexbe_onboard`` runs it (the node on a SingleThreadedExecutor, the
behavior constructed with it, ``execute()`` on a worker thread; one node for all of them, as
onboard runs behavior after behavior), each against a drone node of its own. The oracle is the
embedded executor: the same supervisor run on the same mission (same platform, seed, dropouts)
visits the same capabilities with the same outcomes, and the behavior ends with the machine's
container outcome for that run (``finished`` for the nominal flights, ``aborted`` for the
PiHawk's dropout). The drone node's status at the end shows the drone landed and disarmed.

Skipped, naming what to source, where rclpy, flexbe_core or flexible_drones_msgs is not
importable.
"""

from __future__ import annotations

import importlib
import os
import threading
import time

import pytest
from support.ros_stack import DOMAINS_MISSING

try:
    import rclpy  # noqa: F401  (skip without it)
    from flexbe_core.core import PreemptableState
    from flexible_drones_msgs.srv import GetStatus
except ImportError as error:  # pragma: no cover - depends on the ROS installation
    pytest.skip(DOMAINS_MISSING.format(what=f"FlexBE, rclpy or flexible_drones_msgs ({error})"),
                allow_module_level=True)

from flexbe_support.engine import import_behavior, onboard_node
from support.ros_helpers import held_domain, start_node, stop
from support.supervisors import prepared

from bdi_supervisor.realize.stage import realize_mission
from bdi_supervisor.runtime.session import run_supervisor

pytestmark = pytest.mark.ros

MISSIONS = {"quadcopter_crazyflie": "finished", "quadcopter_pihawk": "finished",
            "quadcopter_pihawk_dropout": "aborted"}


@pytest.fixture(scope="module")
def domain():
    """The module's domain, which no other test gets while the module runs."""
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    with held_domain() as held:
        os.environ["ROS_DOMAIN_ID"] = str(held)
        yield os.environ["ROS_DOMAIN_ID"]


def start_drone(mission: str, backend: str, *parameters: str):
    args = [f"mission:={mission}", f"backend:={backend}", *parameters]
    return start_node("bdi_supervisor.domains.quadcopter.ros.drone_node",
                      [item for arg in args for item in ("-p", arg)], dict(os.environ))


@pytest.fixture(scope="module")
def flexbe_node(domain):
    """A node as onboard sets it up (:func:`flexbe_support.engine.onboard_node`); one for the
    module, as onboard keeps one for every behavior it runs (FlexBE 3.0.7's ``shutdown_proxies``
    leaves its proxies unusable for the same topics afterwards)."""
    with onboard_node("bdi_quadcopter_test") as ros:
        yield ros


def _trace(machine) -> list:
    """Record ``(state name, outcome)`` of every state the behavior's machine finishes."""
    trace = []
    for state in machine._states:
        inner = state.execute

        def execute(userdata, _inner=inner, _name=state.name):
            outcome = _inner(userdata)
            if outcome is not None:
                trace.append((_name, outcome))
            return outcome

        state.execute = execute
    return trace


def fly(behavior_class, node, executor, timeout: float) -> tuple[str | None, list]:
    behavior = behavior_class(node)
    PreemptableState.preempt = False
    behavior.set_up(beh_id=0, autonomy_level=255, debug=False)
    behavior.prepare_for_execution({})
    behavior.confirm()
    trace = _trace(behavior._state_machine)
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(behavior.execute()), daemon=True)
    worker.start()
    deadline = time.monotonic() + timeout
    while worker.is_alive() and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    if worker.is_alive():
        behavior.preempt()
        worker.join(5.0)
    PreemptableState.preempt = False
    return (outcome[0] if outcome else None), trace


def drone_status(node, executor, drone: str = "drone"):
    client = node.create_client(GetStatus, f"/{drone}/get_status")
    assert client.wait_for_service(timeout_sec=30.0)
    future = client.call_async(GetStatus.Request(drone_id=drone))
    deadline = time.monotonic() + 10.0
    while not future.done() and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    node.destroy_client(client)
    return future.result().status


def _fly_mission(name, backend, flexbe_node, tmp_path, timeout, *parameters):
    node, executor = flexbe_node
    mission, prep = prepared(name)
    embedded = run_supervisor(mission, prep.machine, prep.reduced)
    realization = realize_mission(prep.reduced, mission, out_dir=tmp_path / "behavior")
    process = start_drone(str(mission.file), backend, *parameters)
    try:
        drone_status(node, executor)  # the drone node is up and discovered: fly
        outcome, trace = fly(import_behavior(realization), node, executor, timeout)
        status = drone_status(node, executor)
    finally:
        _, log = stop(process)
    return mission, prep, embedded, outcome, trace, status, log


def _capability_trace(prep, trace) -> list[tuple[str, str]]:
    states = {s.name: s for s in prep.machine.states}
    return [(states[name].capability, states[name].outcomes[flexbe]) for name, flexbe in trace]


@pytest.mark.parametrize("name", sorted(MISSIONS))
def test_flexbe_flies_the_mission_as_the_embedded_executor(name, flexbe_node, tmp_path):
    _, prep, embedded, outcome, trace, status, log = _fly_mission(
        name, "kinematic", flexbe_node, tmp_path, 90.0)
    assert outcome == MISSIONS[name] == embedded.sm_outcome, log[-3000:]
    assert _capability_trace(prep, trace) == [(s.capability, s.outcome.outcome)
                                              for s in embedded.steps]
    assert not status.status_flags & (status.STATUS_ARMED | status.STATUS_AIRBORNE)
    assert status.state == status.STATE_PREARM  # landed, disarmed, not crashed
    if name.endswith("dropout"):
        assert "execute: pose stale" in log and "(code 2)" in log
        assert "go_to: reached" in log  # the retreat out of the gate, then the landing


def test_flexbe_flies_a_dry_run_crazyflie_logging_every_command(flexbe_node, tmp_path):
    """The same states and node on the Crazyflie backend in a dry run: no radio, every cflib
    command logged, the mission flown to ``finished``."""
    _, prep, embedded, outcome, trace, status, log = _fly_mission(
        "quadcopter_crazyflie", "crazyflie", flexbe_node, tmp_path, 90.0, "dry_run:=true",
        "uri:=radio://0/80/2M/E7E7E7E7E7")
    assert outcome == "finished", log[-3000:]
    assert _capability_trace(prep, trace) == [(s.capability, s.outcome.outcome)
                                              for s in embedded.steps]
    sent = [line.split("dry run, not sent: ", 1)[1] for line in log.splitlines()
            if "dry run, not sent: " in line]
    assert sent[0] == "SyncCrazyflie('radio://0/80/2M/E7E7E7E7E7').open_link()"
    assert sent[1:3] == ["cf.supervisor.send_arming_request(True)",
                         "cf.high_level_commander.takeoff(1, 2.5)"]
    assert sum(c.startswith("cf.high_level_commander.start_trajectory(") for c in sent) == 5
    assert sent[-4:] == ["cf.high_level_commander.land(0, 3)", "cf.high_level_commander.stop()",
                         "cf.supervisor.send_arming_request(False)", "SyncCrazyflie.close_link()"]
    assert status.state == status.STATE_PREARM


@pytest.mark.simulation
@pytest.mark.parametrize("name", ["quadcopter_crazyflie", "quadcopter_pihawk_dropout"])
def test_flexbe_flies_the_mission_on_rotorpy(name, flexbe_node, tmp_path):
    pytest.importorskip("rotorpy", reason="RotorPy not installed (pip install '.[rotorpy]')")
    _, prep, embedded, outcome, trace, status, log = _fly_mission(
        name, "rotorpy", flexbe_node, tmp_path, 300.0)
    assert outcome == MISSIONS[name], log[-3000:]
    caps = [cap for cap, _ in _capability_trace(prep, trace)]
    if name.endswith("dropout"):
        assert caps[caps.index("execute_3") + 1:] == ["log_failed", "retreat", "abort_land",
                                                       "abort_disarm"]
    else:
        assert caps == [s.capability for s in embedded.steps]
    assert status.state == status.STATE_PREARM


def test_each_drone_state_takes_the_catalogs_parameters_and_declares_its_outcomes(flexbe_node):
    """Every capability's state builds from the catalog's parameters alone, declares exactly the
    catalog's outcomes and userdata keys, and its docstring lists its parameters, outcomes and
    keys as flexbe_states' do."""
    import inspect
    import re

    from bdi_supervisor.catalog.interfaces import resolve_interface

    try:  # FlexBE 3.x, 4.x
        from flexbe_core import initialize_flexbe_core
    except ImportError:  # FlexBE 2.x
        from flexbe_core import set_node as initialize_flexbe_core

    initialize_flexbe_core(flexbe_node[0])  # what a behavior's constructor does
    mission, _ = prepared("quadcopter_crazyflie")
    checked = set()
    for name, cap in sorted(mission.catalog.capabilities.items()):
        module, cls = resolve_interface(cap.interface)
        if not module.startswith("bdi_flexbe_states."):
            continue
        state_class = getattr(importlib.import_module(module), cls)
        state = state_class(**{p.name: p.value for p in cap.parameters})
        assert sorted(state.outcomes) == sorted(cap.flexbe_outcomes), name
        assert set(state.input_keys) == set(cap.userdata_in), name
        assert set(state.output_keys) == set(cap.userdata_out), name
        doc = inspect.getdoc(state_class)
        documented = set(re.findall(r"^-- (\w+)", doc, re.M))
        assert documented == set(inspect.signature(state_class).parameters), name
        assert set(re.findall(r"^<= (\w+)", doc, re.M)) == set(cap.flexbe_outcomes), name
        keys = set(re.findall(r"^(?:>#|#>) (\w+)", doc, re.M))
        assert keys == set(cap.userdata_in) | set(cap.userdata_out), name
        checked.add(cls)
    assert checked == {"ArmState", "TakeoffState", "PlanTrajectoryState", "UploadTrajectoryState",
                       "ExecuteTrajectoryState", "GoToState", "LandState"}


@pytest.mark.parametrize("parameters, says", [
    (["mission:=vending"], "not a quadcopter mission"),
    (["mission:=quadcopter_crazyflie", "backend:=gazebo"], "parameter 'backend'"),
    (["mission:=quadcopter_pihawk", "backend:=crazyflie", "dry_run:=true"],
     "flies the crazyflie platform only"),
    (["mission:=quadcopter_crazyflie", "backend:=crazyflie", "uri:=udp://127.0.0.1:9",
      "connect_timeout:=3.0"], "cannot open the Crazyflie"),
])
def test_the_drone_node_refuses_bad_input_in_one_line(parameters, says, domain):
    process = start_node("bdi_supervisor.domains.quadcopter.ros.drone_node",
                         [item for p in parameters for item in ("-p", p)], dict(os.environ))
    output, _ = process.communicate(timeout=60)
    errors = [line for line in output.splitlines() if line.startswith("error: drone:")]
    assert process.returncode == 2, output
    assert len(errors) == 1 and says in errors[0], output
    assert "Traceback" not in output


def _call(node, executor, future, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not future.done() and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    assert future.done()
    return future.result()


@pytest.mark.parametrize("error", ["bestatus", "run_state"])
def test_a_supervisor_error_in_flight_stops_the_drones_motors(error, flexbe_node):
    """With the drone in the air, FlexBE onboard's ERROR on ``flexbe/status`` or the supervisor
    node's run ending in ``error`` (its run state on ``/diagnostics``) stops the motors: the
    drone falls (crashed) and the stop latches (status EMERGENCY)."""
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
    from flexbe_msgs.msg import BEStatus
    from flexible_drones_msgs.action import Takeoff
    from flexible_drones_msgs.srv import Arm
    from rclpy.action import ActionClient

    node, executor = flexbe_node
    process = start_drone(str(prepared("quadcopter_crazyflie")[0].file), "kinematic")
    try:
        drone_status(node, executor)
        arm = node.create_client(Arm, "/drone/arm")
        assert _call(node, executor, arm.call_async(Arm.Request(arm=True))).success
        takeoff = ActionClient(node, Takeoff, "/drone/takeoff")
        assert takeoff.wait_for_server(timeout_sec=30.0)
        goal = _call(node, executor, takeoff.send_goal_async(Takeoff.Goal(height=1.0)))
        assert _call(node, executor, goal.get_result_async()).result.return_code == 0
        status = drone_status(node, executor)
        assert status.status_flags & status.STATUS_AIRBORNE
        if error == "bestatus":
            publisher = node.create_publisher(BEStatus, "flexbe/status", 10)
            message = BEStatus(code=BEStatus.ERROR)
        else:
            publisher = node.create_publisher(DiagnosticArray, "/diagnostics", 10)
            message = DiagnosticArray(status=[DiagnosticStatus(
                name="bdi_supervisor: run", values=[KeyValue(key="state", value="error")])])
        deadline = time.monotonic() + 20.0
        while time.monotonic() < deadline:
            publisher.publish(message)
            executor.spin_once(timeout_sec=0.2)
            status = drone_status(node, executor)
            if status.state == status.STATE_EMERGENCY:
                break
        assert status.state == status.STATE_EMERGENCY
        assert not status.status_flags & (status.STATUS_ARMED | status.STATUS_AIRBORNE)
        node.destroy_publisher(publisher)
        node.destroy_client(arm)
        takeoff.destroy()
    finally:
        _, log = stop(process)
    assert "EMERGENCY STOP" in log, log
