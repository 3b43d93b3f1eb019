"""Seeded failures injected into PyRoboSim itself, shared by the embedded runner's adapters
(:mod:`.adapters`) and the ROS world node (:mod:`.served`).

:class:`FailureInjector` decides, per action call, whether the call fails (a mission's
``runner.inject``: seeded probabilities and scripted call numbers per action); :func:`injected`
makes it fail physically: the action's ``ExecutionOptions`` are swapped for
``success_probability=0`` (PyRoboSim reports EXECUTION_FAILURE and nothing in the world changes)
or, for open/close, the location is locked for the call (PRECONDITION_FAILURE). The world
therefore always agrees with the reported outcome.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.domains.pyrobosim.world import ACTIONS, SimWorld
from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import non_negative_finite


@dataclass
class FailureInjector:
    """Decides, per action call, whether to inject a failure into the simulator.

    ``probabilities`` (per action, seeded by ``seed``) and ``script`` (per action, the 1-based call
    numbers that fail) may be combined; ``method`` per action is ``options`` (default) or ``lock``
    (open/close only: lock the location for the call).
    """

    seed: int = 0
    probabilities: dict[str, float] = field(default_factory=dict)
    script: dict[str, tuple[int, ...]] = field(default_factory=dict)
    method: dict[str, str] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        for action in {*self.probabilities, *self.script, *self.method}:
            if action not in ACTIONS:
                raise InputError("unknown PyRoboSim action for failure injection",
                                 key=f"runner.inject.{action}", found=action,
                                 expected=", ".join(ACTIONS))
        for action, how in self.method.items():
            if how not in ("options", "lock") or (how == "lock"
                                                  and action not in ("open", "close")):
                raise InputError("bad injection method", key=f"runner.inject.{action}.method",
                                 found=how, expected="options, or lock for open/close")

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None, seed: int,
                    source: str | None = None) -> FailureInjector:
        """From a mission's ``runner.inject`` block: ``{action: {probability, calls, method}}``."""
        probabilities, script, method = {}, {}, {}
        for action, spec in (config or {}).items():
            if not isinstance(spec, Mapping):
                raise InputError("injection must be a mapping", file=source,
                                 key=f"runner.inject.{action}", found=repr(spec),
                                 expected="{probability: p, calls: [n, ...], method: options|lock}")
            unknown = set(spec) - {"probability", "calls", "method"}
            if unknown:
                raise InputError("unknown injection key", file=source,
                                 key=f"runner.inject.{action}",
                                 found=", ".join(sorted(map(str, unknown))),
                                 expected="probability, calls, method")
            if "probability" in spec:
                value = spec["probability"]
                if not non_negative_finite(value) or value > 1:
                    raise InputError("not a probability", file=source,
                                     key=f"runner.inject.{action}.probability",
                                     found=repr(value), expected="a number from 0 to 1")
                probabilities[action] = float(value)
            if "calls" in spec:
                calls = spec["calls"]
                if not isinstance(calls, list) or not all(
                        isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in calls):
                    raise InputError("not a list of call numbers", file=source,
                                     key=f"runner.inject.{action}.calls", found=repr(calls)[:80],
                                     expected="a list of integers >= 1")
                script[action] = tuple(calls)
            if "method" in spec:
                method[action] = str(spec["method"])
        try:
            return cls(seed, probabilities, script, method)
        except InputError as error:
            raise error.at(file=source) from None

    def decide(self, action: str) -> str | None:
        """Count this call; return the injection method if it must fail, else ``None``."""
        n = self.calls.get(action, 0) + 1
        self.calls[action] = n
        draw = self._rng.random()  # drawn every call so the sequence only depends on the seed
        if n in self.script.get(action, ()) or draw < self.probabilities.get(action, 0.0):
            return self.method.get(action, "options")
        return None


@contextmanager
def injected(sim: SimWorld, action: str, method: str | None) -> Iterator[None]:
    """Make the ``action`` call run inside this block fail by ``method`` (``None``: untouched);
    the world is restored afterwards."""
    if method is None:
        yield
    elif method == "lock":
        with _locked(sim, _door_entity(sim)):
            yield
    else:
        with _failing_options(sim.robot, action):
            yield


@contextmanager
def _locked(sim: SimWorld, location: Any) -> Iterator[None]:
    was_locked = bool(location is not None and location.is_locked)
    if location is not None and not was_locked:
        sim.world.lock_location(location)
    try:
        yield
    finally:
        if location is not None and not was_locked:
            sim.world.unlock_location(location)


@contextmanager
def _failing_options(robot: Any, action: str) -> Iterator[None]:
    from pyrobosim.planning.actions import ExecutionOptions

    saved = robot.action_execution_options.get(action)
    robot.action_execution_options[action] = ExecutionOptions(success_probability=0.0,
                                                              rng_seed=0)
    try:
        yield
    finally:
        if saved is None:
            robot.action_execution_options.pop(action, None)
        else:
            robot.action_execution_options[action] = saved


def _door_entity(sim: SimWorld) -> Any:
    """What open/close act on: the robot's location, or the location of its object spawn."""
    location = sim.robot.location
    if type(location).__name__ == "ObjectSpawn":
        return location.parent
    return location
