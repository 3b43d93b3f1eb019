"""Monitor node on real rclpy: BDI-state topic in, DiagnosticArray out (in-process and
two-process)."""

from __future__ import annotations

import contextlib

import pytest
from support.paths import MISSIONS

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from support.ros_helpers import latest_status, spin_until, start_node, stop  # noqa: E402

from bdi_monitor.ros import port  # noqa: E402
from bdi_monitor.ros.monitor_node import MonitorNode, main  # noqa: E402
from bdi_supervisor.ros import diagnostics, qos, topics, wire  # noqa: E402
from bdi_supervisor.ros.node_main import ParameterError  # noqa: E402
from bdi_supervisor.ros.status import Level  # noqa: E402


@pytest.fixture
def mission():
    # a real mission: the monitor core on main validates it (no properties: stream statistics)
    return (MISSIONS / "coffee.yaml")


class DoorCore:
    """A test core: property ``door_open`` is true until a record reports outcome ``failed``."""

    def __init__(self) -> None:
        self.seen = 0

    def launch_verdicts(self):
        return [port.Verdict("door_open", "true", "YES")]

    def advance(self, record, stamp_ns):
        self.seen += 1
        if record.get("explode"):
            raise RuntimeError("core bug")
        self.value = "false" if record.get("outcome") == "failed" else "true"
        return (self.value,)

    def verdicts(self):
        return [port.Verdict("door_open", self.value, evidence={"seq_seen": str(self.seen)},
                             latency_ns=1500)]

    def counters(self):
        return {"seen": self.seen}


class Probe:
    """A test-side node: publishes BDI-state envelopes, collects DiagnosticArrays."""

    def __init__(self, context) -> None:
        self.node = rclpy.create_node("probe", context=context)
        self.publisher = self.node.create_publisher(String, topics.BDI_STATE, qos.STREAM)
        self.arrays: list[DiagnosticArray] = []
        self.node.create_subscription(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                      self.arrays.append, qos.DIAGNOSTICS)

    def send(self, seq: int, body: dict, run_id: str = "run-1") -> None:
        record = {"schema": wire.BDI_STATE, "version": 1, "run_id": run_id, "seq": seq, **body}
        self.publisher.publish(String(data=wire.encode_record(record)))

    def latest(self, name: str):
        return latest_status(self.arrays, name)


def _params(mission_path, **extra):
    values = {"mission": str(mission_path), "publish_period": 0.2, **extra}
    return [Parameter(key, value=value) for key, value in values.items()]


def _connected(executor, probe, node):
    assert spin_until(executor, lambda: probe.publisher.get_subscription_count() == 1
                      and node.publisher.get_subscription_count() >= 1)


@contextlib.contextmanager
def _monitor_and_probe(context, mission, core):
    """A monitor node on ``core`` and a probe, connected, on one executor: (executor, probe)."""
    executor = SingleThreadedExecutor(context=context)
    node = MonitorNode(context, _params(mission), core=core)
    probe = Probe(context)
    for each in (node, probe.node):
        executor.add_node(each)
    try:
        _connected(executor, probe, node)
        yield executor, probe
    finally:
        executor.shutdown()
        probe.node.destroy_node()
        node.destroy_node()


def test_verdict_flips_on_the_message_that_causes_it(rclpy_context, mission):
    with _monitor_and_probe(rclpy_context, mission, DoorCore()) as (executor, probe):
        probe.send(0, {"outcome": "completed"})
        assert spin_until(executor, lambda: (s := probe.latest("bdi_monitor: door_open"))
                          and s.values["value"] == "true")
        launch = probe.latest("bdi_monitor: launch door_open")
        assert launch.level == Level.OK and launch.message == "YES"
        probe.send(1, {"outcome": "failed"})
        assert spin_until(executor, lambda: probe.latest("bdi_monitor: door_open").level
                          == Level.ERROR)
        status = probe.latest("bdi_monitor: door_open")
        assert status.values["seq_seen"] == "2" and status.values["latency_us"] == "1.5"
        assert status.hardware_id == "coffee"


