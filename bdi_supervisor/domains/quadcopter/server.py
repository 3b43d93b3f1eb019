"""The Flexible Drones interface of one drone, in plain Python: what the drone node serves.

:class:`DroneServer` answers the requests of ``flexible_drones_msgs`` (arm service, take-off,
plan / upload / execute trajectory, go-to and land actions, status, emergency stop) on a
:class:`Vehicle`: the simulated drone (:class:`~.drone.SimDrone` on the kinematic model or
RotorPy) or a real Crazyflie (:class:`~.crazyflie.CrazyflieDrone`). The ROS node
(``bdi_supervisor.domains.quadcopter.ros.drone_node``) only converts messages.

What the server adds on top of the vehicle:

- **planning**: a trajectory between two frames of the course (``start``, ``end``,
  ``gate_<X>_target_1``) as polynomial pieces (:mod:`.trajectory`), the planned segment kept
  under its id;
- **the geofence** (:mod:`.geofence`): a take-off height, go-to goal or uploaded trajectory that
  leaves the fence is refused (return code 9, invalid goal) before any command is sent;
- **one command at a time**: calls are serialized; :meth:`DroneServer.cancel` ends the running
  motion with code 4;
- **the emergency stop**: :meth:`DroneServer.emergency_stop` (the ``emergency_stop`` service),
  any exception of the vehicle, and :meth:`DroneServer.supervisor_report` (a supervisor error:
  FlexBE onboard reporting FAILED or ERROR, a run ending in an error) stop the motors; the stop
  latches, and every later command but disarming is refused (code 3, status check failed);
- **defaults**: a non-positive take-off, landing or go-to duration means the platform's own.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bdi_supervisor.domains.quadcopter import trajectory as T
from bdi_supervisor.domains.quadcopter.course import GateCourse, Vec
from bdi_supervisor.domains.quadcopter.drone import (
    COMMANDER_FAILURE,
    INVALID_GOAL,
    STATUS_CHECK_FAILED,
    SUCCESS,
    UPLOAD_FAILURE,
    CallResult,
    Trajectory,
)
from bdi_supervisor.domains.quadcopter.geofence import Geofence
from bdi_supervisor.domains.quadcopter.profiles import PlatformProfile

#: FlexBE onboard's BEStatus codes that are supervisor errors (FAILED, ERROR)
BESTATUS_ERRORS = {2: "FAILED", 11: "ERROR"}
#: run states of the supervisor node that are supervisor errors: its run ended without the goal,
#: a designed ending (``failed``) or an operator's stop (``bdi_supervisor.handover.RunState``)
RUN_ERRORS = ("error", "adapter_error", "assumption_violated", "step_limit", "deadlock", "loop")


class Vehicle(Protocol):
    """What the server needs of a drone (:class:`~.drone.SimDrone` has all of it)."""

    course: GateCourse
    profile: PlatformProfile
    trajectories: dict[int, Trajectory]
    armed: bool
    crashed: bool
    log: list[str]
    emergency: str | None  # why the motors were stopped (latched), else None

    @property
    def position(self) -> Vec: ...

    @property
    def airborne(self) -> bool: ...

    def arm(self, arm: bool = True) -> CallResult: ...

    def takeoff(self, height: float, duration: float) -> CallResult: ...

    def plan(self, trajectory_id: int, start_frame: str, target_frame: str) -> CallResult: ...

    def upload(self, trajectory_id: int,
               pieces: Sequence[T.Piece] | None = None) -> CallResult: ...

    def execute(self, trajectory_id: int, timescale: float = 1.0,
                cancel: threading.Event | None = None) -> CallResult: ...

    def go_to(self, goal: Vec, duration: float = 0.0) -> CallResult: ...

    def land(self, height: float = 0.0, duration: float | None = None,
             cancel: threading.Event | None = None) -> CallResult: ...

    def emergency_stop(self, reason: str) -> CallResult:
        """Motors off now (the first reason latches in ``emergency``); safe to call from any
        thread, also during a motion."""
        ...

    def snapshot(self) -> dict: ...


@dataclass(frozen=True)
class Status:
    """The fields of ``flexible_drones_msgs/DroneStatus`` the server knows."""

    drone_name: str
    platform: str
    state: str  # DroneStatus STATE_* name without the prefix
    connected: bool
    armed: bool
    airborne: bool
    ready: bool
    battery_voltage_v: float
    battery_pct: int  # 255: unknown
    position: Vec
    status_text: str
    warning_text: str


class DroneServer:
    """Serves one vehicle (see the module docstring)."""

    def __init__(self, vehicle: Vehicle, geofence: Geofence, name: str = "drone",
                 log: Callable[[str], None] | None = None) -> None:
        self.vehicle = vehicle
        self.geofence = geofence
        self.name = name
        self.log = log or (lambda text: None)
        self.planned: dict[int, list[T.Piece]] = {}
        self.activity = "idle"
        self._lock = threading.Lock()
        self._cancel = threading.Event()

    # -- requests -------------------------------------------------------------------------------
    def arm(self, arm: bool) -> CallResult:
        return self._call("arm" if arm else "disarm", lambda: self.vehicle.arm(arm),
                          allowed_when_stopped=not arm)

    def takeoff(self, height: float, duration: float) -> CallResult:
        p = self.vehicle.position
        goal = (p[0], p[1], height)
        if not self.geofence.contains(goal):
            return self.refuse("takeoff", f"take-off height {height:g} m leaves the geofence "
                                f"{self.geofence.describe()}")
        seconds = duration if duration > 0 else self.vehicle.profile.takeoff_duration
        return self._call("takeoff", lambda: self.vehicle.takeoff(height, seconds, self._cancel))

    def plan(self, trajectory_id: int, start_frame: str,
             target_frame: str) -> tuple[CallResult, list[T.Piece]]:
        """A trajectory between two course frames (the ``plan_trajectory`` action)."""
        result = self._call("plan", lambda: self.vehicle.plan(trajectory_id, start_frame,
                                                              target_frame))
        if not result.ok:
            return result, []
        segment = self.vehicle.trajectories[trajectory_id].segment
        pieces = T.through(segment.waypoints, self.vehicle.profile.cruise_speed)
        self.planned[trajectory_id] = pieces
        result.feedback["pieces"] = len(pieces)
        return result, pieces

    def upload(self, trajectory_id: int, pieces: Sequence[T.Piece]) -> CallResult:
        why = T.check(pieces)
        if why is not None:
            return self.refuse("upload", f"trajectory {trajectory_id}: {why}", UPLOAD_FAILURE)
        outside = self.geofence.first_outside(T.sample(pieces, 0.05))
        if outside is not None:
            return self.refuse("upload", f"trajectory {trajectory_id} leaves the geofence "
                                f"{self.geofence.describe()} at "
                                f"({', '.join(f'{x:.2f}' for x in outside)})")
        result = self._call("upload", lambda: self.vehicle.upload(trajectory_id, pieces))
        result.feedback["uploaded_pieces"] = len(pieces) if result.ok else 0
        return result

    def execute(self, trajectory_id: int, timescale: float = 1.0, reverse: bool = False,
                relative: bool = False) -> CallResult:
        if reverse or relative:
            return self.refuse("execute", "reversed and relative trajectories are not supported")
        if not timescale > 0:
            return self.refuse("execute", f"timescale {timescale!r} is not > 0")
        return self._call("execute", lambda: self.vehicle.execute(trajectory_id, timescale,
                                                                  self._cancel))

    def go_to(self, goal: Vec, duration: float = 0.0) -> CallResult:
        if not self.geofence.contains(goal):
            return self.refuse("go_to", f"goal ({', '.join(f'{x:.2f}' for x in goal)}) is "
                                f"outside the geofence {self.geofence.describe()}")
        return self._call("go_to", lambda: self.vehicle.go_to(goal, duration, self._cancel))

    def land(self, height: float = 0.0, duration: float = 0.0) -> CallResult:
        seconds = duration if duration > 0 else self.vehicle.profile.land_duration
        return self._call("land", lambda: self.vehicle.land(height, seconds, self._cancel))

    # -- safety ---------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Cancel the running motion (it ends with code 4)."""
        self._cancel.set()

    @property
    def stopped(self) -> str | None:
        """Why the motors were stopped (the stop latches), else ``None``."""
        return self.vehicle.emergency

    def emergency_stop(self, reason: str) -> CallResult:
        """Stop the motors now (also while another command runs) and latch the stop."""
        self.log(f"EMERGENCY STOP: {reason}")
        self._cancel.set()
        return self.vehicle.emergency_stop(reason)

    def supervisor_report(self, *, bestatus: int | None = None,
                          run_status: str | None = None) -> bool:
        """A report of the supervisor: a FlexBE ``BEStatus`` code or the final status of a run.
        An error stops the motors (while armed); returns whether it did."""
        why = None
        if bestatus in BESTATUS_ERRORS:
            why = f"FlexBE onboard reported {BESTATUS_ERRORS[bestatus]}"
        elif run_status in RUN_ERRORS:
            why = f"the supervisor's run ended with {run_status}"
        if why is None or not (self.vehicle.armed or self.vehicle.airborne):
            return False
        self.emergency_stop(why)
        return True

    def status(self) -> Status:
        v = self.vehicle
        snap = v.snapshot()
        if self.stopped:
            state = "EMERGENCY"
        elif v.crashed:
            state = "CRASHED"
        elif self.activity != "idle":
            state = self.activity
        elif v.airborne:
            state = "HOVER"
        else:
            state = "ARMED" if v.armed else "PREARM"
        voltage = float(snap.get("battery_v", 0.0))
        return Status(self.name, v.profile.name, state, bool(snap.get("connected", True)),
                      v.armed, v.airborne, self.stopped is None and not v.crashed, voltage,
                      int(snap.get("battery_pct", 255)), v.position,
                      self.stopped or ("crashed" if v.crashed else "ok"),
                      str(snap.get("warning", "")))

    # -- plumbing -------------------------------------------------------------------------------
    def refuse(self, call: str, message: str, code: int = INVALID_GOAL) -> CallResult:
        """A request answered without a command: ``code`` (default: invalid goal)."""
        self.log(f"{call} refused: {message}")
        return CallResult(call, code, message, 0.0, self.vehicle.position)

    def _call(self, call: str, run: Callable[[], CallResult],
              allowed_when_stopped: bool = False) -> CallResult:
        if self.stopped and not allowed_when_stopped:
            return self.refuse(call, f"emergency stop engaged ({self.stopped})",
                                STATUS_CHECK_FAILED)
        with self._lock:
            self._cancel = threading.Event()
            self.activity = _ACTIVITY.get(call, "idle")
            try:
                result = run()
            except Exception as error:  # any failure of the vehicle stops the motors
                self.log(traceback.format_exc())
                self.emergency_stop(f"{call} raised {type(error).__name__}: {error}")
                return CallResult(call, COMMANDER_FAILURE, f"{type(error).__name__}: {error}",
                                  0.0, self.vehicle.position)
            finally:
                self.activity = "idle"
        level = "" if result.return_code == SUCCESS else f" (code {result.return_code})"
        self.log(f"{call}: {result.message}{level}")
        return result


_ACTIVITY = {"takeoff": "TAKEOFF", "execute": "TRAJECTORY", "go_to": "GO_TO", "land": "LANDING"}
