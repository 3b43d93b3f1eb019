"""Load a PyRoboSim world headless, seeded and fast, and shut it down cleanly.

:func:`open_world` reads a PyRoboSim world YAML (``config/worlds/logistics.yaml``), applies a
mission's overrides (storage and hallway door states, locks, per-action execution options), seeds
``numpy``'s global generator (path planners, pose sampling) and every ``ExecutionOptions`` rng,
drops sensors and sensor threads (a lidar thread keeps the process alive), and yields a
:class:`SimWorld`. The world is always shut down on exit. :meth:`SimWorld.snapshot` is the ground
truth the run record shows beside the executor's beliefs.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.yamlsource import load_yaml

#: PyRoboSim action names that take execution options
ACTIONS = ("navigate", "pick", "place", "detect", "open", "close")


@dataclass
class SimWorld:
    """A loaded world and its (single) robot."""

    world: Any
    robot: Any
    seed: int

    def snapshot(self) -> dict[str, Any]:
        """Ground truth: object parents, door states, robot location and held object."""
        robot = self.robot
        return {
            "objects": {o.name: o.parent.name for o in self.world.objects
                        if o is not robot.manipulated_object},
            "holding": robot.manipulated_object.name if robot.manipulated_object else None,
            "robot_at": robot.location.name if robot.location is not None else None,
            "open": {loc.name: bool(loc.is_open) for loc in self.world.locations
                     if loc.category in ("storage", "trashcan_large")}
                    | {h.name: bool(h.is_open) for h in self.world.hallways},
            "locked": sorted(e.name for e in [*self.world.locations, *self.world.hallways]
                             if e.is_locked),
        }

    def after_door(self, result: Any) -> None:
        """After a successful open/close of a hallway, rebuild the path planner's occupancy grid
        (A* keeps the grid it built at start-up and would plan through a closed door)."""
        if result.is_success() and type(self.robot.location).__name__ == "Hallway":
            self.robot.reset_path_planner()

    def object_parent(self, name: str) -> str | None:
        obj = self.world.get_object_by_name(name)
        if obj is None:
            return None
        return obj.parent.name if obj.parent is not None else None


def _quiet() -> None:
    """PyRoboSim logs every action at INFO; keep the executor's own timeline readable."""
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("pyrobosim") or name in ("robot", "world"):
            logging.getLogger(name).setLevel(logging.WARNING)


def load_world_dict(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    data = load_yaml(path).data
    if not isinstance(data, dict) or "rooms" not in data:
        raise InputError("not a PyRoboSim world", file=str(path), key="rooms",
                         expected="a world YAML with rooms, hallways, locations, objects")
    return data


def apply_overrides(data: dict[str, Any], overrides: Mapping[str, Any], seed: int,
                    source: str | None = None) -> dict[str, Any]:
    """A copy of a world dict with the mission's overrides applied.

    ``overrides`` keys: ``open`` / ``locked`` (``{location_or_hallway: bool}``; hallways are named
    ``hall_<roomA>_<roomB>`` with the rooms in alphabetical order) and ``options``
    (``{action: {success_probability, battery_usage}}``). Every rng is seeded from ``seed``.
    """
    data = copy.deepcopy(data)
    known = {"open", "locked", "options"}
    for key in overrides:
        if key not in known:
            raise InputError("unknown world override", file=source, key=f"runner.world.{key}",
                             found=key, expected=", ".join(sorted(known)))
    entities = {loc["name"]: loc for loc in data.get("locations", [])}
    for hall in data.get("hallways", []):
        a, b = sorted((hall["room_start"], hall["room_end"]))
        entities[f"hall_{a}_{b}"] = hall
    for flag, field in (("open", "is_open"), ("locked", "is_locked")):
        for name, value in (overrides.get(flag) or {}).items():
            if name not in entities:
                raise InputError("unknown location or hallway", file=source,
                                 key=f"runner.world.{flag}.{name}", found=name,
                                 expected=", ".join(sorted(entities)))
            entities[name][field] = bool(value)
    robots = data.get("robots") or []
    if len(robots) != 1:
        raise InputError("the logistics executor drives exactly one robot", file=source,
                         key="robots", found=str(len(robots)), expected="1")
    robot = robots[0]
    robot.pop("sensors", None)
    robot["start_sensor_threads"] = False
    options = copy.deepcopy(robot.get("action_execution_options") or {})
    for action, values in (overrides.get("options") or {}).items():
        if action not in ACTIONS:
            raise InputError("unknown PyRoboSim action", file=source,
                             key=f"runner.world.options.{action}", found=action,
                             expected=", ".join(ACTIONS))
        options.setdefault(action, {}).update(values)
    for index, action in enumerate(sorted(options)):
        options[action]["rng_seed"] = seed * 101 + index
        options[action]["delay"] = 0.0  # delay sleeps real time even at realtime_factor -1
    robot["action_execution_options"] = options
    return data


@contextmanager
def open_world(path: str | Path, *, seed: int = 0,
               overrides: Mapping[str, Any] | None = None,
               source: str | None = None) -> Iterator[SimWorld]:
    """Load, seed and yield a world; always shut it down afterwards."""
    import numpy as np
    from pyrobosim.core import WorldYamlLoader

    path = Path(path)
    data = apply_overrides(load_world_dict(path), overrides or {}, seed, source)
    np.random.seed(seed)
    world = WorldYamlLoader().from_yaml(data, world_dir=path.parent)
    _quiet()
    try:
        yield SimWorld(world, world.robots[0], seed)
    finally:
        world.shutdown()
