"""The drone a mission flies, opened for the drone node: simulated or a real Crazyflie.

:func:`open_vehicle` reads the mission's ``runner.quadcopter`` block (platform, seed, dropouts,
watchdog, geofence: :func:`~.sim.read_config`) and opens the vehicle of ``backend``: the
simulated drone on the kinematic model or RotorPy (:func:`~.sim.make_sim`), or a Crazyflie
through cflib (:class:`~.crazyflie.CrazyflieDrone`, which only flies the ``crazyflie``
platform; ``settings.dry_run`` opens no radio).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bdi_supervisor.domains.quadcopter.crazyflie import CrazyflieDrone, CrazyflieSettings
from bdi_supervisor.domains.quadcopter.geofence import Geofence
from bdi_supervisor.domains.quadcopter.server import Vehicle
from bdi_supervisor.domains.quadcopter.sim import BACKENDS as SIM_BACKENDS
from bdi_supervisor.domains.quadcopter.sim import make_sim, read_config
from bdi_supervisor.errors import InputError

BACKENDS = (*SIM_BACKENDS, "crazyflie")


@dataclass
class OpenedVehicle:
    vehicle: Vehicle
    geofence: Geofence
    backend: str
    describe: dict[str, Any]
    close: Callable[[], None] = field(default=lambda: None)


def mission_block(mission: Path) -> tuple[dict[str, Any], int, str]:
    """(the mission's ``runner.quadcopter`` block, its run seed, its file), validated."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.runtime.session import runner_config

    config = runner_config(load_mission(mission))
    if config.sim != "quadcopter":
        raise InputError("not a quadcopter mission", file=str(mission), key="runner.sim",
                         found=repr(config.sim), expected="quadcopter")
    return dict(config.quadcopter), config.seed, config.source or str(mission)


def open_vehicle(mission: Path, backend: str | None, settings: CrazyflieSettings,
                 log: Callable[[str], None] | None = None) -> OpenedVehicle:
    """The vehicle for ``mission`` on ``backend`` (``None``: the mission's own backend)."""
    block, seed, source = mission_block(mission)
    if backend is not None and backend not in BACKENDS:
        raise InputError("unknown drone backend", key="backend", found=repr(backend),
                         expected=", ".join(BACKENDS))
    if backend != "crazyflie":
        sim = make_sim(block, seed=seed, source=source, backend=backend)
        return OpenedVehicle(sim.drone, sim.geofence, sim.backend_name, sim.describe())
    config = read_config(block, seed=seed, source=source)
    if config.profile.name != "crazyflie":
        raise InputError("the crazyflie backend flies the crazyflie platform only", file=source,
                         key="runner.quadcopter.platform", found=repr(config.profile.name),
                         expected="crazyflie (or backend kinematic / rotorpy)")
    drone = CrazyflieDrone(config.course, config.profile, config.geofence, settings, log=log)
    try:
        drone.open()
    except (ConnectionError, ImportError) as error:
        raise InputError("cannot open the Crazyflie", key="uri", found=str(error),
                         expected="a Crazyflie answering at the uri (radio on, Crazyradio "
                                  "plugged in), or dry_run:=true") from None
    describe = {"backend": "crazyflie", "platform": config.profile.name, "uri": settings.uri,
                "dry_run": settings.dry_run, "min_battery_v": settings.min_battery_v}
    return OpenedVehicle(drone, config.geofence, "crazyflie", describe, drone.close)
