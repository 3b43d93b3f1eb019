"""The small domains' world nodes as processes on real rclpy: they serve their actions as
services that act once per request id (a repeated id is answered from the record), stop cleanly
on SIGINT (as launch stops them), and refuse to start, with one ``error:`` line and exit 2, when
the mission's catalog asks for something the world does not have. Skipped where rclpy (the ros
extra) is not installed."""

from __future__ import annotations

import contextlib
import json
import subprocess

import pytest
import yaml
from support.paths import CATALOGS, MISSIONS
from support.ros_helpers import start_node, stop

pytestmark = pytest.mark.ros
pytest.importorskip("rclpy", reason="real rclpy not installed (pip install -e '.[ros]')")
pytest.importorskip("std_srvs.srv", reason="std_srvs not installed (pip install -e '.[ros]')")

TWO_RIVERS = "bdi_supervisor.domains.two_rivers.ros.world_node"
BEER_ROBOT = "bdi_supervisor.domains.beer_robot.ros.world_node"


def call(context, name: str, request_id: str = "") -> tuple[bool, str]:
    """Call a world's service: an action (with ``request_id``) or ``<domain>/world``."""
    import rclpy
    from std_srvs.srv import Trigger

    from bdi_supervisor.ros.world import ACTION_SERVICE

    node = rclpy.create_node("probe", context=context)
    try:
        kind = Trigger if name.endswith("/world") else ACTION_SERVICE
        client = node.create_client(kind, name)
        assert client.wait_for_service(timeout_sec=15.0), name
        request = Trigger.Request() if kind is Trigger else kind.Request(load_namespace=request_id)
        future = client.call_async(request)
        executor = rclpy.executors.SingleThreadedExecutor(context=context)
        executor.add_node(node)
        executor.spin_until_future_complete(future, timeout_sec=10.0)
        executor.shutdown()
        return future.result().success, future.result().message
    finally:
        node.destroy_node()


def test_crossings_change_the_world_only_when_they_succeed(ros_env, rclpy_context):
    world = start_node(TWO_RIVERS, ["-p", "mission:=two_rivers", "-p", "seed:=3",
                                    "-p", "force:=move#2=failure"], ros_env)
    try:
        answers = [call(rclpy_context, f"two_rivers/farmer/move/{item}", f"r{n}")
                   for n, item in enumerate(("goat", "nothing", "wolf"))]
        report = json.loads(call(rclpy_context, "two_rivers/world")[1])
    finally:
        code, output = stop(world)
    assert code == 0 and "Traceback" not in output, output
    assert answers[0] == (True, "the farmer crossed with the goat to the far bank")
    assert answers[1] == (False, "forced by script (move#2)")  # forced: the farmer stays
    assert answers[2] == (False, "the wolf is not on the farmer's bank")
    assert report["world"]["banks"] == {"wolf": "near", "goat": "far", "corn": "near",
                                        "farmer": "far"}
    assert [(s["activation"], s["outcome"], s["layer"]) for s in report["served"]] == [
        (1, "completed", None), (2, "failure", "override"), (3, "failure", None)]
    assert report["repeats"] == 0


def test_a_request_id_acts_once_and_its_repeats_get_the_recorded_answer(ros_env,
                                                                       rclpy_context):
    """A state whose reply was lost asks again with the same id: the world answers what it did
    without acting twice; a new id acts; a request without an id (by hand) acts every time."""
    world = start_node(TWO_RIVERS, ["-p", "mission:=two_rivers", "-p", "seed:=3"], ros_env)
    goat, nothing = "two_rivers/farmer/move/goat", "two_rivers/farmer/move/nothing"
    try:
        first = call(rclpy_context, goat, "a1")
        again = [call(rclpy_context, goat, "a1") for _ in range(2)]
        back = call(rclpy_context, nothing, "a1")  # the same id on another service: new
        by_hand = [call(rclpy_context, nothing) for _ in range(2)]
        report = json.loads(call(rclpy_context, "two_rivers/world")[1])
    finally:
        code, output = stop(world)
    assert code == 0, output
    assert first == (True, "the farmer crossed with the goat to the far bank")
    assert again == [first, first]
    assert back[0], back
    # served: the goat once, then three activations of the crossing alone (two by hand, each
    # acting: seeded high wind may fail one), whose answers are the ones given
    assert report["repeats"] == 2 and len(report["served"]) == 4, report
    assert [r["outcome"] == "completed" for r in report["served"]] == [
        True, back[0], *(ok for ok, _ in by_hand)], report
    assert report["world"]["crossings"] == 1 + sum(ok for ok, _ in [back, *by_hand]), report
    assert output.count("request a1 again, answered from the record (completed)") == 2, output


def test_a_world_that_lacks_what_the_catalog_asks_for_does_not_start(ros_env, tmp_path):
    catalog = yaml.safe_load((CATALOGS / "beer_robot.yaml").read_text())
    catalog["capabilities"]["goto_fridge"]["parameters"] = {"target": "garage"}
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump(catalog))
    mission = yaml.safe_load((MISSIONS / "beer_robot.yaml").read_text())
    mission["catalog"] = "catalog.yaml"
    (tmp_path / "mission.yaml").write_text(yaml.safe_dump(mission))
    world = start_node(BEER_ROBOT, ["-p", f"mission:={tmp_path / 'mission.yaml'}"], ros_env)
    with contextlib.suppress(subprocess.TimeoutExpired):
        world.wait(timeout=30)
    code, output = stop(world)
    assert code == 2, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "'garage' not served" in errors[0], output
    assert "Traceback" not in output


def test_the_kitchen_is_the_missions_actual_world(ros_env, rclpy_context, tmp_path):
    mission = yaml.safe_load((MISSIONS / "beer_robot.yaml").read_text())
    mission["catalog"] = str(CATALOGS / "beer_robot.yaml")
    mission["hypotheses"]["door_locked"]["actual"] = True
    (tmp_path / "locked.yaml").write_text(yaml.safe_dump(mission))
    world = start_node(BEER_ROBOT, ["-p", f"mission:={tmp_path / 'locked.yaml'}"], ros_env)
    try:
        opened = call(rclpy_context, "beer_robot/open_door", "1")
        walked = call(rclpy_context, "beer_robot/navigate/fridge", "2")
        report = json.loads(call(rclpy_context, "beer_robot/world")[1])
    finally:
        code, output = stop(world)
    assert code == 0, output
    assert opened == (False, "the kitchen door is locked")
    assert walked == (False, "the kitchen door is closed")
    assert report["world"]["door_open"] is False and report["world"]["robot"] == "lounge"
