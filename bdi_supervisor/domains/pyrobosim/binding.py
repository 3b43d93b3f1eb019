"""The ``pyrobosim`` simulator for the executor's runner binding (``--sim pyrobosim``).

Opens the mission's ``runner.world`` (with ``runner.world_overrides``) in PyRoboSim and binds
every capability whose interface is one of PyRoboSim's FlexBE states (or whose ``adapters``
entry names a PyRoboSim action) to that action's adapter; ``runner.inject`` adds seeded failures.
"""

from __future__ import annotations

from collections.abc import Callable

from bdi_supervisor.catalog.model import Capability
from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.binding import Backend, RunnerConfig
from bdi_supervisor.runtime.builtin import Ask


class PyRoboSimBackend(Backend):
    """The logistics world in PyRoboSim; closing shuts the world down."""

    name = "pyrobosim"

    def __init__(self, config: RunnerConfig, seed: int, ask: Ask | None = None) -> None:
        super().__init__(ask)
        try:
            from bdi_supervisor.domains.pyrobosim import adapters as sim_adapters
            from bdi_supervisor.domains.pyrobosim.world import open_world
        except ModuleNotFoundError as error:
            raise InputError("the pyrobosim simulator needs PyRoboSim 5.x "
                             "(pip install '.[sim]')", found=str(error)) from None
        if config.world is None:
            raise InputError("the pyrobosim simulator needs a world file", file=config.source,
                             key="runner.world", expected="a PyRoboSim world YAML")
        self.kinds = sim_adapters
        self.sim = self.stack.enter_context(open_world(
            config.world, seed=seed, overrides=config.world_overrides, source=config.source))
        self.injector = sim_adapters.FailureInjector.from_config(config.inject, seed, config.source)

    def default_type(self, cap: Capability) -> str | None:
        params = {p.name: p.value for p in cap.parameters}
        return self.kinds.kind_for(cap.interface, params)

    def sim_adapter(self, kind, cap, entry):
        if kind not in self.kinds.KINDS:
            return None
        failure = next((o for o in cap.outcomes if o != "completed"), "failure")
        timeout = float(entry.get("timeout", 10.0))
        return self.kinds.KINDS[kind](self.sim, injector=self.injector,
                                      outcomes=("completed", failure), timeout=timeout)

    def truth_reader(self) -> Callable[[], dict] | None:
        return self.sim.snapshot
