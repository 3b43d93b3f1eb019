"""The ``quadcopter`` simulator: one drone on the gate course, its adapters and ground truth.

Configured from a mission's quadcopter runner block::

    platform: pihawk            # crazyflie | pihawk (profiles.py)
    backend: kinematic          # kinematic (default, no dependencies) | rotorpy
    watchdog: true              # pose-staleness watchdog (default true)
    profile: {staleness_limit_s: 0.3}   # overrides of profile fields
    dropouts:                   # pose-feed dropout injection (dropout.py)
      - {segment: 2, at: 0.3, duration: 1.0}
    seed: 7                     # RotorPy noise seed (default: the run's seed, else 0)
    geofence: {min: [-3, -3, 0], max: [3, 3, 2]}   # default: the course's bounds (geofence.py)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.domains.quadcopter.adapters import DroneAdapter, build_adapters
from bdi_supervisor.domains.quadcopter.course import GateCourse
from bdi_supervisor.domains.quadcopter.drone import SimDrone
from bdi_supervisor.domains.quadcopter.dropout import DropoutPlan, parse_dropouts
from bdi_supervisor.domains.quadcopter.geofence import Geofence, parse_geofence
from bdi_supervisor.domains.quadcopter.kinematic import KinematicBackend
from bdi_supervisor.domains.quadcopter.profiles import PlatformProfile, profile
from bdi_supervisor.errors import InputError

CONFIG_KEYS = ("platform", "backend", "watchdog", "profile", "dropouts", "seed", "geofence")
BACKENDS = ("kinematic", "rotorpy")
#: wall-clock deadline per activation (the simulated-time deadlines are the profile's)
WALL_TIMEOUT = {"kinematic": 10.0, "rotorpy": 120.0}


@dataclass
class QuadcopterSim:
    course: GateCourse
    profile: PlatformProfile
    drone: SimDrone
    backend_name: str
    dropouts: DropoutPlan
    watchdog: bool
    seed: int
    geofence: Geofence

    def adapters(self, catalog: Catalog, capabilities: list[str] | None = None,
                 source: str | None = None) -> dict[str, DroneAdapter]:
        return build_adapters(catalog, self.drone, capabilities, WALL_TIMEOUT[self.backend_name],
                              source, synchronous=self.backend_name == "kinematic")

    def ground_truth(self) -> dict[str, Any]:
        """The simulator's view for the BDI record (compared with the executor's beliefs)."""
        return {"sim": "quadcopter", "backend": self.backend_name, "platform": self.profile.name,
                **self.drone.snapshot(), "log": list(self.drone.log)}

    def describe(self) -> dict[str, Any]:
        return {"sim": "quadcopter", "backend": self.backend_name, "platform": self.profile.name,
                "pose_source": self.profile.pose_source, "watchdog": self.watchdog,
                "staleness_limit_s": self.profile.staleness_limit_s, "seed": self.seed,
                "dropouts": [w.__dict__ for w in self.dropouts.windows]}


@dataclass(frozen=True)
class DroneConfig:
    """A mission's quadcopter block, validated (see the module docstring)."""

    profile: PlatformProfile
    backend: str
    watchdog: bool
    seed: int
    dropouts: DropoutPlan
    course: GateCourse
    geofence: Geofence


def read_config(config: Mapping[str, Any] | None = None, *, seed: int | None = None,
                source: str | None = None, key: str = "runner.quadcopter",
                course: GateCourse | None = None) -> DroneConfig:
    """Validate a runner block; a wrong key or value is an :class:`InputError` naming it."""
    config = dict(config or {})
    for name in config:
        if name not in CONFIG_KEYS:
            raise InputError("unknown quadcopter runner key", file=source, key=f"{key}.{name}",
                             found=repr(name), expected=", ".join(CONFIG_KEYS))
    overrides = config.get("profile") or {}
    if not isinstance(overrides, Mapping):
        raise InputError("profile overrides must be a mapping", file=source, key=f"{key}.profile",
                         found=type(overrides).__name__, expected="mapping of profile fields")
    prof = profile(str(config.get("platform", "crazyflie")), dict(overrides), source,
                   f"{key}.platform" if not overrides else f"{key}.profile")
    backend_name = config.get("backend", "kinematic")
    if backend_name not in BACKENDS:
        raise InputError("unknown quadcopter backend", file=source, key=f"{key}.backend",
                         found=repr(backend_name), expected=" or ".join(BACKENDS))
    watchdog = config.get("watchdog", True)
    if not isinstance(watchdog, bool):
        raise InputError("watchdog must be true or false", file=source, key=f"{key}.watchdog",
                         found=repr(watchdog), expected="true or false")
    run_seed = config.get("seed", seed if seed is not None else 0)
    if not isinstance(run_seed, int) or isinstance(run_seed, bool):
        raise InputError("seed must be an integer", file=source, key=f"{key}.seed",
                         found=repr(run_seed), expected="integer")
    dropouts = parse_dropouts(config.get("dropouts"), source, f"{key}.dropouts")
    course = course or GateCourse()
    fence = parse_geofence(config.get("geofence"), course, source, f"{key}.geofence")
    return DroneConfig(prof, backend_name, watchdog, run_seed, dropouts, course, fence)


def make_sim(config: Mapping[str, Any] | None = None, *, seed: int | None = None,
             source: str | None = None, key: str = "runner.quadcopter",
             course: GateCourse | None = None, backend: str | None = None) -> QuadcopterSim:
    """Build the simulator from a runner block (see the module docstring); ``backend``
    overrides the block's."""
    c = read_config(config, seed=seed, source=source, key=key, course=course)
    backend_name = backend or c.backend
    if backend_name not in BACKENDS:
        raise InputError("unknown quadcopter backend", key="backend", found=repr(backend_name),
                         expected=" or ".join(BACKENDS))
    if backend_name == "rotorpy":
        from bdi_supervisor.domains.quadcopter.rotorpy_backend import RotorPyBackend

        motion = RotorPyBackend(c.course, c.profile, c.dropouts, c.watchdog, c.seed)
    else:
        motion = KinematicBackend(c.course, c.profile, c.dropouts, c.watchdog)
    drone = SimDrone(c.course, c.profile, motion)
    return QuadcopterSim(c.course, c.profile, drone, backend_name, c.dropouts, c.watchdog,
                         c.seed, c.geofence)
