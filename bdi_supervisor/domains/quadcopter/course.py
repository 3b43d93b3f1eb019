"""Geometry of the four-gate course: gates A–D on a ring, five segments, safe retreat points.

Layout of the CNU drone stack's default course (``serc_bag``): gate frames at (±3, 0) and
(0, ±3), opening centres on a ring of radius 2.5 m, lower opening centred 1.0 m above the floor.
Each gate is two posts one pipe length (1.0 m) apart *along the radius* with crossbars at 0.5,
1.5 and 2.5 m, so the drone passes a gate flying tangentially along the ring. Start and end are
the same landing pad on the ring halfway between gates D and A, clear of every gate.

Segments (index, start → end): 1 start→A, 2 A→B, 3 B→C, 4 C→D, 5 D→end. Every path is an arc
on the ring at the flight altitude, sampled as waypoints.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

Vec = tuple[float, float, float]

#: gate names in flight order with the angle (degrees) of their opening centre on the ring
GATE_ANGLES: dict[str, float] = {"A": 0.0, "B": 90.0, "C": 180.0, "D": 270.0}


@dataclass(frozen=True)
class Box:
    """Axis-aligned box ``[x0, x1] × [y0, y1] × [z0, z1]``."""

    lo: Vec
    hi: Vec

    def distance(self, p: Vec) -> float:
        """Euclidean distance from ``p`` to the box (0 inside)."""
        lo, hi = self.lo, self.hi
        dx = max(lo[0] - p[0], 0.0, p[0] - hi[0])
        dy = max(lo[1] - p[1], 0.0, p[1] - hi[1])
        dz = max(lo[2] - p[2], 0.0, p[2] - hi[2])
        return math.sqrt(dx * dx + dy * dy + dz * dz)

    def extents(self) -> list[float]:
        """``[xmin, xmax, ymin, ymax, zmin, zmax]`` (RotorPy's block format)."""
        return [self.lo[0], self.hi[0], self.lo[1], self.hi[1], self.lo[2], self.hi[2]]


@dataclass(frozen=True)
class Gate:
    name: str
    angle_deg: float
    center: Vec  # centre of the lower opening (the flight target)
    boxes: tuple[Box, ...]  # posts and crossbars

    @property
    def radial(self) -> tuple[float, float]:
        a = math.radians(self.angle_deg)
        return (math.cos(a), math.sin(a))

    @property
    def tangent(self) -> tuple[float, float]:
        a = math.radians(self.angle_deg)
        return (-math.sin(a), math.cos(a))

    def plane_distance(self, p: Vec) -> float:
        """Distance of ``p`` from the gate's plane (the plane holding both posts)."""
        t = self.tangent
        return abs((p[0] - self.center[0]) * t[0] + (p[1] - self.center[1]) * t[1])

    def clearance(self, p: Vec) -> float:
        """Distance from ``p`` to the nearest part of the gate frame."""
        return min(box.distance(p) for box in self.boxes)


@dataclass(frozen=True)
class Segment:
    index: int  # 1..5
    name: str  # e.g. "A->B"
    start: Vec
    end: Vec
    gate: str | None  # gate the segment ends in (None for the last segment)
    waypoints: tuple[Vec, ...]

    def length(self) -> float:
        return sum(_dist(a, b) for a, b in zip(self.waypoints, self.waypoints[1:]))


@dataclass(frozen=True)
class GateCourse:
    """The course: ring radius, opening height, gate frame size, start pad and derived data."""

    radius: float = 2.5
    altitude: float = 1.0  # flight altitude = lower opening centre
    pipe_length: float = 1.0  # post spacing and opening height
    base: float = 0.5  # height of the lowest crossbar
    bar: float = 0.05  # thickness of posts and crossbars
    pad_angle_deg: float = 315.0  # start / end pad, halfway between D and A
    retreat_radius_factor: float = 0.6  # safe points lie on a ring of 0.6 × radius
    gate_exit_distance: float = 0.7  # how far out of a gate plane a retreat moves first
    world_extents: tuple[float, ...] = (-4.0, 4.0, -4.0, 4.0, -0.2, 3.0)
    gates: dict[str, Gate] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        gates = {name: self._make_gate(name, angle) for name, angle in GATE_ANGLES.items()}
        object.__setattr__(self, "gates", gates)

    # -- geometry -------------------------------------------------------------------------------
    def _make_gate(self, name: str, angle_deg: float) -> Gate:
        a = math.radians(angle_deg)
        r_dir = (math.cos(a), math.sin(a))
        center = (self.radius * r_dir[0], self.radius * r_dir[1], self.altitude)
        half = self.pipe_length / 2.0
        h = self.bar / 2.0
        top = self.base + 2 * self.pipe_length
        boxes: list[Box] = []
        # two posts on the radius, one pipe length apart
        for offset in (-half, half):
            px, py = center[0] + offset * r_dir[0], center[1] + offset * r_dir[1]
            boxes.append(Box((px - h, py - h, 0.0), (px + h, py + h, top)))
        # three crossbars spanning between the posts
        p0 = (center[0] - half * r_dir[0], center[1] - half * r_dir[1])
        p1 = (center[0] + half * r_dir[0], center[1] + half * r_dir[1])
        for z in (self.base, self.base + self.pipe_length, top):
            boxes.append(Box((min(p0[0], p1[0]) - h, min(p0[1], p1[1]) - h, z - h),
                             (max(p0[0], p1[0]) + h, max(p0[1], p1[1]) + h, z + h)))
        return Gate(name, angle_deg, center, tuple(boxes))

    def ring_point(self, angle_deg: float, z: float | None = None,
                   radius: float | None = None) -> Vec:
        a = math.radians(angle_deg)
        r = self.radius if radius is None else radius
        return (r * math.cos(a), r * math.sin(a), self.altitude if z is None else z)

    @property
    def pad(self) -> Vec:
        """The start / end pad on the floor."""
        return self.ring_point(self.pad_angle_deg, z=0.0)

    def blocks(self) -> list[Box]:
        return [box for gate in self.gates.values() for box in gate.boxes]

    def clearance(self, p: Vec) -> float:
        """Distance from ``p`` to the nearest gate part."""
        return min(gate.clearance(p) for gate in self.gates.values())

    def nearest_gate(self, p: Vec) -> Gate:
        return min(self.gates.values(), key=lambda g: _dist(g.center, p))

    # -- segments -------------------------------------------------------------------------------
    def segments(self, step_deg: float = 5.0) -> list[Segment]:
        """The five segments start→A→B→C→D→end as ring arcs at flight altitude."""
        names = ["start", *GATE_ANGLES, "end"]
        angles = [self.pad_angle_deg - 360.0, *GATE_ANGLES.values(), self.pad_angle_deg]
        result = []
        for i in range(5):
            a0, a1 = angles[i], angles[i + 1]
            n = max(2, math.ceil(abs(a1 - a0) / step_deg))
            pts = tuple(self.ring_point(a0 + (a1 - a0) * k / n) for k in range(n + 1))
            gate = names[i + 1] if names[i + 1] in GATE_ANGLES else None
            result.append(Segment(i + 1, f"{names[i]}->{names[i + 1]}", pts[0], pts[-1], gate, pts))
        return result

    def segment(self, index: int) -> Segment:
        if not 1 <= index <= 5:
            raise ValueError(f"segment index must be 1..5, got {index}")
        return self.segments()[index - 1]

    # -- recovery -------------------------------------------------------------------------------
    def retreat_path(self, p: Vec) -> list[Vec]:
        """Waypoints from ``p`` to a safe landing point: out of the nearest gate plane along the
        ring first (a straight radial move would hit a post), then inward to the safe ring."""
        gate = self.nearest_gate(p)
        path = [p]
        angle = math.degrees(math.atan2(p[1], p[0]))
        if gate.plane_distance(p) < self.gate_exit_distance:
            t = gate.tangent
            side = (p[0] - gate.center[0]) * t[0] + (p[1] - gate.center[1]) * t[1]
            sign = 1.0 if side >= 0 else -1.0
            r_now = max(math.hypot(p[0], p[1]), 1e-6)
            exit_angle = gate.angle_deg + sign * math.degrees(self.gate_exit_distance / r_now) * 1.2
            path.append(self.ring_point(exit_angle, z=p[2], radius=r_now))
            angle = exit_angle
        path.append(self.ring_point(angle, z=p[2], radius=self.retreat_radius_factor * self.radius))
        return path

    def landing_blocked(self, p: Vec, margin: float = 0.1) -> Gate | None:
        """The gate whose frame a vertical descent from ``p`` would hit, if any."""
        for gate in self.gates.values():
            for box in gate.boxes:
                if box.hi[2] < p[2] and all(
                    box.lo[k] - margin <= p[k] <= box.hi[k] + margin for k in (0, 1)
                ):
                    return gate
        return None


def _dist(a: Vec, b: Vec) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def path_length(points: list[Vec] | tuple[Vec, ...]) -> float:
    return sum(_dist(a, b) for a, b in itertools.pairwise(points))


def interpolate(points: list[Vec] | tuple[Vec, ...], s: float) -> Vec:
    """Point at arc length ``s`` along the polyline (clamped to its ends)."""
    if s <= 0:
        return points[0]
    for a, b in itertools.pairwise(points):
        d = _dist(a, b)
        if s <= d and d > 0:
            f = s / d
            return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2]))
        s -= d
    return points[-1]


distance = _dist
