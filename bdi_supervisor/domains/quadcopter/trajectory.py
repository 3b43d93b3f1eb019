"""Piecewise-polynomial trajectories in the format the drone stack uploads.

A trajectory is a list of :class:`Piece`: a duration and, per axis (x, y, z, yaw), the eight
coefficients of a polynomial in the time since the piece began, lowest power first. That is the
layout of ``flexible_drones_msgs/TrajectoryPolynomialPiece`` and of the Crazyflie's high-level
commander (cflib's ``Poly4D``: degree 7, eight coefficients per axis), so one trajectory goes
unchanged from the planner to the ROS interface to a Crazyflie's trajectory memory.

:func:`through` builds one through a polyline: a cubic Hermite piece between consecutive points,
continuous in position and velocity, at rest at both ends (the drone hovers before and after
each segment) and at ``speed`` in between, along the direction from the previous point to the
next. The first and last pieces take twice their length over ``speed`` (a linear speed ramp),
the inner pieces their length over ``speed``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from bdi_supervisor.domains.quadcopter.course import Vec, distance

#: coefficients per axis (degree 7, the Crazyflie's Poly4D)
COEFFICIENTS = 8
#: pieces a Crazyflie's trajectory memory holds (4 KiB / 132 bytes per Poly4D piece)
MAX_PIECES = 31


@dataclass(frozen=True)
class Piece:
    """One polynomial piece: ``duration`` seconds; per axis, coefficients of t^0..t^7."""

    duration: float
    x: tuple[float, ...]
    y: tuple[float, ...]
    z: tuple[float, ...]
    yaw: tuple[float, ...] = (0.0,) * COEFFICIENTS

    def at(self, t: float) -> Vec:
        """Position at ``t`` seconds into the piece (clamped to the piece)."""
        t = min(max(t, 0.0), self.duration)
        return (_poly(self.x, t), _poly(self.y, t), _poly(self.z, t))

    def velocity(self, t: float) -> Vec:
        t = min(max(t, 0.0), self.duration)
        return (_dpoly(self.x, t), _dpoly(self.y, t), _dpoly(self.z, t))


def _poly(coefficients: Sequence[float], t: float) -> float:
    value = 0.0
    for c in reversed(coefficients):
        value = value * t + c
    return value


def _dpoly(coefficients: Sequence[float], t: float) -> float:
    value = 0.0
    for power in range(len(coefficients) - 1, 0, -1):
        value = value * t + power * coefficients[power]
    return value


def _hermite(p0: float, p1: float, v0: float, v1: float, duration: float) -> tuple[float, ...]:
    """Coefficients of the cubic from (p0, v0) at 0 to (p1, v1) at ``duration``, padded to 8."""
    d = duration
    a2 = (3.0 * (p1 - p0) / d - 2.0 * v0 - v1) / d
    a3 = (2.0 * (p0 - p1) / d + v0 + v1) / (d * d)
    return (p0, v0, a2, a3) + (0.0,) * (COEFFICIENTS - 4)


def through(points: Sequence[Vec], speed: float) -> list[Piece]:
    """Pieces through ``points`` (at least two, consecutive points apart) at ``speed`` m/s."""
    if len(points) < 2:
        raise ValueError("a trajectory needs at least two points")
    if not speed > 0:
        raise ValueError(f"speed must be > 0, got {speed}")
    lengths = [distance(a, b) for a, b in itertools.pairwise(points)]
    if min(lengths) <= 1e-9:
        raise ValueError("consecutive trajectory points coincide")
    last = len(points) - 1
    velocities = []
    for i in range(len(points)):
        if i in (0, last):
            velocities.append((0.0, 0.0, 0.0))
            continue
        chord = [b - a for a, b in zip(points[i - 1], points[i + 1])]
        norm = math.sqrt(sum(c * c for c in chord))
        velocities.append(tuple(speed * c / norm for c in chord) if norm > 0 else (0.0,) * 3)
    pieces = []
    for i, length in enumerate(lengths):
        ramp = 2.0 if i in (0, last - 1) else 1.0
        duration = ramp * length / speed
        axes = [_hermite(points[i][k], points[i + 1][k], velocities[i][k], velocities[i + 1][k],
                         duration) for k in range(3)]
        pieces.append(Piece(duration, *axes))
    return pieces


def duration(pieces: Sequence[Piece]) -> float:
    return sum(p.duration for p in pieces)


def position(pieces: Sequence[Piece], t: float) -> Vec:
    """Position ``t`` seconds into the trajectory (clamped to its ends)."""
    if not pieces:
        raise ValueError("empty trajectory")
    for piece in pieces:
        if t <= piece.duration:
            return piece.at(t)
        t -= piece.duration
    return pieces[-1].at(pieces[-1].duration)


def sample(pieces: Sequence[Piece], step: float = 0.1) -> list[Vec]:
    """Positions every ``step`` seconds, the end point included."""
    total = duration(pieces)
    count = max(1, math.ceil(total / step))
    return [position(pieces, total * k / count) for k in range(count + 1)]


def check(pieces: Sequence[Piece]) -> str | None:
    """Why ``pieces`` is not a trajectory the drone can fly (``None`` when it is)."""
    if not pieces:
        return "no pieces"
    if len(pieces) > MAX_PIECES:
        return f"{len(pieces)} pieces (at most {MAX_PIECES})"
    for index, piece in enumerate(pieces):
        if not (math.isfinite(piece.duration) and piece.duration > 0):
            return f"piece {index}: duration {piece.duration!r} is not > 0"
        for axis in (piece.x, piece.y, piece.z, piece.yaw):
            if len(axis) != COEFFICIENTS or not all(math.isfinite(c) for c in axis):
                return f"piece {index}: needs {COEFFICIENTS} finite coefficients per axis"
    return None
