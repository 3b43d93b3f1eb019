"""``Status`` ↔ ``diagnostic_msgs/DiagnosticArray`` (rclpy)."""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

from bdi_supervisor.ros.status import Level, Status

DIAGNOSTICS_TOPIC = "/diagnostics"


def to_array(statuses: list[Status], stamp) -> DiagnosticArray:
    """One DiagnosticArray with ``stamp`` (a ``builtin_interfaces/Time``) in its header."""
    array = DiagnosticArray()
    array.header.stamp = stamp
    array.status = [to_message(status) for status in statuses]
    return array


def to_message(status: Status) -> DiagnosticStatus:
    return DiagnosticStatus(
        level=bytes([int(status.level)]), name=status.name, message=status.message,
        hardware_id=status.hardware_id,
        values=[KeyValue(key=key, value=str(value)) for key, value in status.values.items()])


def from_message(message: DiagnosticStatus) -> Status:
    """Back to plain data (for subscribers and tests)."""
    level = message.level[0] if isinstance(message.level, bytes) else int(message.level)
    return Status(Level(level), message.name, message.message, message.hardware_id,
                  {pair.key: pair.value for pair in message.values})
