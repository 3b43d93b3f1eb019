"""A real Crazyflie through cflib: the same drone calls as the simulated drone.

:class:`CrazyflieDrone` has :class:`~.drone.SimDrone`'s calls (arm, take-off, plan, upload,
execute, go-to, land, emergency stop) with the same return codes, so the drone server
(:mod:`.server`), the drone node and the FlexBE states fly it unchanged. It talks to the
Crazyflie through a :class:`Link`:

- :class:`CflibLink` — cflib (``pip install 'bdi_supervisor[crazyflie]'``): ``SyncCrazyflie``
  opens the radio link, a log block streams ``stateEstimate.x/y/z`` and ``pm.vbat``, the
  supervisor subsystem arms, disarms and stops the motors, the high-level commander takes off,
  lands, goes to points and flies trajectories written to the trajectory memory as ``Poly4D``
  pieces (:mod:`.trajectory` has the same layout);
- :class:`DryRunLink` — sends nothing, opens no radio: every command is logged as the cflib
  call it stands for, and the drone is taken to be where each command puts it at once.

Safety, before and during every flight:

- **before arming**: the link is open and telemetry arrives (else return code 3, status check
  failed), the battery is at least ``min_battery_v`` volts (3; the dry run logs the check as
  skipped) and the drone is inside the geofence (3);
- **during every motion**: the estimated position is watched at the telemetry rate; leaving the
  geofence by more than :data:`~.geofence.BREACH_MARGIN` stops the motors (emergency stop,
  code 1), telemetry older than ``telemetry_timeout_s`` ends the motion with code 2 (odometry
  unavailable: the drone holds its position on its own estimator), a motion that does not reach
  its end within its duration plus the platform's slack ends with code 6;
- **emergency stop** (:meth:`CrazyflieDrone.emergency_stop`): the supervisor's emergency stop
  command at once, from any thread; the drone server calls it on any supervisor error.

The Crazyflie holds one trajectory: each upload writes its pieces at offset 0 of the
trajectory memory and defines the uploaded id there; executing an id that is no longer the
loaded one is refused (code 8, start failure).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bdi_supervisor.domains.quadcopter import trajectory as T
from bdi_supervisor.domains.quadcopter.course import GateCourse, Vec, distance
from bdi_supervisor.domains.quadcopter.drone import (
    CANCELLED_CODE,
    COMMANDER_FAILURE,
    INVALID_GOAL,
    ODOMETRY_UNAVAILABLE,
    START_FAILURE,
    STATUS_CHECK_FAILED,
    SUCCESS,
    TIMEOUT_CODE,
    UPLOAD_FAILURE,
    CallResult,
    Trajectory,
    judge_segment,
    plan_segment,
)
from bdi_supervisor.domains.quadcopter.geofence import BREACH_MARGIN, Geofence
from bdi_supervisor.domains.quadcopter.profiles import PlatformProfile

#: battery voltage of a full and an empty 1S LiPo (for the percentage in the status)
FULL_V, EMPTY_V = 4.2, 3.0
#: how close (m) the drone must come to a motion's end point
ARRIVAL_TOLERANCE = 0.15
#: telemetry variables streamed during a flight
TELEMETRY = ("stateEstimate.x", "stateEstimate.y", "stateEstimate.z", "pm.vbat")
_DRIVERS: list[bool] = []  # cflib's link drivers are set up (once per process)


@dataclass(frozen=True)
class CrazyflieSettings:
    """Where the Crazyflie is and how careful to be (the drone node's parameters)."""

    uri: str = "radio://0/80/2M/E7E7E7E7E7"
    dry_run: bool = False
    min_battery_v: float = 3.8
    connect_timeout_s: float = 10.0
    telemetry_period_ms: int = 50
    telemetry_timeout_s: float = 1.0


class Link:
    """What :class:`CrazyflieDrone` needs of a Crazyflie: telemetry and commands."""

    connected: bool = False
    #: whether a motion takes its commanded duration (the dry run's take none)
    paced: bool = True

    def open(self) -> None: ...

    def close(self) -> None: ...

    def telemetry(self) -> tuple[Vec | None, float | None, float]:
        """(position, battery volts, age of the last sample in seconds)."""
        ...

    def arm(self, arm: bool) -> None: ...

    def takeoff(self, height: float, duration: float) -> None: ...

    def land(self, height: float, duration: float) -> None: ...

    def go_to(self, goal: Vec, duration: float) -> None: ...

    def write_trajectory(self, pieces: Sequence[T.Piece], timeout: float) -> bool: ...

    def define_trajectory(self, trajectory_id: int, pieces: int) -> None: ...

    def start_trajectory(self, trajectory_id: int, timescale: float) -> None: ...

    def stop(self) -> None: ...

    def emergency_stop(self) -> None: ...


class DryRunLink(Link):
    """Logs every command as the cflib call it stands for; sends nothing."""

    paced = False

    def __init__(self, settings: CrazyflieSettings, start: Vec,
                 log: Callable[[str], None]) -> None:
        self.settings = settings
        self.position: Vec = start
        self.commands: list[str] = []
        self._log = log
        self._pieces: list[T.Piece] = []
        self._defined: dict[int, list[T.Piece]] = {}

    def _command(self, text: str) -> None:
        self.commands.append(text)
        self._log(f"dry run, not sent: {text}")

    def open(self) -> None:
        self._command(f"SyncCrazyflie({self.settings.uri!r}).open_link()")
        self.connected = True

    def close(self) -> None:
        if self.connected:
            self._command("SyncCrazyflie.close_link()")
        self.connected = False

    def telemetry(self) -> tuple[Vec | None, float | None, float]:
        return self.position, None, 0.0

    def arm(self, arm: bool) -> None:
        self._command(f"cf.supervisor.send_arming_request({arm})")

    def takeoff(self, height: float, duration: float) -> None:
        self._command(f"cf.high_level_commander.takeoff({height:g}, {duration:g})")
        self.position = (self.position[0], self.position[1], height)

    def land(self, height: float, duration: float) -> None:
        self._command(f"cf.high_level_commander.land({height:g}, {duration:g})")
        self.position = (self.position[0], self.position[1], height)

    def go_to(self, goal: Vec, duration: float) -> None:
        x, y, z = goal
        self._command(f"cf.high_level_commander.go_to({x:.3f}, {y:.3f}, {z:.3f}, 0.0, "
                      f"{duration:g})")
        self.position = goal

    def write_trajectory(self, pieces: Sequence[T.Piece], timeout: float) -> bool:
        self._command(f"trajectory_memory.write_data({len(pieces)} Poly4D pieces, "
                      f"{T.duration(pieces):.2f} s)")
        self._pieces = list(pieces)
        return True

    def define_trajectory(self, trajectory_id: int, pieces: int) -> None:
        self._command(f"cf.high_level_commander.define_trajectory({trajectory_id}, 0, {pieces})")
        self._defined[trajectory_id] = self._pieces

    def start_trajectory(self, trajectory_id: int, timescale: float) -> None:
        self._command(f"cf.high_level_commander.start_trajectory({trajectory_id}, {timescale:g})")
        pieces = self._defined.get(trajectory_id)
        if pieces:
            self.position = T.position(pieces, T.duration(pieces))

    def stop(self) -> None:
        self._command("cf.high_level_commander.stop()")

    def emergency_stop(self) -> None:
        self._command("cf.supervisor.send_emergency_stop()")


class _FirstLines(logging.Handler):
    """cflib's warnings and errors as one line each (it logs tracebacks), to ``say``."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.say = say

    def emit(self, record: logging.LogRecord) -> None:
        lines = record.getMessage().strip().splitlines()
        self.say(f"cflib: {lines[0] if lines else record.levelname}")


class CflibLink(Link):
    """A Crazyflie over cflib (imported when the link opens); cflib's warnings and errors go to
    ``log``, one line each."""

    def __init__(self, settings: CrazyflieSettings,
                 log: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self._handler = _FirstLines(log or (lambda text: None))
        self._scf = None
        self._cf = None
        self._block = None
        self._sample: tuple[Vec | None, float | None, float] = (None, None, 0.0)
        self._lock = threading.Lock()

    def open(self) -> None:
        try:
            import cflib.crtp
            from cflib.crazyflie import Crazyflie
            from cflib.crazyflie.log import LogConfig
            from cflib.crazyflie.syncCrazyflie import SyncCrazyflie
        except ImportError as error:
            raise ImportError("the Crazyflie backend needs cflib: pip install "
                              f"'bdi_supervisor[crazyflie]' ({error})") from error
        cflib_log = logging.getLogger("cflib")
        if self._handler not in cflib_log.handlers:
            cflib_log.addHandler(self._handler)
            cflib_log.propagate = False
        if not _DRIVERS:  # cflib's init_drivers adds its drivers again on every call
            cflib.crtp.init_drivers()
            _DRIVERS.append(True)
        self._scf = SyncCrazyflie(self.settings.uri, cf=Crazyflie(rw_cache=None))
        opened = threading.Event()
        failure: list[Exception] = []

        def connect() -> None:
            try:
                self._scf.open_link()
            except Exception as error:  # cflib raises a bare Exception on a failed link
                failure.append(error)
            opened.set()

        threading.Thread(target=connect, daemon=True, name="cflib-connect").start()
        if not opened.wait(self.settings.connect_timeout_s):
            raise ConnectionError(f"no link to {self.settings.uri} within "
                                  f"{self.settings.connect_timeout_s:g} s")
        if failure:
            first = (str(failure[0]).strip().splitlines() or [type(failure[0]).__name__])[0]
            raise ConnectionError(f"no link to {self.settings.uri}: {first}")
        self._cf = self._scf.cf
        block = LogConfig("bdi_telemetry", self.settings.telemetry_period_ms)
        for name in TELEMETRY:
            block.add_variable(name, "float")
        self._cf.log.add_config(block)
        block.data_received_cb.add_callback(self._on_telemetry)
        block.start()
        self._block = block
        self.connected = True

    def _on_telemetry(self, timestamp, data, logconf) -> None:
        position = (float(data["stateEstimate.x"]), float(data["stateEstimate.y"]),
                    float(data["stateEstimate.z"]))
        with self._lock:
            self._sample = (position, float(data["pm.vbat"]), time.monotonic())

    def close(self) -> None:
        if self._block is not None:
            self._block.stop()
            self._block = None
        if self._scf is not None and self._scf.is_link_open():
            self._scf.close_link()
        self.connected = False

    def telemetry(self) -> tuple[Vec | None, float | None, float]:
        with self._lock:
            position, volts, stamp = self._sample
        if self._scf is None or not self._scf.is_link_open():
            self.connected = False
        age = time.monotonic() - stamp if position is not None else float("inf")
        return position, volts, age

    def arm(self, arm: bool) -> None:
        self._cf.supervisor.send_arming_request(arm)

    def takeoff(self, height: float, duration: float) -> None:
        self._cf.high_level_commander.takeoff(height, duration)

    def land(self, height: float, duration: float) -> None:
        self._cf.high_level_commander.land(height, duration)

    def go_to(self, goal: Vec, duration: float) -> None:
        self._cf.high_level_commander.go_to(goal[0], goal[1], goal[2], 0.0, duration)

    def write_trajectory(self, pieces: Sequence[T.Piece], timeout: float) -> bool:
        from cflib.crazyflie.mem import MemoryElement, Poly4D

        memories = self._cf.mem.get_mems(MemoryElement.TYPE_TRAJ)
        if not memories:
            return False
        memory = memories[0]
        memory.trajectory = [Poly4D(p.duration, Poly4D.Poly(list(p.x)), Poly4D.Poly(list(p.y)),
                                    Poly4D.Poly(list(p.z)), Poly4D.Poly(list(p.yaw)))
                             for p in pieces]
        done = threading.Event()
        outcome: list[bool] = []
        memory.write_data(lambda *_: (outcome.append(True), done.set()),
                          write_failed_cb=lambda *_: (outcome.append(False), done.set()))
        return done.wait(timeout) and outcome == [True]

    def define_trajectory(self, trajectory_id: int, pieces: int) -> None:
        self._cf.high_level_commander.define_trajectory(trajectory_id, 0, pieces)

    def start_trajectory(self, trajectory_id: int, timescale: float) -> None:
        self._cf.high_level_commander.start_trajectory(trajectory_id, timescale)

    def stop(self) -> None:
        self._cf.high_level_commander.stop()

    def emergency_stop(self) -> None:
        if self._cf is not None:
            self._cf.supervisor.send_emergency_stop()


class CrazyflieDrone:
    """A Crazyflie with the simulated drone's calls (see the module docstring)."""

    #: seconds between checks while a motion runs
    POLL = 0.02

    def __init__(self, course: GateCourse, profile: PlatformProfile, geofence: Geofence,
                 settings: CrazyflieSettings, link: Link | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.course = course
        self.profile = profile
        self.geofence = geofence
        self.settings = settings
        self.log: list[str] = []
        self._say = log or (lambda text: None)
        self.link = link or (DryRunLink(settings, course.pad, self._say) if settings.dry_run
                             else CflibLink(settings, self._say))
        self.trajectories: dict[int, Trajectory] = {}
        self.armed = False
        self.crashed = False  # the motors were stopped in flight (emergency stop)
        self.emergency: str | None = None  # why the motors were stopped (latched)
        self.loaded: int | None = None  # the trajectory id defined in the trajectory memory
        self.segments_flown: list[int] = []
        self._t0 = time.monotonic()
        self._flying = False
        self._last_position: Vec = course.pad

    # -- state ----------------------------------------------------------------------------------
    def open(self) -> None:
        self.link.open()

    def close(self) -> None:
        self.link.close()

    @property
    def clock(self) -> float:
        return time.monotonic() - self._t0

    @property
    def position(self) -> Vec:
        position, _, _ = self.link.telemetry()
        if position is not None:
            self._last_position = position
        return self._last_position

    @property
    def airborne(self) -> bool:
        """The motors run in flight: from a take-off command until a landing's stop or an
        emergency stop (a position estimate near the floor is no proof of being down)."""
        return self._flying and not self.crashed

    def snapshot(self) -> dict:
        position, volts, age = self.link.telemetry()
        p = position or self._last_position
        pct = 255 if volts is None else round(100 * min(max(
            (volts - EMPTY_V) / (FULL_V - EMPTY_V), 0.0), 1.0))
        return {"position": [round(x, 3) for x in p], "armed": self.armed,
                "airborne": self.airborne, "crashed": self.crashed, "clock": round(self.clock, 3),
                "segments_flown": list(self.segments_flown), "connected": self.link.connected,
                "battery_v": volts or 0.0, "battery_pct": pct,
                "warning": "" if age <= self.settings.telemetry_timeout_s else
                f"telemetry {age:.1f} s old"}

    def _result(self, call: str, code: int, message: str, started: float,
                **feedback) -> CallResult:
        self.log.append(f"{call}: {message}")
        return CallResult(call, code, message, round(time.monotonic() - started, 3),
                          self.position, feedback)

    # -- checks ---------------------------------------------------------------------------------
    def preflight(self) -> str | None:
        """Why the drone may not arm (link, telemetry, battery, geofence), else ``None``."""
        if not self.link.connected:
            return f"no link to {self.settings.uri}"
        position, volts, age = self.link.telemetry()
        if position is None or age > self.settings.telemetry_timeout_s:
            return "no telemetry from the Crazyflie"
        if volts is None:
            self._say("battery check skipped (dry run: no telemetry)")
        elif volts < self.settings.min_battery_v:
            return f"battery {volts:.2f} V is below {self.settings.min_battery_v:.2f} V"
        if not self.geofence.contains(position):
            return f"the drone is outside the geofence {self.geofence.describe()}"
        return None

    # -- the stack's calls ----------------------------------------------------------------------
    def arm(self, arm: bool = True) -> CallResult:
        started = time.monotonic()
        call = "arm" if arm else "disarm"
        if arm:
            why = self.preflight()
            if why is not None:
                return self._result(call, STATUS_CHECK_FAILED, why, started)
        elif self.airborne:
            return self._result(call, INVALID_GOAL, "refusing to disarm in flight", started)
        self.link.arm(arm)
        self.armed = arm
        return self._result(call, SUCCESS, "armed" if arm else "disarmed", started)

    def takeoff(self, height: float, duration: float,
                cancel: threading.Event | None = None) -> CallResult:
        started = time.monotonic()
        if not self.armed:
            return self._result("takeoff", START_FAILURE, "not armed", started)
        p = self.position
        self.link.takeoff(height, duration)
        self._flying = True
        return self._watch("takeoff", (p[0], p[1], height), duration, started, None)

    def plan(self, trajectory_id: int, start_frame: str, target_frame: str) -> CallResult:
        started = time.monotonic()
        segment = plan_segment(self.course, trajectory_id, start_frame, target_frame)
        if isinstance(segment, str):
            return self._result("plan", INVALID_GOAL, segment, started)
        self.trajectories[trajectory_id] = Trajectory(trajectory_id, segment)
        return self._result("plan", SUCCESS, f"planned {segment.name}", started)

    def upload(self, trajectory_id: int, pieces: Sequence[T.Piece] | None = None) -> CallResult:
        started = time.monotonic()
        traj = self.trajectories.get(trajectory_id)
        if traj is None or not pieces:
            return self._result("upload", UPLOAD_FAILURE,
                                f"trajectory {trajectory_id} not planned", started)
        if not self.link.write_trajectory(pieces, self.profile.upload_time_s + 5.0):
            return self._result("upload", UPLOAD_FAILURE, "writing the trajectory memory failed",
                                started)
        self.link.define_trajectory(trajectory_id, len(pieces))
        traj.uploaded, traj.pieces, self.loaded = True, tuple(pieces), trajectory_id
        return self._result("upload", SUCCESS, f"uploaded trajectory {trajectory_id}", started,
                            uploaded_pieces=len(pieces))

    def execute(self, trajectory_id: int, timescale: float = 1.0,
                cancel: threading.Event | None = None) -> CallResult:
        started = time.monotonic()
        traj = self.trajectories.get(trajectory_id)
        if traj is None or not traj.uploaded or self.loaded != trajectory_id:
            return self._result("execute", START_FAILURE,
                                f"trajectory {trajectory_id} is not the uploaded one", started)
        if not self.airborne:
            return self._result("execute", START_FAILURE, "not airborne", started)
        seg = traj.segment
        target = self.course.gates[seg.gate].center if seg.gate else seg.end
        end = T.position(traj.pieces, T.duration(traj.pieces))
        self.link.start_trajectory(trajectory_id, timescale)
        result = self._watch("execute", end, T.duration(traj.pieces) * timescale, started,
                             cancel, target)
        return judge_segment(result, seg, self.profile.gate_tolerance, self.segments_flown)

    def go_to(self, goal: Vec, duration: float = 0.0,
              cancel: threading.Event | None = None) -> CallResult:
        started = time.monotonic()
        if not self.airborne:
            return self._result("go_to", START_FAILURE, "not airborne", started)
        length = distance(self.position, goal)
        seconds = duration if duration > 0 else max(length / (0.5 * self.profile.cruise_speed),
                                                    1.0)
        self.link.go_to(goal, seconds)
        return self._watch("go_to", goal, seconds, started, cancel)

    def land(self, height: float = 0.0, duration: float | None = None,
             cancel: threading.Event | None = None) -> CallResult:
        started = time.monotonic()
        if not self.airborne:
            return self._result("land", SUCCESS, "already on the ground", started)
        seconds = duration or self.profile.land_duration
        p = self.position
        self.link.land(height, seconds)
        result = self._watch("land", (p[0], p[1], max(height, 0.0)), seconds, started, None)
        if result.ok:
            self.link.stop()  # the high-level commander turns the motors off
            self._flying = False
        return result

    def emergency_stop(self, reason: str) -> CallResult:
        started = time.monotonic()
        self.link.emergency_stop()
        if self.airborne:
            self.crashed = True
        self._flying = False
        self.armed = False
        self.emergency = self.emergency or reason
        return self._result("emergency_stop", SUCCESS, f"motors stopped ({reason})", started)

    # -- motion ---------------------------------------------------------------------------------
    def _watch(self, call: str, end: Vec, seconds: float, started: float,
               cancel: threading.Event | None, target: Vec | None = None) -> CallResult:
        """Wait for the motion commanded at ``started`` to reach ``end`` (see the module
        docstring for what ends it otherwise)."""
        budget = seconds + self.profile.timeout_slack_s
        closest = float("inf")
        while True:
            elapsed = time.monotonic() - started
            position, _, age = self.link.telemetry()
            if cancel is not None and cancel.is_set():
                self.link.go_to(self.position, 1.0)  # hold where it is
                return self._result(call, CANCELLED_CODE, "cancelled", started)
            if position is None or age > self.settings.telemetry_timeout_s:
                return self._result(call, ODOMETRY_UNAVAILABLE, f"telemetry {age:.1f} s old",
                                    started, min_distance_to_target=round(closest, 4))
            if target is not None:
                closest = min(closest, distance(position, target))
            if not self.geofence.contains(position, BREACH_MARGIN):
                self.emergency_stop(f"left the geofence {self.geofence.describe()}")
                return self._result(call, COMMANDER_FAILURE, "left the geofence: motors stopped",
                                    started, min_distance_to_target=round(closest, 4))
            due = elapsed >= seconds or not self.link.paced
            if due and distance(position, end) <= ARRIVAL_TOLERANCE:
                return self._result(call, SUCCESS, "reached", started,
                                    min_distance_to_target=round(closest, 4))
            if elapsed > budget:
                return self._result(call, TIMEOUT_CODE, f"no arrival within {budget:.1f} s",
                                    started, min_distance_to_target=round(closest, 4))
            time.sleep(self.POLL)