def test_stream_anomalies_are_counted_and_core_errors_do_not_crash(rclpy_context, mission):
    with _monitor_and_probe(rclpy_context, mission, DoorCore()) as (executor, probe):
        probe.send(0, {"outcome": "completed"})
        probe.send(0, {"outcome": "completed"})            # duplicate
        probe.publisher.publish(String(data="{not json"))   # malformed
        probe.send(3, {"explode": True})                    # gap of 2; the core raises
        probe.send(2, {"outcome": "completed"})             # out of order
        probe.send(0, {"outcome": "completed"}, "run-2")   # a new run
        def done():
            stream = probe.latest("bdi_monitor: stream")
            return stream is not None and stream.values["received"] == "6"
        assert spin_until(executor, done)
        values = probe.latest("bdi_monitor: stream").values
        assert (values["accepted"], values["duplicates"], values["gaps"],
                values["out_of_order"], values["malformed"], values["malformed.not_json"],
                values["core_errors"], values["core.seen"], values["runs"],
                values["run_id"]) == ("3", "1", "2", "1", "1", "1", "1", "3", "2", "run-2")
        assert probe.latest("bdi_monitor: stream").level == Level.WARN


def test_qos_of_the_monitor_endpoints(rclpy_context, mission):
    node = MonitorNode(rclpy_context, _params(mission), core=DoorCore())
    try:
        (sub,) = node.get_subscriptions_info_by_topic("/" + topics.BDI_STATE)
        assert sub.topic_type == "std_msgs/msg/String"
        assert sub.qos_profile.reliability == ReliabilityPolicy.RELIABLE
        # transient local: a run that started before the monitor was ready is heard from seq 0
        assert sub.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
        (pub,) = node.get_publishers_info_by_topic(diagnostics.DIAGNOSTICS_TOPIC)
        assert pub.topic_type == "diagnostic_msgs/msg/DiagnosticArray"
        assert str(pub.topic_type_hash).startswith("RIHS01_")
    finally:
        node.destroy_node()


@pytest.mark.parametrize("overrides, match", [
    ({"mission": ""}, "parameter 'mission'"),
    ({"mission": "/no/such/mission.yaml"}, "parameter 'mission'"),
    ({"publish_period": 0.0}, "parameter 'publish_period'"),
])
def test_bad_parameters_are_refused(rclpy_context, mission, overrides, match):
    with pytest.raises(ParameterError, match=match):
        MonitorNode(rclpy_context, _params(mission, **overrides), core=DoorCore())


def test_missing_core_is_refused_unless_allowed(rclpy_context, mission, monkeypatch):
    monkeypatch.setattr(port, "CORE_MODULE", "bdi_monitor.no_such_core")
    with pytest.raises(ParameterError, match="require_core"):
        MonitorNode(rclpy_context, _params(mission))
    node = MonitorNode(rclpy_context, _params(mission, require_core=False))
    try:
        (stream,) = node.statuses()
        assert stream.level == Level.WARN and "stream statistics only" in stream.message
    finally:
        node.destroy_node()


def test_main_exits_2_with_a_clear_error(ros_env, capsys):
    assert main(["monitor_node", "--ros-args", "-p", "mission:=/no/such.yaml"]) == 2
    err = capsys.readouterr().err
    assert "error: bdi_monitor: parameter 'mission'" in err and "Traceback" not in err
    assert main(["monitor_node", "--ros-args", "-p", "mission:=3"]) == 2
    assert "mission" in capsys.readouterr().err


def test_two_processes_on_loopback(rclpy_context, ros_env, mission):
    """The node in its own process (its real ``main``), the probe here; SIGINT ends it with 0."""
    process = start_node("bdi_monitor.ros.monitor_node",
                         ["-r", "__node:=monitor_under_test", "-p", f"mission:={mission}",
                          "-p", "require_core:=false", "-p", "publish_period:=0.1"], ros_env)
    executor = SingleThreadedExecutor(context=rclpy_context)
    probe = Probe(rclpy_context)
    executor.add_node(probe.node)
    try:
        assert spin_until(executor, lambda: probe.publisher.get_subscription_count() == 1, 30)
        assert spin_until(executor, lambda: "monitor_under_test" in probe.node.get_node_names())
        for seq in range(3):
            probe.send(seq, {"step": seq})
        def three():
            stream = probe.latest("bdi_monitor: stream")
            return stream is not None and stream.values["accepted"] == "3"
        assert spin_until(executor, three, 15)
        assert probe.latest("bdi_monitor: stream").hardware_id == "coffee"
    finally:
        executor.shutdown()
        probe.node.destroy_node()
        code, output = stop(process)
    assert code == 0, output
    assert "Traceback" not in output
