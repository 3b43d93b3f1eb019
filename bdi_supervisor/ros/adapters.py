"""Capability adapters that call ROS 2 services and actions (rclpy).

They implement the executor's adapter contract (:mod:`bdi_supervisor.runtime.adapters`:
``describe / start / poll / cancel``, ``poll`` returning ``None`` while running), so the embedded
executor drives a robot's ROS interfaces exactly as it drives a simulator. The node that owns them
must be spinning in another thread while the executor polls (the supervisor node does this).

Configuration: the ROS adapters file, read and validated without ROS by
:mod:`bdi_supervisor.runtime.adapter_config` (kinds, names, type names, timeouts, goal
statuses); here the interface types are imported from their ``pkg/srv|action/Name`` (only names
of that shape, never other user text) and the constant fields checked against them. Requests
and goals are built with ``check_fields=True`` (Jazzy's generated messages skip type checks by
default), so a mistyped constant fails at start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from action_msgs.msg import GoalStatus
from rclpy.action import ActionClient
from rclpy.node import Node

from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapter_config import AdapterSpec, parse_adapters
from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, Outcome

STATUS_NAMES = {GoalStatus.STATUS_SUCCEEDED: "succeeded", GoalStatus.STATUS_ABORTED: "aborted",
                GoalStatus.STATUS_CANCELED: "canceled"}


def import_interface(spec: AdapterSpec):
    """The generated class of the spec's ``pkg/srv/Name`` or ``pkg/action/Name``."""
    package, kind, name = spec.interface
    try:
        return getattr(importlib.import_module(f"{package}.{kind}"), name)
    except (ImportError, AttributeError):
        raise InputError("interface type not installed", file=spec.source,
                         key=f"{spec.where}.type", found=spec.type_name,
                         expected="an installed ROS 2 interface") from None


def _fill(message, values: Mapping[str, Any], where: str, source: str | None, strict: bool):
    fields = message.get_fields_and_field_types()
    for key, value in values.items():
        if key not in fields:
            if strict:
                raise InputError("no such field", file=source, key=f"{where}.{key}",
                                 found=key, expected="one of " + ", ".join(fields))
            continue
        try:
            setattr(message, key, value)
        except (TypeError, ValueError, AssertionError) as error:
            raise InputError("bad field value", file=source, key=f"{where}.{key}",
                             found=repr(value), expected=str(error)) from None
    return message


@dataclass
class ServiceAdapter:
    """One service call per activation; a bool field of the response decides the outcome."""

    node: Node
    capability: str
    name: str
    srv_type: Any
    request: Mapping[str, Any]
    success_field: str = "success"
    outcomes: tuple[str, str] = ("completed", "failure")
    timeout: float = 10.0
    source: str | None = None

    def __post_init__(self) -> None:
        self.client = self.node.create_client(self.srv_type, self.name)
        _fill(self.srv_type.Request(check_fields=True), self.request,
              f"adapters.{self.capability}.request",
              self.source, strict=True)
        if self.success_field not in self.srv_type.Response.get_fields_and_field_types():
            raise InputError("response has no such field", file=self.source,
                             key=f"adapters.{self.capability}.success_field",
                             found=self.success_field, expected="a bool field of the response")

    def describe(self) -> AdapterInfo:
        return AdapterInfo(f"ros_service:{self.name}", self.outcomes, self.timeout)

    def start(self, activation: Activation):
        if not self.client.wait_for_service(timeout_sec=min(2.0, self.timeout)):
            raise RuntimeError(f"service {self.name} not available")
        request = _fill(self.srv_type.Request(check_fields=True), self.request, "request",
                        self.source, True)
        _fill(request, activation.parameters, "parameters", self.source, strict=False)
        return self.client.call_async(request)

    def poll(self, future) -> Outcome | None:
        if not future.done():
            return None
        response = future.result()
        ok = bool(getattr(response, self.success_field))
        message = str(getattr(response, "message", ""))
        return Outcome(self.outcomes[0] if ok else self.outcomes[1],
                       f"service {self.name}: {self.success_field}={ok}",
                       detail={"message": message} if message else {})

    def cancel(self, future) -> None:
        future.cancel()


@dataclass
class ActionAdapter:
    """One action goal per activation; the terminal goal status decides the outcome."""

    node: Node
    capability: str
    name: str
    action_type: Any
    goal: Mapping[str, Any]
    status_outcomes: Mapping[str, str]
    timeout: float = 60.0
    source: str | None = None

    def __post_init__(self) -> None:
        where = f"adapters.{self.capability}"
        _fill(self.action_type.Goal(check_fields=True), self.goal, f"{where}.goal", self.source,
              strict=True)
        self.client = ActionClient(self.node, self.action_type, self.name)

    def describe(self) -> AdapterInfo:
        outcomes = tuple(dict.fromkeys(self.status_outcomes.values()))
        return AdapterInfo(f"ros_action:{self.name}", outcomes, self.timeout)

    def start(self, activation: Activation) -> dict[str, Any]:
        if not self.client.wait_for_server(timeout_sec=min(2.0, self.timeout)):
            raise RuntimeError(f"action server {self.name} not available")
        goal = _fill(self.action_type.Goal(check_fields=True), self.goal, "goal", self.source, True)
        _fill(goal, activation.parameters, "parameters", self.source, strict=False)
        return {"goal": self.client.send_goal_async(goal), "result": None, "handle": None}

    def poll(self, handle: dict[str, Any]) -> Outcome | None:
        if handle["result"] is None:
            if not handle["goal"].done():
                return None
            goal_handle = handle["goal"].result()
            if not goal_handle.accepted:
                return Outcome(self._outcome("aborted"), f"action {self.name}: goal rejected",
                               "rejected")
            handle["handle"] = goal_handle
            handle["result"] = goal_handle.get_result_async()
        if not handle["result"].done():
            return None
        status = STATUS_NAMES.get(handle["result"].result().status, "aborted")
        return Outcome(self._outcome(status), f"action {self.name}: {status}", status)

    def cancel(self, handle: dict[str, Any]) -> None:
        if handle.get("handle") is not None:
            handle["handle"].cancel_goal_async()
        else:
            handle["goal"].cancel()

    def _outcome(self, status: str) -> str:
        failure = next((o for o in self.status_outcomes.values() if o != "completed"), "failure")
        return self.status_outcomes.get(status, failure)


def create_adapters(node: Node, specs: Mapping[str, AdapterSpec]
                    ) -> dict[str, ServiceAdapter | ActionAdapter]:
    """Adapters owned by ``node`` for validated specs (interface types imported here)."""
    adapters: dict[str, ServiceAdapter | ActionAdapter] = {}
    for capability, spec in specs.items():
        interface = import_interface(spec)
        if spec.kind == "service":
            adapters[capability] = ServiceAdapter(
                node, capability, spec.name, interface, spec.constants, spec.success_field,
                timeout=spec.timeout, source=spec.source)
        else:
            adapters[capability] = ActionAdapter(
                node, capability, spec.name, interface, spec.constants, spec.status_outcomes,
                spec.timeout, spec.source)
    return adapters


def build_adapters(node: Node, config: Mapping[str, Any], source: str | None = None
                   ) -> dict[str, ServiceAdapter | ActionAdapter]:
    """Adapters for every capability of ``config`` (the ``adapters`` mapping)."""
    return create_adapters(node, parse_adapters(config, source))
