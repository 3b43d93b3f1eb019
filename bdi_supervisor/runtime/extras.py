"""Optional dependencies of the simulators, checked before any work starts.

The core installs without the simulators; a mission that runs in PyRoboSim (extra ``sim``) or on
RotorPy dynamics (extra ``rotorpy``) is bad input where that extra is missing, reported before
synthesis with the command that installs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bdi_supervisor.errors import InputError

DISTRIBUTION = "bdi_supervisor"


@dataclass(frozen=True)
class Extra:
    """A pip extra and the modules a simulator imports from it."""

    name: str
    modules: tuple[str, ...]
    what: str

    @property
    def install(self) -> str:
        return (f"pip install '{DISTRIBUTION}[{self.name}]' "
                f"(from a clone: pip install '.[{self.name}]')")


PYROBOSIM = Extra("sim", ("numpy", "pyrobosim"), "PyRoboSim 5.x")
ROTORPY = Extra("rotorpy", ("numpy", "rotorpy"), "RotorPy 3.0")


def simulator_extra(sim: str, runner: Mapping[str, Any] | None) -> Extra | None:
    """The extra simulator ``sim`` needs with the mission's ``runner`` section, if any."""
    if sim == "pyrobosim":
        return PYROBOSIM
    quadcopter = (runner or {}).get("quadcopter")
    if (sim == "quadcopter" and isinstance(quadcopter, Mapping)
            and quadcopter.get("backend") == "rotorpy"):
        return ROTORPY
    return None


def missing_module(extra: Extra) -> str | None:
    """The first of ``extra``'s modules that does not import, or None."""
    for module in extra.modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def require_simulator(sim: str, runner: Mapping[str, Any] | None,
                      source: str | None = None) -> None:
    """Raise :class:`InputError` (exit 2) when ``sim`` needs an extra that is not installed."""
    extra = simulator_extra(sim, runner)
    if extra is None:
        return
    module = missing_module(extra)
    if module is not None:
        raise InputError(f"the {sim} simulator needs {extra.what} (the '{extra.name}' extra), "
                         f"which is not installed", file=source, key="runner.sim",
                         found=f"no module named {module!r}", expected=extra.install)
