"""RotorPy backend: rigid-body quadrotor dynamics, SE(3) control, min-snap trajectories, gate
frames as collision blocks, and a motion-capture pose feed that the dropout plan can freeze.

Headless and seeded: every :meth:`RotorPyBackend.fly` call reseeds numpy's global generator from
``(seed, call number)``, so a run is reproducible whatever else used numpy in between. Each
motion is one ``rotorpy.simulate`` call at 100 Hz chained from the previous final state; the
controller flies on the (possibly frozen) mocap measurement. A custom ``terminate`` callback
implements completion (the trajectory's end reached and settled), cancellation, the closest
approach to the target, and the pose watchdog.

RotorPy is an optional dependency (``pip install bdi_supervisor[rotorpy]``); importing this
module without it raises :class:`ImportError` with that hint.
"""

from __future__ import annotations

import copy
import logging

from bdi_supervisor.domains.quadcopter.backend import (
    CANCELLED,
    COLLISION,
    COMPLETE,
    ODOM_FAILURE,
    TIMEOUT,
    Motion,
    MotionResult,
)
from bdi_supervisor.domains.quadcopter.course import GateCourse, Vec, distance, path_length
from bdi_supervisor.domains.quadcopter.dropout import DropoutPlan, PoseWatchdog
from bdi_supervisor.domains.quadcopter.profiles import PlatformProfile

try:
    import numpy as np
    from rotorpy.controllers.quadrotor_control import SE3Control
    from rotorpy.estimators.nullestimator import NullEstimator
    from rotorpy.sensors.external_mocap import MotionCapture
    from rotorpy.sensors.imu import Imu
    from rotorpy.simulate import ExitStatus, simulate
    from rotorpy.trajectories.minsnap import MinSnap
    from rotorpy.vehicles.multirotor import Multirotor
    from rotorpy.wind.default_winds import NoWind
    from rotorpy.world import World
except ImportError as error:  # pragma: no cover - exercised only without rotorpy
    raise ImportError(
        "the RotorPy backend needs rotorpy: pip install 'bdi_supervisor[rotorpy]' "
        f"(rotorpy==3.0.0); {error}"
    ) from error

STEP = 0.01  # s (100 Hz)
SETTLE_POSITION = 0.08  # m: completion when this close to the end point ...
SETTLE_SPEED = 0.15  # m/s: ... and this slow, after the trajectory's duration
MAX_WAYPOINTS = 6

log = logging.getLogger(__name__)


def _params(name: str) -> dict:
    if name == "crazyflie":
        from rotorpy.vehicles.crazyflie_params import quad_params
    elif name == "hummingbird":
        from rotorpy.vehicles.hummingbird_params import quad_params
    else:
        raise ValueError(f"unknown RotorPy airframe {name!r}")
    return quad_params


class _FreezableMocap(MotionCapture):
    """Mocap whose position and velocity freeze while the dropout plan says the feed is stale."""

    def __init__(self, rate_hz: float, plan: DropoutPlan) -> None:
        super().__init__(sampling_rate=rate_hz, with_artifacts=False)
        self.plan = plan
        self.t_mission = 0.0
        self.segment: int | None = None
        self.calls = 0
        self.last: dict | None = None
        self.fresh = True

    def start(self, t_mission: float, segment: int | None) -> None:
        self.t_mission, self.segment, self.calls = t_mission, segment, 0

    def measurement(self, state, with_noise=False, with_artifacts=False):
        t = self.calls * STEP
        self.calls += 1
        self.fresh = not self.plan.stale(self.t_mission + t, self.segment, t) or self.last is None
        current = super().measurement(state, with_noise=with_noise, with_artifacts=False)
        if self.fresh:
            self.last = current
        # attitude and body rates come from the onboard IMU and stay live; only the
        # externally tracked position and velocity freeze
        return {**current, "x": copy.deepcopy(self.last["x"]), "v": copy.deepcopy(self.last["v"])}


