"""A lightweight kinematic gate-course model (pure Python, deterministic, for unit tests).

The drone moves along the commanded polyline at constant speed, stepped at 100 Hz. The
controller flies on the pose feed: while the feed is frozen (a dropout) the true position drifts
from the path, the deviation growing as ``½·a·τ²`` with τ the age of the pose (``a`` = the
profile's ``blind_drift``) and decaying again once fresh poses return. A deviation beyond the
profile's ``crash_deviation``, touching a gate part, the floor or the world bounds is a collision.
The pose watchdog (profile ``staleness_limit_s``) stops the motion with ``odom_failure`` first.

This mirrors what the RotorPy prototype showed (short dropouts tolerated, a 1 s dropout crashes
without the watchdog, a watchdog gives a clean failure) and what a vertical descent inside a gate
does (it hits the lower crossbar).
"""

from __future__ import annotations

import math

from bdi_supervisor.domains.quadcopter.backend import (
    CANCELLED,
    COLLISION,
    COMPLETE,
    ODOM_FAILURE,
    TIMEOUT,
    Motion,
    MotionResult,
)
from bdi_supervisor.domains.quadcopter.course import (
    GateCourse,
    Vec,
    distance,
    interpolate,
    path_length,
)
from bdi_supervisor.domains.quadcopter.dropout import DropoutPlan, PoseWatchdog
from bdi_supervisor.domains.quadcopter.profiles import PlatformProfile

DT = 0.01
RECOVERY_TIME_CONSTANT = 0.3  # s: how fast the deviation shrinks once the pose is fresh again


class KinematicBackend:
    name = "kinematic"

    def __init__(self, course: GateCourse, profile: PlatformProfile,
                 dropouts: DropoutPlan | None = None, watchdog: bool = True) -> None:
        self.course = course
        self.profile = profile
        self.dropouts = dropouts or DropoutPlan()
        self.watchdog_enabled = watchdog
        self._position: Vec = course.pad
        # per gate: its frame's bounding box grown by the airframe radius, then its parts
        r = profile.radius
        self._gates = []
        for gate in course.gates.values():
            lo = tuple(min(b.lo[k] for b in gate.boxes) - r for k in range(3))
            hi = tuple(max(b.hi[k] for b in gate.boxes) + r for k in range(3))
            self._gates.append((lo, hi, gate.boxes))

    def position(self) -> Vec:
        return self._position

    def reset(self, position: Vec) -> None:
        self._position = position

    def _collides(self, p: Vec, kind: str) -> str | None:
        lo_x, hi_x, lo_y, hi_y, _lo_z, hi_z = self.course.world_extents
        if not (lo_x <= p[0] <= hi_x and lo_y <= p[1] <= hi_y and p[2] <= hi_z):
            return "left the world bounds"
        if p[2] < -1e-9 or (p[2] < self.profile.radius and kind not in ("takeoff", "land")):
            return "hit the floor"
        for lo, hi, boxes in self._gates:
            if all(lo[k] <= p[k] <= hi[k] for k in range(3)) and any(
                    box.distance(p) < self.profile.radius for box in boxes):
                return "hit a gate"
        return None

    def fly(self, motion: Motion, t_mission: float, target: Vec | None = None) -> MotionResult:
        points = [self._position, *motion.waypoints[1:]] if motion.waypoints else [self._position]
        length = path_length(points)
        speed = max(motion.speed, 1e-6)
        nominal = length / speed
        watchdog = PoseWatchdog(self.profile.staleness_limit_s)
        t = 0.0
        deviation = 0.0
        max_age = 0.0
        true_p = self._position
        min_target = distance(true_p, target) if target is not None else float("inf")
        steps = 0
        watchdog.update(t_mission, True)
        while True:
            if motion.cancel is not None and motion.cancel.is_set():
                return self._end(CANCELLED, t, true_p, min_target, max_age, steps, "cancelled")
            if t >= motion.budget_s:
                return self._end(TIMEOUT, t, true_p, min_target, max_age, steps,
                                 f"no completion within {motion.budget_s:.1f} s")
            if t >= nominal and deviation < 0.02:
                return self._end(COMPLETE, t, true_p, min_target, max_age, steps, "reached")
            t += DT
            steps += 1
            now = t_mission + t
            fresh = not self.dropouts.stale(now, motion.segment, t)
            watchdog.update(now, fresh)
            age = watchdog.age(now)
            max_age = max(max_age, age)
            if fresh:
                deviation *= math.exp(-DT / RECOVERY_TIME_CONSTANT)
            else:
                deviation = 0.5 * self.profile.blind_drift * age * age
            nominal_p = interpolate(points, min(t, nominal) * speed)
            # flying blind, the controller loses height: drift downward from the path
            true_p = (nominal_p[0], nominal_p[1], nominal_p[2] - deviation)
            if target is not None:
                min_target = min(min_target, distance(true_p, target))
            if deviation > self.profile.crash_deviation:
                return self._end(COLLISION, t, true_p, min_target, max_age, steps,
                                 f"lost control after {age:.2f} s on stale pose")
            hit = self._collides(true_p, motion.kind)
            if hit:
                return self._end(COLLISION, t, true_p, min_target, max_age, steps, hit)
            if self.watchdog_enabled and watchdog.tripped(now):
                return self._end(ODOM_FAILURE, t, true_p, min_target, max_age, steps,
                                 f"pose stale for {age:.2f} s (limit "
                                 f"{self.profile.staleness_limit_s:.2f} s)")

    def _end(self, status: str, t: float, p: Vec, min_target: float, max_age: float,
             steps: int, message: str) -> MotionResult:
        self._position = p
        return MotionResult(status, round(t, 6), p, min_target, max_age, message, steps)
