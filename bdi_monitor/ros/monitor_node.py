"""``monitor_node``: BDI-state topic in, ``DiagnosticArray`` verdicts out (rclpy).

Parameters:

- ``mission`` (string, required): the mission file whose properties are monitored;
- ``hardware_id`` (string, default: the mission file's stem): DiagnosticStatus hardware id;
- ``publish_period`` (float s, default 1.0): period of the full diagnostics re-publication
  (changes of any verdict are published at once, on the message that caused them);
- ``require_core`` (bool, default true): refuse to start without the monitor core; when false
  the node reports the stream's transport statistics only.

Subscribes ``bdi_supervisor/bdi_state`` (std_msgs/String: one BDI-state record, schema
``bdi_supervisor/bdi_state`` v1, QoS ``STREAM``: transient local, so a run that started before
the subscription is still received from its first record) only once the core is built and its
launch-time checks are done: that subscription is the node's readiness signal, which the
supervisor node waits for (its ``monitor_node`` parameter). Publishes ``/diagnostics``: one status
``bdi_monitor: stream`` (received, malformed, duplicates, gaps ...), one ``bdi_monitor: launch
<property>`` per launch-time check and one ``bdi_monitor: <property>`` per runtime verdict.
"""

from __future__ import annotations

import sys

from diagnostic_msgs.msg import DiagnosticArray
from std_msgs.msg import String

from bdi_monitor.ros import port
from bdi_monitor.ros.intake import Intake
from bdi_monitor.verdict import Verdict
from bdi_supervisor.common import PropertyValue
from bdi_supervisor.ros import diagnostics, params, qos, topics
from bdi_supervisor.ros.node_main import ParameterError, SuiteNode, interruptible, run
from bdi_supervisor.ros.status import Level, Status

NODE_NAME = "bdi_monitor"

LEVELS = {PropertyValue.TRUE: Level.OK, PropertyValue.INCONCLUSIVE: Level.WARN,
          PropertyValue.FALSE: Level.ERROR, PropertyValue.OUT_OF_MODEL: Level.ERROR}


def verdict_status(verdict: Verdict, hardware_id: str, prefix: str = "") -> Status:
    """The DiagnosticStatus of one verdict (``value`` and ``latency_us`` among its values)."""
    values = {"value": verdict.value, **verdict.evidence}
    if verdict.latency_ns is not None:
        values["latency_us"] = f"{verdict.latency_ns / 1000:.1f}"
    level = LEVELS.get(verdict.value, Level.ERROR)
    message = verdict.message or verdict.value
    return Status(level, f"{NODE_NAME}: {prefix}{verdict.property}", message, hardware_id,
                  values)


class MonitorNode(SuiteNode):
    """Feeds each accepted BDI-state record to the core and publishes its verdicts."""

    def __init__(self, context=None, parameter_overrides=None,
                 core: port.MonitorPort | None = None) -> None:
        """``core`` replaces the one built from the mission (for embedding and tests)."""
        super().__init__(NODE_NAME, context=context, parameter_overrides=parameter_overrides)
        mission = params.mission_file("mission", params.declare(
            self, "mission", "", "mission file whose CTL-BDI properties are monitored"))
        self.hardware_id = params.declare(
            self, "hardware_id", "", "DiagnosticStatus hardware_id (default: mission name)") \
            or mission.stem
        period = params.positive("publish_period", params.declare(
            self, "publish_period", 1.0, "seconds between full diagnostics publications"))
        require_core = params.declare(self, "require_core", True,
                                      "refuse to start without the monitor core")
        self.core = core
        if self.core is None:
            self.get_logger().info(f"building the monitor of {mission} (synthesis, "
                                   "launch-time model check)")
        with interruptible():  # SIGINT/SIGTERM stop the synthesis and the model check at once
            try:
                if self.core is None:
                    self.core = port.create_monitor(mission)
            except port.CoreUnavailable as error:
                if require_core:
                    raise ParameterError("require_core", True,
                                         f"false, or the monitor core installed ({error})"
                                         ) from None
                self.get_logger().warning(f"{error}: reporting stream statistics only")
            self.launch = self.core.launch_verdicts() if self.core else []
        self.intake = Intake(self.core, self._core_failed)
        self.publisher = self.create_publisher(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                               qos.DIAGNOSTICS)
        self.subscription = self.create_subscription(String, topics.BDI_STATE, self._on_state,
                                                     qos.STREAM)
        self.timer = self.create_timer(period, self.publish)
        self.get_logger().info(
            f"monitoring {mission} ({len(self.launch)} properties checked at launch)")
        self.publish()

    def _on_state(self, message: String) -> None:
        if self.intake.take(message.data, self.get_clock().now().nanoseconds):
            self.publish()

    def _core_failed(self, record: dict, error: Exception) -> None:
        self.get_logger().error(f"monitor core failed on seq {record['seq']}: {error!r}")

    def statuses(self) -> list[Status]:
        """Everything the node reports now."""
        stream, core_errors = self.intake.stream, self.intake.core_errors
        values = stream.as_values()
        if self.core is not None:
            values.update({f"core.{key}": str(n) for key, n in self.core.counters().items()})
            values["core_errors"] = str(core_errors)
        healthy = stream.healthy() and not core_errors
        if self.core is None:
            level, text = Level.WARN, "monitor core not installed: stream statistics only"
        else:
            level = Level.OK if healthy else Level.WARN
            text = "stream healthy" if healthy else "stream has malformed or missing records"
        entries = [Status(level, f"{NODE_NAME}: stream", text, self.hardware_id, values)]
        entries += [verdict_status(v, self.hardware_id, "launch ") for v in self.launch]
        entries += [verdict_status(v, self.hardware_id) for v in self.intake.verdicts()]
        return entries

    def publish(self) -> None:
        stamp = self.get_clock().now().to_msg()
        self.publisher.publish(diagnostics.to_array(self.statuses(), stamp))

    def destroy_node(self) -> None:
        """Also drop the core, so its BDD managers are freed now rather than at interpreter exit."""
        super().destroy_node()
        self.core = self.intake.core = None


def main(args: list[str] | None = None) -> int:
    return run(lambda context: MonitorNode(context), NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())

