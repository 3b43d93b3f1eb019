"""A monitor that starts late loses no BDI-state record (real rclpy, two DDS participants).

The supervisor node waits for its ``monitor_node`` to subscribe before the run starts, and the
BDI-state stream is transient local with a history that covers a run, so even a monitor that
comes after the run (or after the wait timed out) gets every record from the first one.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from std_msgs.msg import String  # noqa: E402

from bdi_supervisor.ros import diagnostics, qos, topics, wire  # noqa: E402
from bdi_supervisor.ros.status import Level  # noqa: E402
from bdi_supervisor.ros.supervisor_node import SupervisorNode, names_node  # noqa: E402
from bdi_supervisor.ros.synthesis_node import run_pipeline  # noqa: E402

COFFEE = ROOT / "config" / "missions" / "coffee.yaml"


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """An audited coffee supervisor, as the synthesis node hands it over."""
    folder = tmp_path_factory.mktemp("coffee") / "attempt_1"
    assert run_pipeline(COFFEE, folder)["audit"] == "PASS"
    return folder


class Participant:
    """A node on its own context (its own DDS participant) with its own executor."""

    def __init__(self, domain: int, make) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain)
        self.node = make(self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()


class LateMonitor(Node):
    """The monitor's side of the contract: a BDI-state subscription under the node name the
    supervisor waits for (QoS ``STREAM``), plus /diagnostics."""

    def __init__(self, context, name: str) -> None:
        super().__init__(name, context=context)
        self.records: list[dict] = []
        self.create_subscription(String, topics.BDI_STATE, lambda m: self.records.append(
            wire.decode_record(m.data)), qos.STREAM)
        self.arrays: list[DiagnosticArray] = []
        self.create_subscription(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                 self.arrays.append, qos.DIAGNOSTICS)

    def ended(self) -> bool:
        return bool(self.records) and self.records[-1]["event"] == "end"

    def run_status(self):
        for array in reversed(self.arrays):
            for status in array.status:
                if status.name == "bdi_supervisor: run":
                    return diagnostics.from_message(status)
        return None


def spin(participants, predicate, timeout: float = 20.0) -> bool:
    """Spin every participant in turn until ``predicate()`` holds or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        for participant in participants:
            participant.executor.spin_once(timeout_sec=0.02)
    return predicate()


def supervisor(domain: int, folder: Path, **extra) -> Participant:
    parameters = [Parameter("mission", value=str(COFFEE)), Parameter("folder", value=str(folder)),
                  *(Parameter(name, value=value) for name, value in extra.items())]
    return Participant(domain, lambda context: SupervisorNode(context, parameters))


def assert_whole_run(records: list[dict]) -> None:
    assert records and records[0]["seq"] == 0, records[:1]
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert len({r["run_id"] for r in records}) == 1
    assert records[-1]["event"] == "end" and records[-1]["status"] == "goal_reached"


def test_the_run_waits_for_a_late_monitor_and_it_hears_every_record(ros_env, run_folder):
    domain = int(ros_env["ROS_DOMAIN_ID"])
    parts = [supervisor(domain, run_folder, monitor_node="late_monitor", monitor_timeout=30.0)]
    try:
        node = parts[0].node
        spin(parts, lambda: False, timeout=1.5)  # the monitor is still "building its core"
        assert node.state == "waiting" and node.thread is None, node.detail
        assert "late_monitor" in node.detail
        parts.append(Participant(domain, lambda context: LateMonitor(context, "late_monitor")))
        monitor = parts[1].node
        assert spin(parts, monitor.ended), (node.state, node.detail, len(monitor.records))
        assert_whole_run(monitor.records)
        assert node.state == "goal_reached" and not node.monitor_missed
    finally:
        for part in parts:
            part.close()


def test_without_its_monitor_the_run_starts_after_the_timeout_and_keeps_the_stream(
        ros_env, run_folder):
    """The monitor never comes within ``monitor_timeout``: the run goes ahead (a warning on
    /diagnostics), and a subscriber that joins after the run still gets all of it."""
    domain = int(ros_env["ROS_DOMAIN_ID"])
    parts = [supervisor(domain, run_folder, monitor_node="/bdi_monitor", monitor_timeout=0.5)]
    try:
        node = parts[0].node
        assert spin(parts, lambda: node.state == "goal_reached", 20), node.detail
        assert node.monitor_missed
        parts.append(Participant(domain, lambda context: LateMonitor(context, "after_the_run")))
        late = parts[1].node
        assert spin(parts, late.ended), len(late.records)
        assert_whole_run(late.records)
        assert spin(parts, late.run_status, 5)
        status = late.run_status()
        assert status.level == Level.WARN and status.values["monitor"] == "missed"
    finally:
        for part in parts:
            part.close()


def test_a_monitor_that_never_reports_the_last_record_is_named_in_the_verdict(
        ros_env, run_folder, tmp_path):
    """With ``exit_when_done`` the supervisor waits ``monitor_drain`` for the monitor's verdicts on
    the run's last record; a monitor that subscribes but never reports leaves the reason in
    ``verdict.json`` (``monitor_unreported``), not a verdict file that looks complete."""
    folder = tmp_path / "attempt_1"
    shutil.copytree(run_folder, folder)
    domain = int(ros_env["ROS_DOMAIN_ID"])
    parts = [Participant(domain, lambda context: LateMonitor(context, "mute_monitor")),
             supervisor(domain, folder, monitor_node="mute_monitor", exit_when_done=True,
                        monitor_drain=0.5)]
    try:
        node = parts[1].node
        assert spin(parts, lambda: node.exit_code is not None, 20), (node.state, node.detail)
        assert node.exit_code == 0 and node.state == "goal_reached"
        verdict = json.loads((folder / "verdict.json").read_text())
        assert "monitor" not in verdict, verdict
        assert "within 0.5 s (monitor_drain)" in verdict["monitor_unreported"], verdict
        assert (verdict["stage"], verdict["state"]) == ("run", "goal_reached"), verdict
    finally:
        for part in parts:
            part.close()


def test_monitor_names_match_by_name_or_fully_qualified_name():
    assert names_node("bdi_monitor", "bdi_monitor", "/robot1")
    assert names_node("/robot1/bdi_monitor", "bdi_monitor", "/robot1")
    assert names_node("/bdi_monitor", "bdi_monitor", "/")
    assert not names_node("/robot2/bdi_monitor", "bdi_monitor", "/robot1")
    assert not names_node("bdi_monitor", "bdi_monitor_2", "/")
