"""PyRoboSim capability adapters: navigate, pick, place, open, close, detect.

Each adapter runs one PyRoboSim action on a worker thread (``realtime_factor=-1``: as fast as
possible) and maps PyRoboSim's ``ExecutionResult`` to a normalized outcome, keeping the status name,
message and the FlexBE outcome the project's PyRoboSim state would have reported
(:func:`.outcomes.flexbe_outcome`) in the record.

Failure injection is physical (:mod:`.injection`, shared with the ROS world node): the action's
``ExecutionOptions`` fail the call, or a door is locked for it, so the world always agrees with
the reported outcome; injected outcomes are marked ``forced`` with layer ``injection``. After an
open/close of a hallway the path planner is reset (:meth:`.world.SimWorld.after_door`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from bdi_supervisor.catalog.interfaces import state_class
from bdi_supervisor.domains.pyrobosim.injection import FailureInjector, injected
from bdi_supervisor.domains.pyrobosim.outcomes import flexbe_outcome
from bdi_supervisor.domains.pyrobosim.world import SimWorld
from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, BlockingAdapter, Outcome

#: parameter names each action reads (first present wins)
TARGET_KEYS = ("target_location", "target", "location")
OBJECT_KEYS = ("object", "item", "target_object")


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

    # -- contract ------------------------------------------------------------------------------
    def run(self, activation: Activation) -> Outcome:
        method = self.injector.decide(self.action) if self.injector else None
        with self._lock, injected(self.sim, self.action, method):
            result = self.execute(activation.parameters)
        status = result.status.name
        success = status == "SUCCESS"
        return Outcome(
            self.completed if success else self.failure,
            reason="" if success else f"{status}: {result.message or ''}".rstrip(": "),
            flexbe_outcome=flexbe_outcome(self.action, status),
            detail={"status": status, "message": result.message or "", "action": self.action},
            forced=method is not None,
            layer="injection" if method is not None else None,
        )

    def interrupt(self) -> None:
        robot = self.sim.robot
        if robot.is_busy():
            robot.cancel_actions()


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
        self.sim.after_door(result)
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

#: FlexBE state classes → adapter kind: the project's PyRoboSim states
#: (``bdi_flexbe_states.pyrobosim``) and the ROSCon 2024 workshop's (``pyrobosim_flexbe_states``)
INTERFACE_KINDS: dict[str, str] = {
    "NavigateState": "navigate", "PickState": "pick", "PlaceState": "place",
    "NavigateActionState": "navigate", "PickActionState": "pick", "PlaceActionState": "place",
    "DetectObjectsState": "detect",
}
#: door states: the kind is their ``action_type`` parameter (open or close)
DOOR_STATES = ("DoorState", "DoorActionState")


def kind_for(interface: str, parameters: Mapping[str, Any]) -> str | None:
    """The adapter kind for a capability interface (a door state by its ``action_type``)."""
    name = state_class(interface)
    if name in DOOR_STATES:
        return "close" if str(parameters.get("action_type", "open")) == "close" else "open"
    return INTERFACE_KINDS.get(name)
