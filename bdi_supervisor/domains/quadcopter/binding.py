"""The ``quadcopter`` simulator for the executor's runner binding (``--sim quadcopter``).

Reads the mission's ``runner.quadcopter`` block (see :mod:`.sim`) and binds every capability whose
interface the drone can run (:data:`.adapters.CALLS`, ``LogState`` included: the drone keeps the
failure log in its ground truth) to a :class:`~.adapters.DroneAdapter` on one shared simulated
drone. Forced outcomes (``--force``, ``runner.force``, ``runner.random``) stand in front of the
drone adapters as with every simulator; a forced failure never moves the drone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bdi_supervisor.catalog.interfaces import state_class
from bdi_supervisor.catalog.model import Capability
from bdi_supervisor.domains.quadcopter.adapters import CALLS, DroneAdapter
from bdi_supervisor.domains.quadcopter.sim import WALL_TIMEOUT, make_sim
from bdi_supervisor.runtime.binding import Backend, RunnerConfig


class QuadcopterBackend(Backend):
    name = "quadcopter"

    def __init__(self, config: RunnerConfig, seed: int, ask=None) -> None:
        super().__init__(ask)
        self.sim = make_sim(config.quadcopter, seed=seed, source=config.source)
        self._calls = {f"quadcopter.{kind}": call for kind, call in CALLS.values()}

    def adapter_type(self, cap: Capability, entry: Mapping[str, Any]) -> str | None:
        if "type" in entry:
            return str(entry["type"])
        interface = state_class(cap.interface)
        if interface in CALLS:
            return f"quadcopter.{CALLS[interface][0]}"
        return super().adapter_type(cap, entry)

    def sim_adapter(self, kind: str | None, cap: Capability,
                    entry: Mapping[str, Any]) -> DroneAdapter | None:
        if kind not in self._calls:
            return super().sim_adapter(kind, cap, entry)
        timeout = float(entry.get("timeout", WALL_TIMEOUT[self.sim.backend_name]))
        return DroneAdapter(cap, self.sim.drone, kind.split(".", 1)[1], self._calls[kind], timeout,
                            synchronous=self.sim.backend_name == "kinematic")

    def truth_reader(self) -> Callable[[], dict] | None:
        return self.sim.ground_truth

