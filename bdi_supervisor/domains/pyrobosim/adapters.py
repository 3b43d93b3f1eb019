"""PyRoboSim capability adapters: navigate, pick, place, open, close, detect.

Each adapter runs one PyRoboSim action on a worker thread (``realtime_factor=-1``: as fast as
possible) and maps PyRoboSim's ``ExecutionResult`` to a normalized outcome, keeping the status name,
message and the FlexBE outcome a workshop state would have reported (navigate: ``done``,
``planning_failed``, ``motion_failed``, ``canceled``; the others ``done`` / ``failed``) in the
record.

Failure injection is physical (:class:`FailureInjector`): before the call, the action's
``ExecutionOptions`` are swapped for ``success_probability=0`` (EXECUTION_FAILURE, nothing in the
world changes) or, for open/close, the location is locked for the call (PRECONDITION_FAILURE). The
world therefore always agrees with the reported outcome; injected outcomes are marked ``forced``
with layer ``injection``. After an open/close of a hallway the path planner is reset (A*'s occupancy
grid is not rebuilt when doors change).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.catalog.interfaces import state_class
from bdi_supervisor.domains.pyrobosim.world import ACTIONS, SimWorld
from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import non_negative_finite
from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, BlockingAdapter, Outcome

#: parameter names each action reads (first present wins)
TARGET_KEYS = ("target_location", "target", "location")
OBJECT_KEYS = ("object", "item", "target_object")


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


class PyRoboSimAdapter(BlockingAdapter):
    """One PyRoboSim action as a capability adapter."""

    action = "navigate"

    def __init__(self, sim: SimWorld, *, injector: FailureInjector | None = None,
                 outcomes: tuple[str, str] = ("completed", "failure"),
                 timeout: float = 10.0, realtime_factor: float = -1.0) -> None:
        super().__init__()
        self.sim = sim
        self.injector = injector
        self.completed, self.failure = outcomes
        self.info = AdapterInfo(f"pyrobosim.{self.action}", tuple(outcomes), timeout)
        self.realtime_factor = realtime_factor
        self._lock = threading.Lock()

    # -- the action ---------------------------------------------------------------------------
    def execute(self, params: Mapping[str, Any]) -> Any:
        """Run the PyRoboSim call; returns its ExecutionResult."""
        raise NotImplementedError

    def flexbe_outcome(self, status_name: str) -> str:
        return "done" if status_name == "SUCCESS" else "failed"

    # -- contract ------------------------------------------------------------------------------
    def run(self, activation: Activation) -> Outcome:
        injected = self.injector.decide(self.action) if self.injector else None
        with self._lock, self._inject(injected):
            result = self.execute(activation.parameters)
        status = result.status.name
        success = status == "SUCCESS"
        return Outcome(
            self.completed if success else self.failure,
            reason="" if success else f"{status}: {result.message or ''}".rstrip(": "),
            flexbe_outcome=self.flexbe_outcome(status),
            detail={"status": status, "message": result.message or "", "action": self.action},
            forced=injected is not None,
            layer="injection" if injected is not None else None,
        )

    def interrupt(self) -> None:
        robot = self.sim.robot
        if robot.is_busy():
            robot.cancel_actions()

    @contextmanager
    def _inject(self, method: str | None):
        if method is None:
            yield
            return
        robot = self.sim.robot
        if method == "lock":
            location = self._door_entity()
            was_locked = bool(location is not None and location.is_locked)
            if location is not None and not was_locked:
                self.sim.world.lock_location(location)
            try:
                yield
            finally:
                if location is not None and not was_locked:
                    self.sim.world.unlock_location(location)
            return
        from pyrobosim.planning.actions import ExecutionOptions

        saved = robot.action_execution_options.get(self.action)
        robot.action_execution_options[self.action] = ExecutionOptions(success_probability=0.0,
                                                                        rng_seed=0)
        try:
            yield
        finally:
            if saved is None:
                robot.action_execution_options.pop(self.action, None)
            else:
                robot.action_execution_options[self.action] = saved

    def _door_entity(self) -> Any:
        location = self.sim.robot.location
        if type(location).__name__ == "ObjectSpawn":
            return location.parent
        return location


def _param(params: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in params and params[key] not in (None, "None", ""):
            return params[key]
    return None


class NavigateAdapter(PyRoboSimAdapter):
    action = "navigate"

    def execute(self, params: Mapping[str, Any]) -> Any:
        target = _param(params, TARGET_KEYS)
        if target is None:
            raise ValueError("navigate needs a target_location parameter")
        return self.sim.robot.navigate(goal=str(target), realtime_factor=self.realtime_factor)

    def flexbe_outcome(self, status_name: str) -> str:
        return {"SUCCESS": "done", "PRECONDITION_FAILURE": "planning_failed",
                "PLANNING_FAILURE": "planning_failed", "EXECUTION_FAILURE": "motion_failed",
                "CANCELED": "canceled"}.get(status_name, "failed")


class PickAdapter(PyRoboSimAdapter):
    action = "pick"

    def execute(self, params: Mapping[str, Any]) -> Any:
        obj = _param(params, OBJECT_KEYS)
        return self.sim.robot.pick_object(None if obj is None else str(obj))


class PlaceAdapter(PyRoboSimAdapter):
    action = "place"

    def execute(self, params: Mapping[str, Any]) -> Any:
        return self.sim.robot.place_object()


class _DoorAdapter(PyRoboSimAdapter):
    """Open/close the robot's current location, or ``target`` after navigating to it."""

    def execute(self, params: Mapping[str, Any]) -> Any:
        robot = self.sim.robot
        target = _param(params, TARGET_KEYS)
        if target is not None and not self._at(str(target)):
            moved = robot.navigate(goal=str(target), realtime_factor=self.realtime_factor)
            if not moved.is_success():
                return moved
        result = robot.open_location() if self.action == "open" else robot.close_location()
        if result.is_success() and robot.location.__class__.__name__ == "Hallway":
            robot.reset_path_planner()
        return result

    def _at(self, target: str) -> bool:
        location = self.sim.robot.location
        names = set()
        while location is not None:
            names.add(getattr(location, "name", None))
            location = getattr(location, "parent", None)
        return target in names


class OpenAdapter(_DoorAdapter):
    action = "open"


class CloseAdapter(_DoorAdapter):
    action = "close"


class DetectAdapter(PyRoboSimAdapter):
    action = "detect"

    def execute(self, params: Mapping[str, Any]) -> Any:
        obj = _param(params, OBJECT_KEYS)
        return self.sim.robot.detect_objects(None if obj is None else str(obj))


#: adapter kinds (``adapters.<cap>.type`` in a mission, or derived from the interface)
KINDS: dict[str, type[PyRoboSimAdapter]] = {
    "navigate": NavigateAdapter, "pick": PickAdapter, "place": PlaceAdapter,
    "open": OpenAdapter, "close": CloseAdapter, "detect": DetectAdapter,
}

#: FlexBE state interfaces of the ROSCon 2024 PyRoboSim states → adapter kind
INTERFACE_KINDS: dict[str, str] = {
    "NavigateActionState": "navigate", "PickActionState": "pick", "PlaceActionState": "place",
    "DetectObjectsState": "detect",
}


def kind_for(interface: str, parameters: Mapping[str, Any]) -> str | None:
    """The adapter kind for a capability interface (DoorActionState by its ``action_type``)."""
    name = state_class(interface)
    if name == "DoorActionState":
        return "close" if str(parameters.get("action_type", "open")) == "close" else "open"
    return INTERFACE_KINDS.get(name)
