"""Typed, validated node parameters (rclpy).

Each parameter is declared with a default (which fixes its type: a ``-p name:=value`` of another
type is refused by rclpy at declaration) and a description; validators raise
:class:`~bdi_supervisor.ros.node_main.ParameterError` naming the parameter.
"""

from __future__ import annotations

import os
from pathlib import Path

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node

from bdi_supervisor.ros.node_main import ParameterError


def declare(node: Node, name: str, default, description: str):
    """Declare ``name`` (read-only after start-up) and return its value."""
    descriptor = ParameterDescriptor(description=description, read_only=True)
    return node.declare_parameter(name, default, descriptor).value


def existing_file(name: str, value: str, *, required: bool = True) -> Path | None:
    """``value`` as a path to an existing file (``None`` for an empty optional value)."""
    if not value:
        if required:
            raise ParameterError(name, value, "the path of an existing file")
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise ParameterError(name, value, "the path of an existing file")
    return path


def mission_file(name: str, value: str) -> Path:
    """``value`` as a mission: the path of a file, or the name of a shipped mission
    (``coffee_extended``), resolved as the command line and the launch file resolve it."""
    from bdi_supervisor import shipped
    from bdi_supervisor.errors import InputError

    if not value:
        raise ParameterError(name, value, "a mission file or the name of a shipped mission")
    try:
        return shipped.resolve("missions", str(Path(value).expanduser()))
    except InputError:
        known = ", ".join(shipped.names("missions")) or "(none installed)"
        raise ParameterError(name, value, "the path of an existing file or a shipped mission: "
                                          + known) from None


def writable_dir(name: str, value: str) -> Path:
    """``value`` as a folder this process can write, created (with its parents) if missing.

    Checked at start-up, so a bad ``output_dir`` ends the node with exit 2 before any work
    instead of failing later, mid-pipeline."""
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise ParameterError(name, value, "a folder (this is a file)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ParameterError(name, value, f"a folder that can be created ({error.strerror})"
                             ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ParameterError(name, value, "a writable folder (permission denied)")
    return path


def one_of(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ParameterError(name, value, "one of " + ", ".join(allowed))
    return value


def positive(name: str, value: float) -> float:
    if not value > 0:
        raise ParameterError(name, value, "a number > 0")
    return value
