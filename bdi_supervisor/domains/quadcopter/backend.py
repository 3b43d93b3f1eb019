"""The motion-backend contract shared by the kinematic model and RotorPy.

A backend only *moves* the drone: :meth:`FlightBackend.fly` follows a waypoint path at a speed
and reports how the motion ended. Everything above motion (arming, planning, uploading, the
meaning of trajectory ids, return codes) lives in :mod:`.drone`, so both backends behave the same
at the capability level and differ only in physics.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

from bdi_supervisor.domains.quadcopter.course import Vec

#: motion end states
COMPLETE = "complete"
ODOM_FAILURE = "odom_failure"  # the pose watchdog stopped the motion
COLLISION = "collision"  # crashed (into a gate, the floor, or out of the world)
TIMEOUT = "timeout"  # the motion did not finish within its simulated-time budget
CANCELLED = "cancelled"
MOTION_STATUSES = (COMPLETE, ODOM_FAILURE, COLLISION, TIMEOUT, CANCELLED)


@dataclass
class Motion:
    """What to fly: waypoints (the first is the current position), speed, context."""

    waypoints: list[Vec]
    speed: float
    kind: str  # "takeoff" | "segment" | "go_to" | "land"
    segment: int | None = None  # segment index for "segment" motions
    budget_s: float = 30.0  # simulated-time budget
    cancel: threading.Event | None = None


@dataclass
class MotionResult:
    status: str
    duration: float  # simulated seconds
    position: Vec  # true final position
    min_distance_to_target: float = float("inf")
    max_pose_age: float = 0.0
    message: str = ""
    samples: int = 0
    extra: dict = field(default_factory=dict)


class FlightBackend(Protocol):
    """Moves the drone; keeps the true state between calls; simulated time only."""

    name: str

    def position(self) -> Vec: ...

    def fly(self, motion: Motion, t_mission: float, target: Vec | None = None) -> MotionResult:
        """Fly ``motion`` starting at mission time ``t_mission``; ``target`` is the point whose
        closest approach is reported (the gate centre for gate segments)."""
        ...

    def reset(self, position: Vec) -> None: ...
