"""Outcomes that a world process decides for the capabilities it serves, as the embedded runner
decides them.

Under FlexBE the project's own states (``bdi_flexbe_states``) ask a domain's world node to act
(cross the river, open the door). The world node decides each outcome with
:class:`ServedCapabilities`:

- the request's state interface and parameters select the catalog's capability
  (:func:`capability_for`);
- the mission's forcing policy (a ``--force`` script or ``runner.force``, then the seeded random
  failures of ``runner.random``; :func:`~bdi_supervisor.runtime.binding.make_policy`) stands in
  front of the world's own action through the embedded runner's
  :class:`~bdi_supervisor.runtime.forced.ForcedAdapter` and
  :func:`~bdi_supervisor.runtime.adapters.invoke`: a forced failure never calls the world (nothing
  moves), a forced completion lets the world act, and the world's own answer is final.

Why the outcomes line up with the embedded run of the same mission and seed: the policy decides
a capability from that capability's activations only (scripts count per capability, random
failures draw one stream per capability), and the world sees every activation of the
capabilities it serves, in order. The other capabilities (FlexBE's stock states, e.g. a
``LogState``) never reach the world and do not change its draws.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.catalog.interfaces import resolve_interface
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.runtime.adapters import Activation, FunctionAdapter, Outcome, invoke
from bdi_supervisor.runtime.binding import make_policy
from bdi_supervisor.runtime.forced import ForcedAdapter
from bdi_supervisor.runtime.session import runner_config


class UnknownRequest(LookupError):
    """A request that no capability of the catalog (or more than one) matches."""


def capability_for(catalog: Catalog, interface: str, parameters: Mapping[str, Any]) -> str:
    """The capability whose state ``interface`` is and whose constant parameters agree with
    ``parameters`` (compared as text; ``@var`` parameters take any value; parameters absent from
    the request are not compared). Raises :class:`UnknownRequest` when none or several match."""
    wanted = resolve_interface(interface)
    found = []
    for name, cap in catalog.capabilities.items():
        if resolve_interface(cap.interface) != wanted:
            continue
        if all(p.variable is not None or p.name not in parameters
               or str(p.value) == str(parameters[p.name]) for p in cap.parameters):
            found.append(name)
    if len(found) != 1:
        given = ", ".join(f"{k}={v}" for k, v in sorted(parameters.items())) or "no parameters"
        what = "no capability" if not found else "several capabilities (" + ", ".join(found) + ")"
        raise UnknownRequest(f"{what} of catalog '{catalog.name}' is a {wanted[1]} with {given}")
    return found[0]


@dataclass(frozen=True)
class WorldAction:
    """One thing a world does on request: the name it is requested by (a service name, relative),
    the FlexBE state interface that requests it with which parameters, and the world's action
    (the world's own outcome, which changes the world only when it is ``completed``)."""

    name: str
    interface: str
    run: Callable[[], Outcome]
    parameters: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ServedActivation:
    """One request a world served: the capability, its n-th activation, and the outcome."""

    capability: str
    activation: int
    parameters: dict[str, Any]
    outcome: Outcome

    def to_dict(self) -> dict[str, Any]:
        return {"capability": self.capability, "activation": self.activation,
                "parameters": dict(self.parameters), **self.outcome.to_dict()}


@dataclass
class ServedCapabilities:
    """The forcing policy of a mission in front of a world's actions (see the module docstring).

    ``seed`` and ``script`` override the mission's ``runner.seed`` and ``runner.force`` as
    ``bdi-supervisor run --seed/--force`` do.
    """

    catalog: Catalog
    policy: Any
    seed: int
    history: list[ServedActivation] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def for_mission(cls, mission, seed: int | None = None,
                    script: str | None = None) -> ServedCapabilities:
        config = runner_config(mission)
        seed = config.seed if seed is None else seed
        return cls(mission.catalog, make_policy(config, mission.catalog, seed, script), seed)

    def act(self, action: WorldAction) -> ServedActivation:
        """Decide and run one request: the capability it activates, then the policy's forced
        outcome or the world's (an exception in the action is the capability's failure, with
        the reason). Raises :class:`UnknownRequest` (nothing is counted or run)."""
        parameters = action.parameters
        capability = capability_for(self.catalog, action.interface, parameters)
        declared = tuple(self.catalog.capabilities[capability].outcomes)
        count = self.counts[capability] = self.counts.get(capability, 0) + 1
        activation = Activation(capability, dict(parameters), attempt=count,
                                step=len(self.history))
        adapter: Any = FunctionAdapter("world", declared, lambda _activation: action.run())
        if self.policy is not None:
            adapter = ForcedAdapter(capability, declared, self.policy, adapter)
        served = ServedActivation(capability, count, dict(parameters),
                                  invoke(adapter, activation, declared))
        self.history.append(served)
        return served


def requests_of(catalog: Catalog, capability: str) -> dict[str, tuple[str, ...]]:
    """Per parameter of ``capability``, the values its state may be given (as text): the
    constant, or every label of an ``@var`` parameter's variable."""
    values = {}
    for p in catalog.capabilities[capability].parameters:
        if p.variable is None:
            values[p.name] = (str(p.value),)
        else:
            variable = catalog.variables.get(p.variable)
            values[p.name] = tuple(map(str, variable.labels.values())) if variable else ()
    return values


def unserved(catalog: Catalog, capabilities: list[str],
             offered: list[tuple[str, Mapping[str, str]]]) -> list[str]:
    """What of ``capabilities`` no offered request serves: for each parameter an offered request
    of the capability's interface takes, every value the capability may give must be offered.
    ``offered``: (interface, parameters) of each request a world serves. One line per gap."""
    gaps = []
    for name in capabilities:
        wanted = resolve_interface(catalog.capabilities[name].interface)
        requests = [dict(p) for i, p in offered if resolve_interface(i) == wanted]
        if not requests:
            gaps.append(f"capability '{name}': no request of {wanted[1]} is served")
            continue
        for key, values in requests_of(catalog, name).items():
            served = {r[key] for r in requests if key in r}
            missing = [v for v in values if served and v not in served]
            if missing:
                gaps.append(f"capability '{name}': {key} " + ", ".join(map(repr, missing))
                            + " not served (served: " + ", ".join(sorted(served)) + ")")
    return gaps
