"""Pose-feed dropouts (injection) and the pose-staleness watchdog.

A dropout window freezes the pose feed: the controller keeps receiving the last measurement.
Windows are given

- by mission time: ``{time: 12.0, duration: 1.0}`` (simulated seconds since the first action);
- by segment: ``{segment: 2, at: 0.3, duration: 1.0}`` (seconds into the execution of segment 2);
- seeded random: ``{random: {seed: 3, rate: 0.05, duration: [0.2, 1.0], horizon: 120}}``
  (a Poisson process of ``rate`` dropouts per simulated second, uniform durations; the same seed
  gives the same windows).

The watchdog turns a stale pose (older than the profile's limit) into a clean failure of the
running action, return code 2 ("odometry unavailable") of the drone stack, before the drone flies
blind for long enough to crash.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import non_negative_finite


@dataclass(frozen=True)
class DropoutWindow:
    start: float  # seconds: mission time, or time into the segment when ``segment`` is set
    duration: float
    segment: int | None = None

    def covers(self, t_mission: float, segment: int | None, t_segment: float) -> bool:
        if self.segment is None:
            return self.start <= t_mission < self.start + self.duration
        return segment == self.segment and self.start <= t_segment < self.start + self.duration


@dataclass(frozen=True)
class DropoutPlan:
    windows: tuple[DropoutWindow, ...] = ()

    @classmethod
    def by_time(cls, start: float, duration: float) -> DropoutPlan:
        return cls((DropoutWindow(start, duration),))

    @classmethod
    def by_segment(cls, segment: int, at: float, duration: float) -> DropoutPlan:
        return cls((DropoutWindow(at, duration, segment),))

    @classmethod
    def seeded_random(cls, seed: int, rate: float, duration: tuple[float, float] = (0.2, 1.0),
                      horizon: float = 120.0) -> DropoutPlan:
        """Poisson arrivals of ``rate`` per second over ``[0, horizon)``, uniform durations."""
        rng = random.Random(seed)
        windows = []
        t = 0.0
        while rate > 0:
            t += rng.expovariate(rate)
            if t >= horizon:
                break
            windows.append(DropoutWindow(round(t, 3), round(rng.uniform(*duration), 3)))
        return cls(tuple(windows))

    def __add__(self, other: DropoutPlan) -> DropoutPlan:
        return DropoutPlan(self.windows + other.windows)

    def stale(self, t_mission: float, segment: int | None, t_segment: float) -> bool:
        """True when the pose feed is frozen at this instant."""
        return any(w.covers(t_mission, segment, t_segment) for w in self.windows)


class PoseWatchdog:
    """Tracks the age of the pose feed; :meth:`tripped` once it exceeds ``limit`` seconds."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.last_fresh: float | None = None

    def update(self, t: float, fresh: bool) -> None:
        if fresh or self.last_fresh is None:
            self.last_fresh = t

    def age(self, t: float) -> float:
        return 0.0 if self.last_fresh is None else t - self.last_fresh

    def tripped(self, t: float) -> bool:
        return self.age(t) > self.limit + 1e-9


def parse_dropouts(entries: object, source: str | None = None,
                   key: str = "dropouts") -> DropoutPlan:
    """Build a plan from the mission's ``dropouts`` list (see module docstring)."""
    if entries is None:
        return DropoutPlan()
    if not isinstance(entries, list):
        raise InputError("dropouts must be a list", file=source, key=key,
                         found=type(entries).__name__, expected="list of mappings")
    plan = DropoutPlan()
    for index, entry in enumerate(entries):
        where = f"{key}[{index}]"
        if not isinstance(entry, dict):
            raise InputError("dropout entry must be a mapping", file=source, key=where,
                             found=type(entry).__name__, expected="mapping")
        if "random" in entry:
            _only(entry, {"random"}, source, where)
            spec = entry["random"]
            if not isinstance(spec, dict):
                raise InputError("random dropouts need a mapping", file=source,
                                 key=f"{where}.random", found=type(spec).__name__,
                                 expected="{seed, rate, duration, horizon}")
            _only(spec, {"seed", "rate", "duration", "horizon"}, source, f"{where}.random")
            seed = _number(spec, "seed", source, f"{where}.random", integer=True)
            rate = _number(spec, "rate", source, f"{where}.random")
            span = spec.get("duration", [0.2, 1.0])
            if (not isinstance(span, list) or len(span) != 2
                    or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in span)
                    or not 0 < span[0] <= span[1]):
                raise InputError("duration must be [min, max] seconds", file=source,
                                 key=f"{where}.random.duration", found=repr(span),
                                 expected="two numbers 0 < min <= max")
            horizon = float(spec.get("horizon", 120.0))
            plan += DropoutPlan.seeded_random(int(seed), float(rate),
                                              (float(span[0]), float(span[1])),
                                              horizon)
        elif "segment" in entry:
            _only(entry, {"segment", "at", "duration"}, source, where)
            segment = _number(entry, "segment", source, where, integer=True)
            if not 1 <= segment <= 5:
                raise InputError("segment out of range", file=source, key=f"{where}.segment",
                                 found=str(segment), expected="1..5")
            plan += DropoutPlan.by_segment(int(segment), float(entry.get("at", 0.0)),
                                           _number(entry, "duration", source, where))
        elif "time" in entry:
            _only(entry, {"time", "duration"}, source, where)
            plan += DropoutPlan.by_time(_number(entry, "time", source, where),
                                        _number(entry, "duration", source, where))
        else:
            raise InputError("dropout entry needs one of time, segment, random", file=source,
                             key=where, found=repr(sorted(entry)),
                             expected="{time, duration} | {segment, at, duration} | {random: ...}")
    return plan


def _only(entry: dict, allowed: set[str], source: str | None, where: str) -> None:
    extra = sorted(set(entry) - allowed, key=str)
    if extra:
        raise InputError("unknown key in dropout entry", file=source, key=f"{where}.{extra[0]}",
                         found=repr(extra[0]), expected=", ".join(sorted(allowed)))


def _number(entry: dict, name: str, source: str | None, where: str, integer: bool = False) -> float:
    if name not in entry:
        raise InputError("missing key", file=source, key=f"{where}.{name}",
                         expected="a number")
    value = entry[name]
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if not ok or not non_negative_finite(value):
        raise InputError("not a non-negative number", file=source, key=f"{where}.{name}",
                         found=repr(value), expected="non-negative integer" if integer else
                         "non-negative number")
    return value