class RotorPyBackend:
    name = "rotorpy"

    def __init__(self, course: GateCourse, profile: PlatformProfile,
                 dropouts: DropoutPlan | None = None, watchdog: bool = True, seed: int = 0) -> None:
        self.course = course
        self.profile = profile
        self.watchdog_enabled = watchdog
        self.seed = seed
        self.calls = 0
        params = _params(profile.rotorpy_params)
        self.vehicle = Multirotor(params)
        self.controller = SE3Control(params)
        self.hover_speeds = self.vehicle.initial_state["rotor_speeds"]
        self.world = World({
            "bounds": {"extents": list(course.world_extents)},
            "blocks": [{"extents": b.extents(), "color": [0.8, 0.4, 0.1]} for b in course.blocks()],
        })
        self.mocap = _FreezableMocap(profile.pose_rate_hz, dropouts or DropoutPlan())
        self.imu = Imu(sampling_rate=int(1 / STEP))
        self.state = self._rest_state(course.pad)

    def _rest_state(self, p: Vec) -> dict:
        return {"x": np.array(p, dtype=float), "v": np.zeros(3),
                "q": np.array([0.0, 0.0, 0.0, 1.0]),
                "w": np.zeros(3), "wind": np.zeros(3), "rotor_speeds": np.array(self.hover_speeds)}

    def position(self) -> Vec:
        return tuple(float(x) for x in self.state["x"])

    def reset(self, position: Vec) -> None:
        self.state = self._rest_state(position)

    def fly(self, motion: Motion, t_mission: float, target: Vec | None = None) -> MotionResult:
        self.calls += 1
        np.random.seed((self.seed * 1_000_003 + self.calls) % (2**32))
        start = self.position()
        points = [start, *motion.waypoints[1:]]
        points = _thin(points, MAX_WAYPOINTS)
        if path_length(points) < 0.05:
            return MotionResult(COMPLETE, 0.0, start, distance(start, target) if target else
                                float("inf"), 0.0, "already there")
        trajectory = MinSnap(np.array(points), v_avg=max(motion.speed, 0.05), verbose=False)
        duration = float(trajectory.t_keyframes[-1])
        end = np.array(points[-1])
        watchdog = PoseWatchdog(self.profile.staleness_limit_s)
        track = {"min": distance(start, target) if target else float("inf"), "age": 0.0,
                 "why": None}
        self.mocap.start(t_mission, motion.segment)

        def terminate(t, state):
            now = t_mission + t
            watchdog.update(now, self.mocap.fresh)
            age = watchdog.age(now)
            track["age"] = max(track["age"], age)
            if target is not None:
                track["min"] = min(track["min"], float(np.linalg.norm(state["x"] - target)))
            if motion.cancel is not None and motion.cancel.is_set():
                track["why"] = CANCELLED
                return CANCELLED
            if self.watchdog_enabled and watchdog.tripped(now):
                track["why"] = ODOM_FAILURE
                return ODOM_FAILURE
            if (t >= duration and np.linalg.norm(state["x"] - end) < SETTLE_POSITION
                    and np.linalg.norm(state["v"]) < SETTLE_SPEED):
                return ExitStatus.COMPLETE
            return None

        result = simulate(self.world, self.state, self.vehicle, self.controller, trajectory,
                          NoWind(), self.imu, self.mocap, NullEstimator(), t_final=motion.budget_s,
                          t_step=STEP, safety_margin=self.profile.radius, use_mocap=True,
                          terminate=terminate)
        times, states, exit_status = result[0], result[1], result[8]
        final = {k: np.array(v[-1]) for k, v in states.items()}
        self.state = final
        elapsed = float(times[-1])
        p = self.position()
        if exit_status == ExitStatus.COMPLETE:
            status, message = COMPLETE, "reached"
        elif exit_status == CANCELLED:
            status, message = CANCELLED, "cancelled"
        elif exit_status == ODOM_FAILURE:
            status = ODOM_FAILURE
            message = (f"pose stale for {track['age']:.2f} s (limit "
                       f"{self.profile.staleness_limit_s:.2f} s)")
        elif exit_status == ExitStatus.TIMEOUT:
            status, message = TIMEOUT, f"no completion within {motion.budget_s:.1f} s"
        else:
            status, message = COLLISION, exit_status.name.lower() + ": " + exit_status.value
        if motion.kind == "land" and status == COMPLETE:
            self.state = self._rest_state((p[0], p[1], 0.0))  # motors off on the pad
            p = self.position()
        return MotionResult(status, round(elapsed, 6), p, track["min"], track["age"], message,
                            len(times))


def _thin(points: list[Vec], limit: int) -> list[Vec]:
    """Keep the ends and evenly spaced interior points (min-snap needs few keyframes)."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]
