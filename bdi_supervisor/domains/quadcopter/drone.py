"""The simulated drone at the level of the CNU drone stack's interfaces.

:class:`SimDrone` offers the calls of the stack (arm service, takeoff / land / upload / execute /
go_to actions, the plan_trajectory planner, logging) on top of a motion backend, with the stack's
return codes: 0 success, 1 commander failure, 2 odometry unavailable, 3 status check failed,
4 cancelled, 5 crashed, 6 timeout, 7 upload failure, 8 start failure, 9 invalid goal. Each call
is blocking and advances the simulated mission clock; the FlexBE outcome of the matching state is
``done`` (0), ``canceled`` (4), ``timeout`` (6) or ``failed`` (any other code).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from bdi_supervisor.domains.quadcopter.backend import (
    CANCELLED,
    COLLISION,
    COMPLETE,
    ODOM_FAILURE,
    TIMEOUT,
    FlightBackend,
    Motion,
)
from bdi_supervisor.domains.quadcopter.course import GateCourse, Segment, Vec, distance
from bdi_supervisor.domains.quadcopter.profiles import PlatformProfile
from bdi_supervisor.domains.quadcopter.trajectory import Piece, sample

SUCCESS, COMMANDER_FAILURE, ODOMETRY_UNAVAILABLE, STATUS_CHECK_FAILED = 0, 1, 2, 3
CANCELLED_CODE, CRASHED, TIMEOUT_CODE = 4, 5, 6
UPLOAD_FAILURE, START_FAILURE, INVALID_GOAL = 7, 8, 9

RETURN_CODE_NAMES = {
    0: "success", 1: "commander_failure", 2: "odometry_unavailable", 3: "status_check_failed",
    4: "cancelled", 5: "crashed", 6: "timeout", 7: "upload_failure", 8: "start_failure",
    9: "invalid_goal",
}

_MOTION_CODES = {COMPLETE: SUCCESS, ODOM_FAILURE: ODOMETRY_UNAVAILABLE, COLLISION: CRASHED,
                 TIMEOUT: TIMEOUT_CODE, CANCELLED: CANCELLED_CODE}


def flexbe_outcome(return_code: int) -> str:
    """FlexBE outcome of a drone state for a stack return code."""
    return {SUCCESS: "done", CANCELLED_CODE: "canceled", TIMEOUT_CODE: "timeout"}.get(
        return_code, "failed")


def frame_name(course: GateCourse, point: str) -> str:
    return point if point in ("start", "end") else f"gate_{point}_target_1"


def plan_segment(course: GateCourse, trajectory_id: int, start_frame: str,
                 target_frame: str) -> Segment | str:
    """The course segment ``trajectory_id`` when it runs ``start_frame`` -> ``target_frame``,
    else why not (the planner's refusal)."""
    if not 1 <= trajectory_id <= 5:
        return f"no segment {trajectory_id}"
    segment = course.segment(trajectory_id)
    names = segment.name.split("->")
    expected = (frame_name(course, names[0]), frame_name(course, names[1]))
    if (start_frame, target_frame) != expected:
        return f"segment {trajectory_id} runs {expected[0]} -> {expected[1]}"
    return segment


@dataclass
class CallResult:
    """The terminal result of one drone call (what FlexBE's state would see) plus feedback."""

    call: str
    return_code: int
    message: str
    duration: float  # simulated seconds
    position: Vec
    feedback: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.return_code == SUCCESS

    @property
    def outcome(self) -> str:
        return flexbe_outcome(self.return_code)

    @property
    def code_name(self) -> str:
        return RETURN_CODE_NAMES.get(self.return_code, str(self.return_code))


def judge_segment(result: CallResult, segment: Segment, tolerance: float,
                  flown: list[int]) -> CallResult:
    """A completed segment flight counts when it came within ``tolerance`` of its gate's centre
    (else code 1, a commander failure); counted segments are appended to ``flown``."""
    if result.ok:
        closest = result.feedback["min_distance_to_target"]
        if closest > tolerance:
            result.return_code = COMMANDER_FAILURE
            result.message = f"missed {segment.gate or 'the end point'} by {closest:.2f} m"
        else:
            flown.append(segment.index)
    result.feedback["segment"] = segment.name
    return result


@dataclass
class Trajectory:
    trajectory_id: int
    segment: Segment
    uploaded: bool = False
    pieces: tuple[Piece, ...] = ()  # as uploaded (polynomial pieces), when uploaded so


class SimDrone:
    """One simulated quadcopter on the gate course."""

    def __init__(self, course: GateCourse, profile: PlatformProfile,
                 backend: FlightBackend) -> None:
        self.course = course
        self.profile = profile
        self.backend = backend
        self.clock = 0.0  # simulated mission time
        self.armed = False
        self.crashed = False
        self.trajectories: dict[int, Trajectory] = {}
        self.log: list[str] = []
        self.segments_flown: list[int] = []
        self.emergency: str | None = None  # why the motors were stopped (latched)
        self._motion = threading.Lock()  # one motion at a time; the emergency stop waits for it
        self.backend.reset(course.pad)

    # -- state ----------------------------------------------------------------------------------
    @property
    def position(self) -> Vec:
        return self.backend.position()

    @property
    def airborne(self) -> bool:
        return not self.crashed and self.position[2] > 0.05

    @property
    def landed_clear(self) -> bool:
        """On the floor, clear of every gate."""
        return self.position[2] <= 0.05 and self.course.clearance(self.position) > 0.2

    def snapshot(self) -> dict:
        p = self.position
        return {"position": [round(x, 3) for x in p], "armed": self.armed,
                "airborne": self.airborne, "crashed": self.crashed,
                "clock": round(self.clock, 3), "segments_flown": list(self.segments_flown),
                "clearance": round(self.course.clearance(p), 3)}

    def _result(self, call: str, code: int, message: str, duration: float,
                **feedback) -> CallResult:
        self.clock += duration
        return CallResult(call, code, message, round(duration, 6), self.position, feedback)

    # -- the stack's calls ----------------------------------------------------------------------
    def arm(self, arm: bool = True) -> CallResult:
        call = "arm" if arm else "disarm"
        if self.crashed and arm:
            return self._result(call, CRASHED, "vehicle crashed", self.profile.arm_time_s)
        if not arm and self.airborne:
            return self._result(call, INVALID_GOAL, "refusing to disarm in flight",
                                self.profile.arm_time_s)
        self.armed = arm
        return self._result(call, SUCCESS, "armed" if arm else "disarmed", self.profile.arm_time_s)

    def takeoff(self, height: float, duration: float,
                cancel: threading.Event | None = None) -> CallResult:
        if self.crashed:
            return self._result("takeoff", CRASHED, "vehicle crashed", 0.0)
        if not self.armed:
            return self._result("takeoff", START_FAILURE, "not armed", 0.0)
        p = self.position
        goal = (p[0], p[1], height)
        speed = max(abs(height - p[2]), 1e-3) / max(duration, 1e-3)
        return self._move("takeoff", Motion([p, goal], speed, "takeoff",
                                            budget_s=duration + self.profile.timeout_slack_s,
                                            cancel=cancel))

    def plan(self, trajectory_id: int, start_frame: str, target_frame: str) -> CallResult:
        """The planner: a trajectory for segment ``trajectory_id`` between the two frames."""
        segment = plan_segment(self.course, trajectory_id, start_frame, target_frame)
        if isinstance(segment, str):
            return self._result("plan", INVALID_GOAL, segment, self.profile.plan_time_s)
        self.trajectories[trajectory_id] = Trajectory(trajectory_id, segment)
        return self._result("plan", SUCCESS, f"planned {segment.name}", self.profile.plan_time_s,
                            length=round(segment.length(), 3),
                            duration_sec=round(segment.length() / self.profile.cruise_speed, 3))

    def upload(self, trajectory_id: int, pieces: Sequence[Piece] | None = None) -> CallResult:
        """Load planned trajectory ``trajectory_id``; ``pieces``: the polynomial pieces it was
        uploaded as (:mod:`.trajectory`), flown instead of the planned arc."""
        traj = self.trajectories.get(trajectory_id)
        if traj is None:
            return self._result("upload", UPLOAD_FAILURE, f"trajectory {trajectory_id} not planned",
                                self.profile.upload_time_s)
        traj.uploaded = True
        traj.pieces = tuple(pieces or ())
        count = len(traj.pieces) or len(traj.segment.waypoints) - 1
        return self._result("upload", SUCCESS, f"uploaded trajectory {trajectory_id}",
                            self.profile.upload_time_s, uploaded_pieces=count)

    def execute(self, trajectory_id: int, timescale: float = 1.0,
                cancel: threading.Event | None = None) -> CallResult:
        traj = self.trajectories.get(trajectory_id)
        if self.crashed:
            return self._result("execute", CRASHED, "vehicle crashed", 0.0)
        if traj is None or not traj.uploaded:
            return self._result("execute", START_FAILURE,
                                f"trajectory {trajectory_id} not uploaded", 0.0)
        if not self.airborne:
            return self._result("execute", START_FAILURE, "not airborne", 0.0)
        seg = traj.segment
        speed = self.profile.cruise_speed / max(timescale, 1e-3)
        expected = seg.length() / speed
        target = self.course.gates[seg.gate].center if seg.gate else seg.end
        waypoints = sample(traj.pieces, 0.05) if traj.pieces else list(seg.waypoints)
        result = self._move("execute", Motion(waypoints, speed, "segment", seg.index,
                                              budget_s=expected + self.profile.timeout_slack_s,
                                              cancel=cancel), target=target)
        return judge_segment(result, seg, self.profile.gate_tolerance, self.segments_flown)

    def go_to_clear(self, cancel: threading.Event | None = None) -> CallResult:
        """Move out of the nearest gate plane, then inside the ring: a safe landing point."""
        if self.crashed:
            return self._result("go_to", CRASHED, "vehicle crashed", 0.0)
        if not self.airborne:
            return self._result("go_to", START_FAILURE, "not airborne", 0.0)
        path = self.course.retreat_path(self.position)
        speed = 0.5 * self.profile.cruise_speed
        length = sum(distance(a, b) for a, b in itertools.pairwise(path))
        return self._move("go_to", Motion(path, speed, "go_to",
                                          budget_s=length / speed + self.profile.timeout_slack_s,
                                          cancel=cancel))

    def go_to(self, goal: Vec, duration: float = 0.0,
              cancel: threading.Event | None = None) -> CallResult:
        """Straight to ``goal`` in ``duration`` s (<= 0: at half the cruise speed)."""
        if self.crashed:
            return self._result("go_to", CRASHED, "vehicle crashed", 0.0)
        if not self.airborne:
            return self._result("go_to", START_FAILURE, "not airborne", 0.0)
        p = self.position
        length = distance(p, goal)
        speed = length / duration if duration > 0 else 0.5 * self.profile.cruise_speed
        speed = max(speed, 1e-3)
        return self._move("go_to", Motion([p, goal], speed, "go_to",
                                          budget_s=length / speed + self.profile.timeout_slack_s,
                                          cancel=cancel))

    def emergency_stop(self, reason: str) -> CallResult:
        """Motors off: an airborne drone falls where it is. Waits for a running motion to end
        (the caller cancels it first)."""
        with self._motion:
            if self.airborne:
                self.crashed = True
                p = self.position
                self.backend.reset((p[0], p[1], 0.0))
            self.armed = False
            self.emergency = self.emergency or reason
            self.log.append(f"emergency stop: {reason}")
            return self._result("emergency_stop", SUCCESS, f"motors stopped ({reason})", 0.0)

    def land(self, height: float = 0.0, duration: float | None = None,
             cancel: threading.Event | None = None) -> CallResult:
        if self.crashed:
            return self._result("land", CRASHED, "vehicle crashed", 0.0)
        if not self.airborne:
            return self._result("land", SUCCESS, "already on the ground", 0.0)
        duration = duration or self.profile.land_duration
        p = self.position
        goal = (p[0], p[1], max(height, 0.0))
        speed = max(p[2] - goal[2], 1e-3) / duration
        return self._move("land", Motion([p, goal], speed, "land",
                                         budget_s=duration + self.profile.timeout_slack_s,
                                         cancel=cancel))

    def write_log(self, text: str) -> CallResult:
        self.log.append(text)
        return self._result("log", SUCCESS, text, 0.0)

    # -- motion ---------------------------------------------------------------------------------
    def _move(self, call: str, motion: Motion, target: Vec | None = None) -> CallResult:
        with self._motion:
            return self._fly(call, motion, target)

    def _fly(self, call: str, motion: Motion, target: Vec | None = None) -> CallResult:
        result = self.backend.fly(motion, self.clock, target)
        code = _MOTION_CODES[result.status]
        if result.status == COLLISION:
            self.crashed = True
            self.armed = False
            p = result.position
            self.backend.reset((p[0], p[1], 0.0))
        return self._result(call, code, result.message, result.duration,
                            min_distance_to_target=round(result.min_distance_to_target, 4),
                            max_pose_age=round(result.max_pose_age, 4), motion=result.status)
