"""Capability adapters that call ROS 2 services and actions (rclpy).

They implement the executor's adapter contract (:mod:`bdi_supervisor.runtime.adapters`:
``describe / start / poll / cancel``, ``poll`` returning ``None`` while running), so the embedded
executor drives a robot's ROS interfaces exactly as it drives a simulator. The node that owns them
must be spinning in another thread while the executor polls (the supervisor node does this).

Configuration, per capability (a mapping, from the supervisor node's ``adapters`` YAML file)::

    bd:
      kind: service                # std_srvs/srv/Trigger-like: a bool field decides
      name: /coffee/button
      type: std_srvs/srv/Trigger
      request: {}                  # constant request fields
      success_field: success       # true -> completed, false -> failure (the defaults)
      timeout: 5.0                 # deadline of one activation, seconds
    br:
      kind: action
      name: /coffee/brew
      type: test_msgs/action/Fibonacci
      goal: {order: 3}             # constant goal fields; activation parameters whose names are
                                   # goal fields are set too
      outcomes: {succeeded: completed, aborted: failure, canceled: failure}

Interface types are imported from their ``pkg/srv|action/Name`` by module path only after the
name is checked against ``^[a-z][a-z0-9_]*/(srv|action)/[A-Z][A-Za-z0-9]*$`` (no user text is
evaluated). Requests and goals are built with ``check_fields=True`` (Jazzy's generated
messages skip type checks by default), so a mistyped constant fails at start-up.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from action_msgs.msg import GoalStatus
from rclpy.action import ActionClient
from rclpy.node import Node

from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, Outcome

_TYPE = re.compile(r"^(?P<pkg>[a-z][a-z0-9_]*)/(?P<kind>srv|action)/(?P<name>[A-Z][A-Za-z0-9]*)$")
_NAME = re.compile(r"^~?/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$")

STATUS_NAMES = {GoalStatus.STATUS_SUCCEEDED: "succeeded", GoalStatus.STATUS_ABORTED: "aborted",
                GoalStatus.STATUS_CANCELED: "canceled"}
DEFAULT_ACTION_OUTCOMES = {"succeeded": "completed", "aborted": "failure", "canceled": "failure"}
KINDS = ("service", "action")


def import_interface(type_name: str, kind: str, where: str, source: str | None):
    """The generated class of ``pkg/srv/Name`` or ``pkg/action/Name``."""
    match = _TYPE.match(type_name or "")
    if not match or match["kind"] != kind:
        raise InputError("not an interface type name", file=source, key=f"{where}.type",
                         found=repr(type_name), expected=f"<package>/{kind}/<Name>")
    try:
        module = importlib.import_module(f"{match['pkg']}.{kind}")
        return getattr(module, match["name"])
    except (ImportError, AttributeError):
        raise InputError("interface type not installed", file=source, key=f"{where}.type",
                         found=type_name, expected="an installed ROS 2 interface") from None


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
        _fill(self.srv_type.Request(check_fields=True), self.request, f"adapters.{self.capability}.request",
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
        request = _fill(self.srv_type.Request(check_fields=True), self.request, "request", self.source, True)
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
        unknown = set(self.status_outcomes) - set(STATUS_NAMES.values())
        if unknown:
            raise InputError("unknown goal status", file=self.source, key=f"{where}.outcomes",
                             found=", ".join(sorted(unknown)),
                             expected="succeeded, aborted, canceled")
        _fill(self.action_type.Goal(check_fields=True), self.goal, f"{where}.goal", self.source, strict=True)
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


def build_adapters(node: Node, config: Mapping[str, Any], source: str | None = None
                   ) -> dict[str, ServiceAdapter | ActionAdapter]:
    """Adapters for every capability of ``config`` (the ``adapters`` mapping)."""
    if not isinstance(config, Mapping):
        raise InputError("adapters must be a mapping", file=source, key="adapters",
                         found=type(config).__name__, expected="capability: {kind, name, type}")
    adapters: dict[str, ServiceAdapter | ActionAdapter] = {}
    for capability, entry in config.items():
        where = f"adapters.{capability}"
        if not isinstance(entry, Mapping):
            raise InputError("adapter entry must be a mapping", file=source, key=where,
                             found=type(entry).__name__, expected="{kind, name, type, ...}")
        allowed = {"service": {"kind", "name", "type", "request", "success_field", "timeout"},
                   "action": {"kind", "name", "type", "goal", "outcomes", "timeout"}}
        kind = entry.get("kind")
        if kind not in KINDS:
            raise InputError("unknown adapter kind", file=source, key=f"{where}.kind",
                             found=repr(kind), expected=" or ".join(KINDS))
        extra = sorted(str(key) for key in set(entry) - allowed[kind])
        if extra:
            raise InputError("unknown key", file=source, key=f"{where}.{extra[0]}",
                             found=extra[0], expected=", ".join(sorted(allowed[kind])))
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise InputError("not a ROS name", file=source, key=f"{where}.name",
                             found=repr(name), expected="a topic-style name like /robot/brew")
        timeout = entry.get("timeout", 10.0 if kind == "service" else 60.0)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            raise InputError("bad timeout", file=source, key=f"{where}.timeout",
                             found=repr(timeout), expected="seconds > 0")
        interface = import_interface(entry.get("type"), "srv" if kind == "service" else kind,
                                     where, source)
        if kind == "service":
            adapters[capability] = ServiceAdapter(
                node, capability, name, interface, dict(entry.get("request") or {}),
                entry.get("success_field", "success"), timeout=float(timeout), source=source)
        else:
            adapters[capability] = ActionAdapter(
                node, capability, name, interface, dict(entry.get("goal") or {}),
                dict(entry.get("outcomes") or DEFAULT_ACTION_OUTCOMES), float(timeout), source)
    return adapters
