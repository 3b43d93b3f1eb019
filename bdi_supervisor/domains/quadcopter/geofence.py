"""The geofence: the box the drone may fly in, from the mission.

A mission's quadcopter block may give it as ``geofence: {min: [x, y, z], max: [x, y, z]}``
(metres, the course frame); without one it is the course's world bounds. The drone server
(:mod:`.server`) refuses any goal, trajectory or take-off height outside it before a command is
sent; the Crazyflie backend also watches the drone's estimated position during every motion and
stops the motors when it leaves the box by more than :data:`BREACH_MARGIN`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bdi_supervisor.domains.quadcopter.course import GateCourse, Vec
from bdi_supervisor.errors import InputError

#: metres beyond the fence at which a flying drone counts as having left it (tracking error)
BREACH_MARGIN = 0.1


@dataclass(frozen=True)
class Geofence:
    lo: Vec
    hi: Vec

    def contains(self, p: Vec, margin: float = 0.0) -> bool:
        return all(self.lo[k] - margin <= p[k] <= self.hi[k] + margin for k in range(3))

    def first_outside(self, points: Iterable[Vec]) -> Vec | None:
        """The first of ``points`` outside the fence, else ``None``."""
        return next((p for p in points if not self.contains(p)), None)

    def describe(self) -> str:
        return f"[{_fmt(self.lo)} .. {_fmt(self.hi)}]"


def _fmt(p: Vec) -> str:
    return "(" + ", ".join(f"{x:g}" for x in p) + ")"


def course_fence(course: GateCourse) -> Geofence:
    """The default fence: the course's world bounds."""
    e = course.world_extents
    return Geofence((e[0], e[2], e[4]), (e[1], e[3], e[5]))


def parse_geofence(value: object, course: GateCourse, source: str | None = None,
                   key: str = "geofence") -> Geofence:
    """The mission's ``geofence`` block (``None``: the course's bounds)."""
    if value is None:
        return course_fence(course)
    expected = "{min: [x, y, z], max: [x, y, z]} with min < max on every axis"
    if not isinstance(value, Mapping) or set(value) != {"min", "max"}:
        raise InputError("geofence must give min and max corners", file=source, key=key,
                         found=repr(value), expected=expected)
    corners = []
    for name in ("min", "max"):
        corner = value[name]
        if (not isinstance(corner, list) or len(corner) != 3
                or not all(isinstance(x, int | float) and not isinstance(x, bool)
                           and math.isfinite(x) for x in corner)):
            raise InputError("geofence corner must be three numbers", file=source,
                             key=f"{key}.{name}", found=repr(corner), expected="[x, y, z]")
        corners.append(tuple(float(x) for x in corner))
    lo, hi = corners
    if not all(a < b for a, b in zip(lo, hi)):
        raise InputError("geofence min must be below max on every axis", file=source, key=key,
                         found=repr(value), expected=expected)
    fence = Geofence(lo, hi)
    if not fence.contains(course.pad):
        raise InputError("geofence does not contain the start pad", file=source, key=key,
                         found=fence.describe(), expected=f"a box around {_fmt(course.pad)}")
    return fence
