"""Executor adapters for the quadcopter capabilities (one per capability, one shared drone).

A capability is bound by its interface class (the last part of its name): ``ArmState`` (``arm``:
true/false), ``TakeoffState``, ``PlanTrajectoryState``, ``UploadTrajectoryState``,
``ExecuteTrajectoryState``, ``GoToState`` (``target: clear_of_gate``), ``LandState`` and FlexBE's
``LogState``. Each activation is one blocking :class:`~.drone.SimDrone` call on the adapter's
worker thread; :meth:`DroneAdapter.interrupt` sets the cancel flag the motion checks every step.

The outcome is the normalized outcome of the FlexBE outcome the drone state would report
(``done`` / ``failed`` / ``timeout`` / ``canceled`` through the catalog's mappings); ``detail``
keeps the stack's return code and its name, the message, the simulated duration and mission
clock, the final position and the action feedback (closest approach to the gate, pose age).
Failures caused by an injected pose dropout are marked ``forced`` with layer ``injection``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from bdi_supervisor.catalog.interfaces import state_class
from bdi_supervisor.catalog.model import COMPLETED, Capability, Catalog
from bdi_supervisor.domains.quadcopter.drone import CallResult, SimDrone
from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapters import (
    Activation,
    AdapterInfo,
    BlockingAdapter,
    Outcome,
    failure_outcome,
)

Call = Callable[[SimDrone, Mapping[str, Any], threading.Event], CallResult]


def _param(params: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """A parameter of the activation (durations and timeouts come from the platform profile)."""
    if name in params:
        return params[name]
    if default is None:
        raise ValueError(f"missing parameter '{name}'")
    return default


def _arm(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.arm(bool(_param(p, "arm", True)))


def _takeoff(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.takeoff(float(_param(p, "height", drone.profile.takeoff_height)),
                         drone.profile.takeoff_duration, cancel)


def _plan(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.plan(int(_param(p, "trajectory_id")), str(_param(p, "start_frame")),
                      str(_param(p, "target_frame")))


def _upload(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.upload(int(_param(p, "trajectory_id")))


def _execute(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.execute(int(_param(p, "trajectory_id")), float(_param(p, "timescale", 1.0)),
                         cancel)


def _go_to(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    target = _param(p, "target")
    if target != "clear_of_gate":
        raise ValueError(f"unsupported go_to target {target!r} (supported: clear_of_gate)")
    return drone.go_to_clear(cancel)


def _land(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.land(float(p.get("height", 0.0)), drone.profile.land_duration, cancel)


def _log(drone: SimDrone, p: Mapping[str, Any], cancel: threading.Event) -> CallResult:
    return drone.write_log(str(_param(p, "text", "")))


#: interface class → (adapter kind, drone call)
CALLS: dict[str, tuple[str, Call]] = {
    "ArmState": ("arm", _arm),
    "TakeoffState": ("takeoff", _takeoff),
    "PlanTrajectoryState": ("plan_trajectory", _plan),
    "UploadTrajectoryState": ("upload_trajectory", _upload),
    "ExecuteTrajectoryState": ("execute_trajectory", _execute),
    "GoToState": ("go_to", _go_to),
    "LandState": ("land", _land),
    "LogState": ("log", _log),
}


class DroneAdapter(BlockingAdapter):
    """One capability on the shared simulated drone.

    ``synchronous``: run the call inside :meth:`start` (the kinematic model answers in
    milliseconds of wall time and bounds every motion by its simulated-time budget); otherwise it
    runs on the worker thread and the executor's wall-clock deadline can cancel it.
    """

    def __init__(self, capability: Capability, drone: SimDrone, kind: str, call: Call,
                 timeout: float, mappings: Mapping[str, str] | None = None,
                 synchronous: bool = False) -> None:
        super().__init__()
        self.synchronous = synchronous
        self.capability = capability
        self.mappings = dict(mappings or {})  # FlexBE outcome -> normalized, after the capability's
        self.drone = drone
        self.call = call
        self.info = AdapterInfo(f"quadcopter.{kind}", tuple(capability.outcomes), timeout)
        self._cancel = threading.Event()

    def run(self, activation: Activation) -> Outcome:
        self._cancel.clear()
        result = self.call(self.drone, activation.parameters, self._cancel)
        return self.outcome(result)

    def interrupt(self) -> None:
        self._cancel.set()

    def start(self, activation: Activation) -> Any:
        if self.synchronous:
            return ("done", self.run(activation))
        return super().start(activation)

    def poll(self, handle: Any) -> Outcome | None:
        if isinstance(handle, tuple) and handle[0] == "done":
            return handle[1]
        return super().poll(handle)

    def cancel(self, handle: Any) -> None:
        if not (isinstance(handle, tuple) and handle[0] == "done"):
            super().cancel(handle)

    def outcome(self, result: CallResult) -> Outcome:
        """Normalize a drone call result for the strategy; keep the rest for the record."""
        cap = self.capability
        flexbe = result.outcome
        normalized = cap.flexbe_outcomes.get(flexbe) or self.mappings.get(flexbe)
        if normalized not in cap.outcomes:
            normalized = COMPLETED if result.ok else failure_outcome(cap.outcomes) or ""
        dropout = not result.ok and result.feedback.get("max_pose_age", 0.0) > 0.0
        detail = {"return_code": result.return_code, "code": result.code_name,
                  "call": result.call, "sim_duration": result.duration,
                  "clock": round(self.drone.clock, 3),
                  "position": [round(x, 3) for x in result.position], **result.feedback}
        if dropout:
            detail["pose_dropout"] = True
        return Outcome(normalized, result.message, flexbe, detail, forced=dropout,
                       layer="injection" if dropout else None)


def build_adapters(catalog: Catalog, drone: SimDrone, capabilities: list[str] | None = None,
                   timeout: float = 10.0, source: str | None = None,
                   synchronous: bool = False) -> dict[str, DroneAdapter]:
    """Adapters for ``capabilities`` (default: all of the catalog), bound by interface class."""
    adapters = {}
    for name in capabilities or sorted(catalog.capabilities):
        cap = catalog.capabilities[name]
        cls = state_class(cap.interface)
        if cls not in CALLS:
            raise InputError(f"capability '{name}' has an interface the quadcopter simulator "
                             "cannot run", file=source, key=f"capabilities.{name}.interface",
                             found=cap.interface, expected=", ".join(sorted(CALLS)))
        kind, call = CALLS[cls]
        adapters[name] = DroneAdapter(cap, drone, kind, call, timeout,
                                      catalog.state_outcome_mappings, synchronous)
    return adapters
