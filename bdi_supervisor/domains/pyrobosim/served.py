"""A mission's PyRoboSim world as a ROS world node serves it (``runner:=flexbe``).

The node (``bdi_supervisor.domains.pyrobosim.ros.world_node``) hands the world to pyrobosim_ros's
``WorldROSWrapper``, which runs every ``execute_action`` goal with ``Robot.execute_action``.
:func:`serve_world` opens the world exactly as the embedded runner does (:func:`.world.open_world`
with the mission's ``runner.world``, ``world_overrides`` and seed) and puts a :class:`ServedWorld`
in front of that method: each call first asks the mission's :class:`.injection.FailureInjector`
(``runner.inject``, seeded as in the embedded run) whether it must fail and makes it fail
physically (:func:`.injection.injected`), runs at the node's real-time factor, and is recorded
as a :class:`ServedAction`. A seeded failure therefore reaches a FlexBE state as PyRoboSim's own
failure status, and the world agrees with it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from bdi_supervisor.domains.pyrobosim.injection import FailureInjector, injected
from bdi_supervisor.domains.pyrobosim.world import ACTIONS, SimWorld, open_world
from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.binding import RunnerConfig


@dataclass(frozen=True)
class ServedAction:
    """One action the world ran: its number (from 1), type, target (location or object), the
    status name and message PyRoboSim returned, the injection method if it was made to fail,
    and its duration."""

    number: int
    action: str
    target: str
    status: str
    message: str
    injected: str | None
    seconds: float

    def record(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return asdict(self)

    def describe(self) -> str:
        """One log line: ``#3 navigate bread0: EXECUTION_FAILURE [injected: options] (...)``."""
        what = f"#{self.number} {self.action} {self.target}".rstrip()
        forced = f" [injected: {self.injected}]" if self.injected else ""
        note = f" ({self.message})" if self.message else ""
        return f"{what}: {self.status}{forced}{note} in {self.seconds:.2f} s"


@dataclass
class ServedWorld:
    """The world, its injector, and the actions served so far.

    ``realtime_factor``: the factor every action runs at (negative: as fast as possible, the
    embedded runner's); ``0`` runs each at the factor its request asks for.
    """

    sim: SimWorld
    injector: FailureInjector
    realtime_factor: float = -1.0
    served: list[ServedAction] = field(default_factory=list)
    listeners: list[Callable[[ServedAction], None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._run = self.sim.robot.execute_action
        self._lock = threading.Lock()

    def install(self) -> None:
        """Serve every ``execute_action`` of the robot through :meth:`execute`."""
        self.sim.robot.execute_action = self.execute

    def execute(self, action: Any, realtime_factor: float = 1.0) -> Any:
        """Run a PyRoboSim ``TaskAction`` with the mission's injected failures; returns its
        ``ExecutionResult``."""
        factor = realtime_factor if self.realtime_factor == 0 else self.realtime_factor
        with self._lock:
            method = self.injector.decide(action.type) if action.type in ACTIONS else None
            start = time.monotonic()
            with injected(self.sim, action.type, method):
                result = self._run(action, realtime_factor=factor)
            if action.type in ("open", "close"):
                self.sim.after_door(result)
            entry = ServedAction(len(self.served) + 1, action.type, _target(action),
                                 result.status.name, result.message or "", method,
                                 round(time.monotonic() - start, 4))
            self.served.append(entry)
        for listener in self.listeners:
            listener(entry)
        return result


def _target(action: Any) -> str:
    for value in (action.target_location, action.object):
        if value is not None:
            return getattr(value, "name", None) or str(value)
    return ""


@contextmanager
def serve_world(config: RunnerConfig, seed: int | None = None,
                realtime_factor: float = -1.0) -> Iterator[ServedWorld]:
    """The world of a mission's runner section, its failures installed; shut down on exit.

    ``seed`` defaults to the mission's ``runner.seed``. Raises
    :class:`~bdi_supervisor.errors.InputError` for a mission that runs no PyRoboSim world.
    """
    if config.sim != "pyrobosim" or config.world is None:
        raise InputError("the mission runs no PyRoboSim world", file=config.source,
                         key="runner.world" if config.sim == "pyrobosim" else "runner.sim",
                         found=config.sim if config.sim != "pyrobosim" else "no world",
                         expected="runner.sim: pyrobosim with runner.world: a PyRoboSim world")
    seed = config.seed if seed is None else seed
    injector = FailureInjector.from_config(config.inject, seed, config.source)
    with open_world(config.world, seed=seed, overrides=config.world_overrides,
                    source=config.source) as sim:
        served = ServedWorld(sim, injector, realtime_factor)
        served.install()
        yield served
