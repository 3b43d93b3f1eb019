"""ROS 2 service/action capability adapters on real rclpy, driven by the executor's ``invoke``."""

from __future__ import annotations

import threading
import time

import pytest

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")

from rclpy.action import ActionServer, CancelResponse  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402
from test_msgs.action import Fibonacci  # noqa: E402

from bdi_supervisor.errors import InputError  # noqa: E402
from bdi_supervisor.ros.adapters import build_adapters  # noqa: E402
from bdi_supervisor.runtime.adapters import Activation, invoke  # noqa: E402


@pytest.fixture
def robot(rclpy_context):
    """A robot node serving /button (Trigger: succeeds on odd calls) and /brew (Fibonacci:
    succeeds for order <= 5, aborts above, honours cancel), spun on its own thread."""
    node = rclpy.create_node("robot", context=rclpy_context)
    calls = []
    closing = threading.Event()

    def button(request, response):
        calls.append("button")
        response.success = len(calls) % 2 == 1
        response.message = f"call {len(calls)}"
        return response

    def brew(goal_handle):
        order = goal_handle.request.order
        calls.append(f"brew {order}")
        if order == 99:  # runs until cancelled (or the fixture closes: bounded)
            while not goal_handle.is_cancel_requested and not closing.wait(0.01):
                pass
            if goal_handle.is_cancel_requested:
                calls.append("cancelled")
                goal_handle.canceled()
            else:
                goal_handle.abort()
            return Fibonacci.Result()
        if order > 5:
            goal_handle.abort()
        else:
            goal_handle.succeed()
        return Fibonacci.Result(sequence=list(range(order)))

    node.create_service(Trigger, "/button", button)
    ActionServer(node, Fibonacci, "/brew", brew, cancel_callback=lambda _: CancelResponse.ACCEPT)
    supervisor = rclpy.create_node("supervisor", context=rclpy_context)
    executor = MultiThreadedExecutor(num_threads=4, context=rclpy_context)
    executor.add_node(node)
    executor.add_node(supervisor)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield supervisor, calls
    closing.set()
    executor.shutdown()
    thread.join(5)
    node.destroy_node()
    supervisor.destroy_node()


CONFIG = {
    "bd": {"kind": "service", "name": "/button", "type": "std_srvs/srv/Trigger", "timeout": 5},
    "br": {"kind": "action", "name": "/brew", "type": "test_msgs/action/Fibonacci",
           "goal": {"order": 3}, "timeout": 5},
}


def test_service_adapter_maps_success_to_outcomes(robot):
    supervisor, calls = robot
    adapter = build_adapters(supervisor, CONFIG)["bd"]
    declared = ("completed", "failure")
    first = invoke(adapter, Activation("bd", {}), declared)
    second = invoke(adapter, Activation("bd", {}), declared)
    assert (first.outcome, second.outcome) == ("completed", "failure")
    assert second.detail == {"message": "call 2"} and calls == ["button", "button"]


def test_action_adapter_goal_parameters_status_and_cancel(robot):
    supervisor, calls = robot
    adapter = build_adapters(supervisor, CONFIG)["br"]
    declared = ("completed", "failure")
    assert invoke(adapter, Activation("br", {}), declared).outcome == "completed"
    aborted = invoke(adapter, Activation("br", {"order": 8, "not_a_field": 1}), declared)
    assert (aborted.outcome, aborted.flexbe_outcome) == ("failure", "aborted")
    timed_out = invoke(adapter, Activation("br", {"order": 99}), declared, timeout=0.5)
    assert timed_out.outcome == "failure" and "timeout" in timed_out.reason
    deadline = time.monotonic() + 5
    while "cancelled" not in calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == ["brew 3", "brew 8", "brew 99", "cancelled"]


def test_missing_server_becomes_the_failure_outcome(robot):
    supervisor, _ = robot
    config = {"x": {**CONFIG["bd"], "name": "/nobody", "timeout": 0.3}}
    outcome = invoke(build_adapters(supervisor, config)["x"], Activation("x", {}),
                     ("completed", "failure"))
    assert outcome.outcome == "failure" and "not available" in outcome.reason


@pytest.mark.parametrize("entry, key", [
    ({"kind": "topic", "name": "/a", "type": "std_srvs/srv/Trigger"}, "adapters.c.kind"),
    ({"kind": "service", "name": "no spaces", "type": "std_srvs/srv/Trigger"}, "adapters.c.name"),
    ({"kind": "service", "name": "/a", "type": "std_srvs/action/Trigger"}, "adapters.c.type"),
    ({"kind": "service", "name": "/a", "type": "nope_msgs/srv/Nope"}, "adapters.c.type"),
    ({"kind": "service", "name": "/a", "type": "os/srv/System"}, "adapters.c.type"),
    ({"kind": "service", "name": "/a", "type": "std_srvs/srv/Trigger", "request": {"x": 1}},
     "adapters.c.request.x"),
    ({"kind": "action", "name": "/a", "type": "test_msgs/action/Fibonacci",
      "goal": {"order": "three"}}, "adapters.c.goal.order"),
    ({"kind": "action", "name": "/a", "type": "test_msgs/action/Fibonacci",
      "outcomes": {"exploded": "failure"}}, "adapters.c.outcomes"),
    ({"kind": "action", "name": "/a", "type": "test_msgs/action/Fibonacci", "timeout": 0},
     "adapters.c.timeout"),
    ({"kind": "action", "name": "/a", "type": "test_msgs/action/Fibonacci", "speed": 1},
     "adapters.c.speed"),
])
def test_bad_adapter_configuration_names_the_key(robot, entry, key):
    supervisor, _ = robot
    with pytest.raises(InputError) as caught:
        build_adapters(supervisor, {"c": entry}, "adapters.yaml")
    assert caught.value.key == key and caught.value.file == "adapters.yaml"
