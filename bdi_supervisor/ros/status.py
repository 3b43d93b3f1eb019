"""Plain-Python diagnostic statuses, converted to ``diagnostic_msgs/DiagnosticStatus`` by
:mod:`bdi_supervisor.ros.diagnostics`.

Names follow the ``<node>: <item>`` convention rqt_robot_monitor groups by.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class Level(IntEnum):
    """``DiagnosticStatus`` levels."""

    OK = 0
    WARN = 1
    ERROR = 2
    STALE = 3


@dataclass(frozen=True)
class Status:
    """One diagnostic entry: level, name, one-line message, hardware id and key/value pairs."""

    level: Level
    name: str
    message: str
    hardware_id: str = ""
    values: dict[str, str] = field(default_factory=dict)


def worst(statuses: list[Status]) -> Level:
    """The highest level among ``statuses`` (OK for none)."""
    return max((status.level for status in statuses), default=Level.OK)
