"""From a mission's ``runner`` and ``adapters`` sections to one adapter per capability.

Mission keys read here (all optional)::

    runner:
      sim: forced | pyrobosim | quadcopter   # default simulator (``--sim`` overrides)
      seed: 0                     # ``--seed`` overrides
      max_steps: 500
      world: ../worlds/logistics.yaml   # pyrobosim: world file, relative to the mission
      world_overrides: {open: {fridge: false}, locked: {},
                        options: {navigate: {success_probability: 0.9}}}
      inject: {navigate: {probability: 0.2}, open: {calls: [1], method: lock}}  # pyrobosim faults
      force: "pick=failure pick=completed"   # scripted outcomes (``--force`` overrides)
      random: {move: 0.3}         # seeded random failures per capability (forced layer)
      reasons: {move: high wind}  # reason recorded for those failures
      timeouts: {goto_item: 20}   # seconds per activation, per capability
      quadcopter: {platform: pihawk, backend: kinematic, dropouts: [...]}   # quadcopter sim
    adapters:                     # per capability; default: derived from the interface
      goto_item: {type: navigate}
      bd: {type: operator}

Adapter types: ``forced`` (nominal outcome unless forced), ``log``, ``operator`` and those of the
registered simulators (with ``pyrobosim``: ``navigate pick place open close detect``; with
``quadcopter``: ``quadcopter.<call>``). Without an entry, the type follows the capability's
interface (``LogState`` → log, ``OperatorDecisionState`` → operator, a simulator's own
interfaces → its adapters; anything else is ``forced`` under the forced simulator and unbound —
an error before anything runs — under a simulator that cannot run it).

Simulators other than ``forced`` live in :mod:`bdi_supervisor.domains` (or in another installed
package) and register a backend factory and their adapter types here (:func:`register_backend`)
when their module is imported. The runtime never names a domain: the first look-up of a simulator
or adapter type imports the modules that installed packages declare under the entry-point group
:data:`ENTRY_POINT_GROUP` (this package declares its own domains there), and callers at the top
layer (the CLI, the supervisor node, the tests) may import :mod:`bdi_supervisor.domains` directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bdi_supervisor.catalog.interfaces import state_class
from bdi_supervisor.catalog.model import Capability, Catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import positive_finite
from bdi_supervisor.runtime.adapters import Adapter
from bdi_supervisor.runtime.builtin import Ask, LogAdapter, OperatorAdapter
from bdi_supervisor.runtime.forced import (
    ChainPolicy,
    ForcedAdapter,
    OutcomePolicy,
    RandomPolicy,
    load_script,
    parse_script,
    scripted_only,
)

#: simulator name → backend factory ``(config, seed, ask) -> Backend``: ``forced`` is built in;
#: the simulator domains (:mod:`bdi_supervisor.domains`) register theirs with
#: :func:`register_backend` when that package is imported (the runtime never imports a domain)
BACKENDS: dict[str, Callable[..., Backend]] = {}
#: adapter type (``adapters.<cap>.type``) → the simulator that provides it
ADAPTER_TYPES: dict[str, str] = {}
#: installed packages name their simulator modules here (``name = package.module``)
ENTRY_POINT_GROUP = "bdi_supervisor.simulators"
_discovered = False
RUNNER_KEYS = ("sim", "seed", "max_steps", "world", "world_overrides", "inject", "force",
               "random", "reasons", "timeouts", "quadcopter")
GENERIC_TYPES = ("forced", "log", "operator")


@dataclass
class RunnerConfig:
    sim: str = "forced"
    seed: int = 0
    max_steps: int = 500
    world: Path | None = None
    world_overrides: dict[str, Any] = field(default_factory=dict)
    inject: dict[str, Any] = field(default_factory=dict)
    force: str | None = None
    random: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    timeouts: dict[str, float] = field(default_factory=dict)
    adapters: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the quadcopter simulator's block (validated by bdi_supervisor.domains.quadcopter.sim)
    quadcopter: dict[str, Any] = field(default_factory=dict)
    source: str | None = None


def _mapping(value: Any, key: str, source: str | None) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError("expected a mapping", file=source, key=key, found=type(value).__name__,
                         expected="a mapping")
    return dict(value)


def parse_runner(data: Mapping[str, Any], source: str | None = None,
                 base: Path | None = None) -> RunnerConfig:
    """Read ``runner`` and ``adapters`` from a mission's raw YAML mapping."""
    runner = _mapping(data.get("runner"), "runner", source)
    unknown = sorted(set(runner) - set(RUNNER_KEYS), key=str)
    if unknown:
        raise InputError("unknown runner key", file=source, key=f"runner.{unknown[0]}",
                         found=unknown[0], expected=", ".join(RUNNER_KEYS))
    config = RunnerConfig(source=source)
    discover_backends()
    sim = runner.get("sim", "forced")
    if sim not in BACKENDS:
        raise InputError("unknown simulator", file=source, key="runner.sim", found=repr(sim),
                         expected=_registered())
    config.sim = sim
    for key, least in (("seed", 0), ("max_steps", 1)):
        if key in runner:
            value = runner[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InputError(f"expected an integer >= {least}", file=source,
                                 key=f"runner.{key}", found=repr(value))
            setattr(config, key, value)
    if runner.get("world") is not None:
        world = Path(str(runner["world"]))
        config.world = world if world.is_absolute() or base is None else base / world
    config.world_overrides = _mapping(runner.get("world_overrides"), "runner.world_overrides",
                                      source)
    config.inject = _mapping(runner.get("inject"), "runner.inject", source)
    config.quadcopter = _mapping(runner.get("quadcopter"), "runner.quadcopter", source)
    if runner.get("force") is not None:
        config.force = str(runner["force"])
    for key in ("random", "timeouts"):
        values = _mapping(runner.get(key), f"runner.{key}", source)
        for cap, number in values.items():
            ok = (positive_finite(number) and (key != "random" or number <= 1)) or (
                key == "random" and number == 0 and not isinstance(number, bool))
            if not ok:
                raise InputError("expected a number", file=source, key=f"runner.{key}.{cap}",
                                 found=repr(number),
                                 expected="a probability 0..1" if key == "random" else
                                 "a positive number of seconds")
        setattr(config, key, {k: float(v) for k, v in values.items()})
    config.reasons = {k: str(v) for k, v in
                      _mapping(runner.get("reasons"), "runner.reasons", source).items()}
    adapters = _mapping(data.get("adapters"), "adapters", source)
    for cap, entry in adapters.items():
        entry = _mapping(entry, f"adapters.{cap}", source)
        kind = entry.get("type")
        if kind not in GENERIC_TYPES and kind not in ADAPTER_TYPES:
            raise InputError("unknown adapter type", file=source, key=f"adapters.{cap}.type",
                             found=repr(kind), expected=", ".join((*GENERIC_TYPES, *ADAPTER_TYPES)))
        config.adapters[str(cap)] = entry
    return config


def check_names(config: RunnerConfig, catalog: Catalog) -> None:
    """Capabilities named in the runner sections must exist in the catalog."""
    for section in ("adapters", "random", "reasons", "timeouts"):
        for cap in getattr(config, section):
            if cap not in catalog.capabilities:
                raise InputError("unknown capability", file=config.source, key=f"{section}.{cap}",
                                 found=cap, expected=", ".join(sorted(catalog.capabilities)))


def make_policy(config: RunnerConfig, catalog: Catalog, seed: int,
                script: str | None = None, random: bool = True) -> OutcomePolicy | None:
    """Scripted outcomes first (``--force`` or ``runner.force``), then seeded random failures
    (unless ``random`` is off)."""
    policies: list[Any] = []
    text = script if script is not None else config.force
    if text:
        policies.append(load_script(text, catalog) if script is not None
                        else parse_script(text, catalog, f"{config.source}: runner.force"))
    if config.random and random:
        policies.append(RandomPolicy(seed, dict(config.random), reasons=dict(config.reasons)))
    if not policies:
        return None
    return policies[0] if len(policies) == 1 else ChainPolicy(policies)


class Backend:
    """A simulator: makes adapters, may read sensors and ground truth, is closed after the run."""

    name = "forced"

    def __init__(self, ask: Ask | None = None) -> None:
        self.ask = ask
        self.stack = ExitStack()

    def adapter_type(self, cap: Capability, entry: Mapping[str, Any]) -> str | None:
        if "type" in entry:
            return str(entry["type"])
        interface = state_class(cap.interface)
        if interface in ("LogState", "LogKeyState"):
            return "log"
        if interface == "OperatorDecisionState":
            return "operator" if self.ask is not None else "forced"
        return self.default_type(cap)

    def default_type(self, cap: Capability) -> str | None:
        return "forced"

    def adapter(self, name: str, cap: Capability, entry: Mapping[str, Any],
                policy: OutcomePolicy | None) -> Adapter | None:
        kind = self.adapter_type(cap, entry)
        declared = tuple(cap.outcomes)
        if kind == "forced":
            return ForcedAdapter(name, declared, policy)
        if kind == "log":
            inner: Adapter | None = LogAdapter()
        elif kind == "operator":
            inner = OperatorAdapter(cap.flexbe_outcomes or {o: o for o in cap.outcomes}, self.ask)
            if self.ask is not None:  # a person answers: no random failure overrides them
                policy = scripted_only(policy)
        else:
            inner = self.sim_adapter(kind, cap, entry)
        if inner is None:
            return None
        return ForcedAdapter(name, declared, policy, inner) if policy is not None else inner

    def sim_adapter(self, kind: str | None, cap: Capability,
                    entry: Mapping[str, Any]) -> Adapter | None:
        if kind in ADAPTER_TYPES:
            sim = ADAPTER_TYPES[kind]
            raise InputError(f"adapter type '{kind}' needs the {sim} simulator",
                             key=f"adapters.{cap.name}.type", found=kind,
                             expected=f"{', '.join(GENERIC_TYPES)} (or run with --sim {sim})")
        return None

    def sensor_reader(self) -> Callable[[], Mapping[str, Any]] | None:
        """Reads the environment inputs that guard sensor-dependent transitions (none here)."""
        return None

    def truth_reader(self) -> Callable[[], dict] | None:
        """Reads the simulator's ground truth for the BDI records (none here)."""
        return None

    def close(self) -> None:
        self.stack.close()


def register_backend(name: str, factory: Callable[..., Backend],
                     adapter_types: tuple[str, ...] = ()) -> None:
    """Make ``factory(config, seed, ask)`` the backend of simulator ``name`` (``runner.sim``,
    ``--sim``) and ``adapter_types`` the ``adapters.<cap>.type`` values it provides. The factory
    should import its simulator library only when called."""
    BACKENDS[name] = factory
    for kind in adapter_types:
        ADAPTER_TYPES[kind] = name


def discover_backends() -> None:
    """Import, once, the simulator modules that installed packages declare under
    :data:`ENTRY_POINT_GROUP`; each registers itself with :func:`register_backend`."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in BACKENDS:
            entry.load()


def _registered() -> str:
    return (", ".join(BACKENDS) + " (simulator domains register theirs when imported; "
            f"installed ones are found through the '{ENTRY_POINT_GROUP}' entry points)")


register_backend("forced", lambda config, seed, ask=None: Backend(ask))


def open_backend(sim: str, config: RunnerConfig, seed: int, ask: Ask | None = None) -> Backend:
    discover_backends()
    if sim not in BACKENDS:
        raise InputError("unknown simulator", key="--sim", found=repr(sim),
                         expected=_registered())
    return BACKENDS[sim](config, seed, ask)


def build_adapters(capabilities: list[str], catalog: Catalog, config: RunnerConfig,
                   backend: Backend, policy: OutcomePolicy | None) -> dict[str, Adapter]:
    """One adapter per capability the machine activates (missing ones are left out: the
    executor's binding check names them)."""
    adapters: dict[str, Adapter] = {}
    for name in sorted(set(capabilities)):
        adapter = backend.adapter(name, catalog.capabilities[name],
                                  config.adapters.get(name, {}), policy)
        if adapter is not None:
            adapters[name] = adapter
    return adapters
