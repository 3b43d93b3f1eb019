"""The mission over ROS 2 topics on real rclpy: synthesis node → (audit PASS only) hand-over →
supervisor node (embedded executor, forced outcomes) → BDI-state topic → monitor node →
DiagnosticArray."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402
from support.ros_helpers import latest_status, spin_until, start_node, stop  # noqa: E402

from bdi_supervisor.ros import diagnostics, qos, topics, wire  # noqa: E402
from bdi_supervisor.ros.status import Level  # noqa: E402
from bdi_supervisor.ros.synthesis_node import SynthesisNode  # noqa: E402

COFFEE = ROOT / "config" / "missions" / "coffee_extended.yaml"
BOUNDED = ROOT / "test" / "data" / "ros" / "coffee_bounded.yaml"


class Listener:
    """Test-side node: latched records and hand-overs, BDI states, diagnostics by name."""

    def __init__(self, context) -> None:
        self.node = rclpy.create_node("listener", context=context)
        self.records, self.handovers, self.states, self.arrays = [], [], [], []
        self.node.create_subscription(String, topics.SYNTHESIS_RECORD, lambda m: self.records
                                      .append(wire.decode(m.data, wire.SYNTHESIS_RECORD)),
                                      qos.LATCHED)
        self.node.create_subscription(String, topics.HANDOVER, lambda m: self.handovers
                                      .append(wire.decode(m.data, wire.HANDOVER)), qos.LATCHED)
        self.node.create_subscription(String, topics.BDI_STATE, lambda m: self.states
                                      .append(wire.decode_record(m.data)), qos.STREAM)
        self.node.create_subscription(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                      self.arrays.append, qos.DIAGNOSTICS)

    def latest(self, name: str):
        return latest_status(self.arrays, name)


@pytest.fixture
def spin(rclpy_context):
    executor = SingleThreadedExecutor(context=rclpy_context)
    nodes = []

    def add(node):
        nodes.append(node)
        executor.add_node(node)
        return node
    yield executor, add
    executor.shutdown()
    for node in nodes:
        node.destroy_node()


def test_synthesis_node_hands_over_the_audited_coffee_supervisor(rclpy_context, spin, tmp_path):
    executor, add = spin
    add(SynthesisNode(rclpy_context, [Parameter("mission", value=str(COFFEE)),
                                      Parameter("output_dir", value=str(tmp_path))]))
    listener = Listener(rclpy_context)  # joins after the records were published: latched
    add(listener.node)
    assert spin_until(executor, lambda: listener.records and listener.handovers)
    record = listener.records[-1].body
    assert record["audit"] == "PASS" and record["handed_over"] and record["defects"] == []
    assert record["mission"] == "coffee_extended" and record["attempt"] == 1
    handover = listener.handovers[-1].body
    folder = Path(handover["folder"])
    assert (folder / "reduced.json").is_file() and handover["audit"] == "PASS"
    assert json.loads((folder / "audit.json").read_text())["verdict"] == "PASS"
    assert spin_until(executor, lambda: listener.latest("bdi_synthesis: pipeline"))
    assert listener.latest("bdi_synthesis: pipeline").level == Level.OK
    # re-synthesis on request: a second attempt in its own folder, handed over again
    client = listener.node.create_client(Trigger, topics.RESYNTHESIZE)
    assert client.wait_for_service(timeout_sec=5)
    future = client.call_async(Trigger.Request())
    assert spin_until(executor, future.done)
    assert future.result().success and "PASS" in future.result().message
    assert spin_until(executor, lambda: listener.handovers[-1].body["attempt"] == 2)
    assert listener.handovers[-1].body["folder"] != str(folder)


def test_a_failed_audit_publishes_the_defect_and_hands_nothing_over(rclpy_context, spin,
                                                                     tmp_path):
    from bdi_supervisor.ros.supervisor_node import SupervisorNode

    executor, add = spin
    listener = Listener(rclpy_context)
    add(listener.node)
    supervisor = add(SupervisorNode(rclpy_context, [Parameter("mission", value=str(BOUNDED))]))
    add(SynthesisNode(rclpy_context, [Parameter("mission", value=str(BOUNDED)),
                                      Parameter("output_dir", value=str(tmp_path))]))
    assert spin_until(executor, lambda: listener.records)
    record = listener.records[-1].body
    assert record["audit"] == "FAIL" and not record["handed_over"]
    assert any(d.startswith("BOUNDED_FAILURE_VIOLATION") for d in record["defects"])
    assert spin_until(executor, lambda: listener.latest("bdi_synthesis: pipeline"))
    status = listener.latest("bdi_synthesis: pipeline")
    assert status.level == Level.ERROR and "no supervisor handed over" in status.message
    assert status.values["defect.0"].startswith("BOUNDED_FAILURE_VIOLATION")
    spin_until(executor, lambda: False, timeout=1.0)  # give a hand-over every chance to arrive
    assert listener.handovers == [] and listener.states == []
    assert supervisor.state == "waiting" and supervisor.thread is None
    assert not (tmp_path / "attempt_1" / "reduced.json").exists()


def test_forced_outcome_coffee_mission_end_to_end_over_topics(rclpy_context, ros_env, spin,
                                                              tmp_path):
    """Three processes (synthesis, supervisor, monitor) and this test's listener on loopback:
    the forced failure of the first button press shows up in the BDI stream, the run reaches
    the goal, the supervisor exits 0 and the monitor accounted for every record."""
    executor, add = spin
    listener = Listener(rclpy_context)
    add(listener.node)
    config = ROOT / "config"
    monitor = start_node("bdi_monitor.ros.monitor_node", [
        "--params-file", str(config / "monitor_node.yaml"), "-p", f"mission:={COFFEE}",
        "-p", "require_core:=false", "-p", "publish_period:=0.2"], ros_env)
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "--params-file", str(config / "supervisor_node.yaml"), "-p", f"mission:={COFFEE}",
        "-p", "force:=bd=failure", "-p", "exit_when_done:=true"], ros_env)
    processes = [monitor, supervisor]
    try:
        # the monitor and the listener must hear the stream from its first record
        assert spin_until(executor, lambda: listener.node.count_publishers(
            "/" + topics.BDI_STATE) == 1 and listener.node.count_subscribers(
            "/" + topics.BDI_STATE) == 2, 30)
        synthesis = start_node("bdi_supervisor.ros.synthesis_node", [
            "--params-file", str(config / "synthesis_node.yaml"), "-p", f"mission:={COFFEE}",
            "-p", f"output_dir:={tmp_path}"], ros_env)
        processes.append(synthesis)
        assert spin_until(executor, lambda: listener.states and listener.states[-1]["event"]
                          == "end", 60)
        code, output = stop(supervisor, timeout=30) if supervisor.poll() is None else (
            supervisor.returncode, supervisor.communicate()[0])
        # exit_when_done: the supervisor ended on its own
        assert code == 0, output
        events = listener.states
        assert [r["seq"] for r in events] == list(range(len(events)))
        assert events[-1]["status"] == "goal_reached"
        outcomes = [r["last_outcome"] for r in events if r["event"] == "outcome"]
        assert outcomes[0]["capability"] == "bd" and outcomes[0]["outcome"] == "failure"
        assert outcomes[0]["forced"] and outcomes[1]["capability"] == "bd"
        assert outcomes[1]["outcome"] == "completed"
        assert outcomes[-1]["capability"] == "br" and outcomes[-1]["outcome"] == "completed"

        def counted():
            stream = listener.latest("bdi_monitor: stream")
            return stream is not None and stream.values["accepted"] == str(len(events))
        assert spin_until(executor, counted, 15)
        stream = listener.latest("bdi_monitor: stream").values
        assert (stream["gaps"], stream["malformed"], stream["duplicates"]) == ("0", "0", "0")
        assert listener.latest("bdi_supervisor: run").values["state"] == "goal_reached"
    finally:
        results = [stop(p) for p in processes]
    for code, output in results:
        assert code == 0, output
        assert "Traceback" not in output, output


BEER = ROOT / "config" / "missions" / "beer_robot.yaml"


@pytest.fixture(scope="module")
def beer_folder(tmp_path_factory):
    """beer_robot's run folder, synthesized once as the synthesis node does."""
    from bdi_supervisor.ros.synthesis_node import run_pipeline

    folder = tmp_path_factory.mktemp("beer") / "run"
    assert run_pipeline(BEER, folder)["audit"] == "PASS"
    return folder


@pytest.mark.parametrize("extra, state, code", [
    ([], "goal_reached", 0),
    (["-p", "force:=open_door=failure"], "failed", 4),  # its designed outcome 'aborted'
    (["-p", "max_steps:=1"], "step_limit", 3),
])
def test_the_supervisor_node_ends_with_one_exit_code_per_ending(ros_env, beer_folder, extra,
                                                                state, code):
    """``exit_when_done`` (embedded runner): the goal 0, a designed outcome that is not the goal
    4, the step limit 3; the same verdict in the run folder's verdict.json for a script."""
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", f"mission:={BEER}", "-p", f"folder:={beer_folder}", "-p", "exit_when_done:=true",
        *extra], ros_env)
    try:
        supervisor.wait(timeout=60)
    finally:
        exit_code, output = stop(supervisor)
    assert exit_code == code, output
    assert f"run ended: {state}" in output, output
    verdict = json.loads((beer_folder / "verdict.json").read_text())
    assert (verdict["stage"], verdict["state"], verdict["exit_code"]) == ("run", state, code)
    assert verdict["runner"] == "embedded" and verdict["mission"] == "beer_robot"
