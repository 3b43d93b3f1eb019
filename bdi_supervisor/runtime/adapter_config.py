"""The ROS adapters file: which capability calls which ROS 2 service or action (plain Python).

Read and validated here, without ROS, so that every mistake is reported with its file and key
before a node starts; :mod:`bdi_supervisor.ros.adapters` turns the specs into rclpy clients
(importing the interface types and checking the field names against them). The format::

    adapters:                      # optional wrapper
      bd: {kind: service, name: /coffee/button, type: std_srvs/srv/Trigger,
           request: {}, success_field: success, timeout: 5.0}
      br: {kind: action, name: /coffee/brew, type: test_msgs/action/Fibonacci,
           goal: {order: 3}, outcomes: {succeeded: completed, aborted: failure}, timeout: 60}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bdi_supervisor.errors import InputError

KINDS = ("service", "action")
#: terminal goal statuses an action adapter maps to outcomes
GOAL_STATUSES = ("succeeded", "aborted", "canceled")
DEFAULT_ACTION_OUTCOMES = {"succeeded": "completed", "aborted": "failure", "canceled": "failure"}
DEFAULT_TIMEOUTS = {"service": 10.0, "action": 60.0}
ALLOWED_KEYS = {"service": {"kind", "name", "type", "request", "success_field", "timeout"},
                "action": {"kind", "name", "type", "goal", "outcomes", "timeout"}}
#: ``pkg/srv/Name`` or ``pkg/action/Name``: only such names are ever imported
TYPE_NAME = re.compile(
    r"^(?P<pkg>[a-z][a-z0-9_]*)/(?P<kind>srv|action)/(?P<name>[A-Z][A-Za-z0-9]*)$")
ROS_NAME = re.compile(r"^~?/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class AdapterSpec:
    """One capability's adapter: a service call or an action goal per activation."""

    capability: str
    kind: str
    name: str
    type_name: str
    #: constant request (service) or goal (action) fields
    constants: dict[str, Any] = field(default_factory=dict)
    success_field: str = "success"
    #: action goal status -> outcome
    status_outcomes: dict[str, str] = field(default_factory=dict)
    timeout: float = 10.0
    source: str | None = None

    @property
    def where(self) -> str:
        return f"adapters.{self.capability}"

    @property
    def interface(self) -> tuple[str, str, str]:
        """``(package, srv|action, Name)`` of :attr:`type_name`."""
        match = TYPE_NAME.match(self.type_name)
        assert match is not None  # checked by parse_adapters
        return match["pkg"], match["kind"], match["name"]


def _spec(capability: str, entry: Any, source: str | None) -> AdapterSpec:
    where = f"adapters.{capability}"
    if not isinstance(entry, Mapping):
        raise InputError("adapter entry must be a mapping", file=source, key=where,
                         found=type(entry).__name__, expected="{kind, name, type, ...}")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise InputError("unknown adapter kind", file=source, key=f"{where}.kind",
                         found=repr(kind), expected=" or ".join(KINDS))
    extra = sorted(str(key) for key in set(entry) - ALLOWED_KEYS[kind])
    if extra:
        raise InputError("unknown key", file=source, key=f"{where}.{extra[0]}",
                         found=extra[0], expected=", ".join(sorted(ALLOWED_KEYS[kind])))
    name = entry.get("name")
    if not isinstance(name, str) or not ROS_NAME.match(name):
        raise InputError("not a ROS name", file=source, key=f"{where}.name",
                         found=repr(name), expected="a topic-style name like /robot/brew")
    timeout = entry.get("timeout", DEFAULT_TIMEOUTS[kind])
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise InputError("bad timeout", file=source, key=f"{where}.timeout",
                         found=repr(timeout), expected="seconds > 0")
    type_name = entry.get("type")
    wanted = "srv" if kind == "service" else "action"
    match = TYPE_NAME.match(type_name) if isinstance(type_name, str) else None
    if match is None or match["kind"] != wanted:
        raise InputError("not an interface type name", file=source, key=f"{where}.type",
                         found=repr(type_name), expected=f"<package>/{wanted}/<Name>")
    constants = entry.get("request" if kind == "service" else "goal") or {}
    if not isinstance(constants, Mapping):
        key = "request" if kind == "service" else "goal"
        raise InputError("must be a mapping", file=source, key=f"{where}.{key}",
                         found=type(constants).__name__, expected="field: value")
    outcomes = dict(entry.get("outcomes") or DEFAULT_ACTION_OUTCOMES)
    unknown = sorted(str(s) for s in set(outcomes) - set(GOAL_STATUSES))
    if unknown:
        raise InputError("unknown goal status", file=source, key=f"{where}.outcomes",
                         found=", ".join(unknown), expected=", ".join(GOAL_STATUSES))
    success = entry.get("success_field", "success")
    if not isinstance(success, str):
        raise InputError("not a field name", file=source, key=f"{where}.success_field",
                         found=repr(success), expected="a bool field of the response")
    return AdapterSpec(str(capability), kind, name, type_name, dict(constants), success,
                       outcomes if kind == "action" else {}, float(timeout), source)


def parse_adapters(config: Any, source: str | None = None,
                   capabilities: Iterable[str] | None = None) -> dict[str, AdapterSpec]:
    """Specs for every capability of ``config`` (the ``adapters`` mapping, or a document with
    one); with ``capabilities`` given, a capability outside it is an error."""
    if isinstance(config, Mapping) and "adapters" in config:
        config = config["adapters"]
    config = {} if config is None else config
    if not isinstance(config, Mapping):
        raise InputError("adapters must be a mapping", file=source, key="adapters",
                         found=type(config).__name__, expected="capability: {kind, name, type}")
    if capabilities is not None:
        known = set(capabilities)
        unknown = sorted(str(k) for k in config if k not in known)
        if unknown:
            raise InputError("no such capability in the mission's catalog", file=source,
                             key=f"adapters.{unknown[0]}", found=unknown[0],
                             expected=", ".join(sorted(known)))
    return {str(capability): _spec(str(capability), entry, source)
            for capability, entry in config.items()}


def read_adapters(path: str | Path, capabilities: Iterable[str]) -> dict[str, AdapterSpec]:
    """:func:`parse_adapters` of the YAML file ``path`` (read with the input limits)."""
    from bdi_supervisor.yamlsource import load_yaml

    return parse_adapters(load_yaml(path, "adapters file").data, str(path), capabilities)
