"""One run of a mission's supervisor: bind adapters, execute, record, clean up.

:func:`run_supervisor` is what ``bdi-supervisor run`` and the ROS supervisor node call once a
supervisor machine exists: it reads the mission's ``runner``/``adapters`` sections
(:mod:`bdi_supervisor.runtime.binding`), opens the simulator, binds and checks one adapter per
capability before anything moves, runs the :class:`~bdi_supervisor.runtime.executor.Executor`
with the BDI-record sinks, and always closes the simulator.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.machine import SupervisorMachine
from bdi_supervisor.runtime.adapters import Adapter
from bdi_supervisor.runtime.bdi_state import Callback, JsonLinesSink
from bdi_supervisor.runtime.beliefs import assignments
from bdi_supervisor.runtime.binding import (
    RunnerConfig,
    build_adapters,
    check_names,
    make_policy,
    open_backend,
    parse_runner,
)
from bdi_supervisor.runtime.builtin import Ask
from bdi_supervisor.runtime.executor import Endings, Executor, RunResult
from bdi_supervisor.runtime.forced import ForcedAdapter
from bdi_supervisor.synthesis.strategy import Strategy


@dataclass
class RunOptions:
    """Command-line choices that override the mission's ``runner`` section."""

    sim: str | None = None
    seed: int | None = None
    force: str | None = None
    bdi_log: Path | None = None
    max_steps: int | None = None
    #: the mission's seeded random failures (off: an operator session without ``--seed``)
    random: bool = True
    #: how a run without a container outcome is labelled (None: a synthesized strategy's way)
    endings: Endings | None = None


def runner_config(mission) -> RunnerConfig:
    """The mission's runner/adapters sections, validated against its catalog."""
    source = mission.file
    base = Path(source).parent if source else None
    config = parse_runner({"runner": mission.section("runner"),
                           "adapters": mission.section("adapters")}, source, base)
    check_names(config, mission.catalog)
    return config


def goals_of(mission) -> list[tuple[str, Any]]:
    return [(g.text, g.formula) for g in mission.request.goals]


def initial_beliefs(mission) -> dict[str, Any]:
    """Facts the request's initial conditions fix (memory and variables only)."""
    catalog = mission.catalog
    known = set(catalog.memory) | set(catalog.variables) | set(catalog.capabilities)
    facts = {}
    for condition in mission.request.initial_conditions:
        for name, value in assignments(condition.formula):
            if name in known:
                facts[name] = value
    return facts


def run_supervisor(mission, machine: SupervisorMachine, strategy: Strategy | None = None, *,
                   options: RunOptions | None = None, callbacks: Sequence[Callback] = (),
                   ask: Ask | None = None, stop: threading.Event | None = None,
                   adapters: Mapping[str, Adapter] | None = None,
                   on_ready: Callable[[Executor], None] | None = None) -> RunResult:
    """Run ``machine`` for ``mission`` (see the module docstring).

    ``adapters`` (capability → adapter, e.g. the ROS node's action clients) replace the
    simulator's adapters for those capabilities; forcing policies still apply in front of them.
    """
    options = options or RunOptions()
    config = runner_config(mission)
    sim = options.sim or config.sim
    seed = options.seed if options.seed is not None else config.seed
    policy = make_policy(config, mission.catalog, seed, options.force, options.random)
    sinks: list[Callback] = list(callbacks)
    log = JsonLinesSink(options.bdi_log) if options.bdi_log is not None else None
    if log is not None:
        sinks.append(log)
    backend = open_backend(sim, config, seed, ask)
    executor = None
    try:
        capabilities = [s.capability for s in machine.states]
        bound = build_adapters(capabilities, mission.catalog, config, backend, policy)
        for name, adapter in (adapters or {}).items():
            if name not in mission.catalog.capabilities:
                raise InputError("adapter for an unknown capability", file=mission.file,
                                 key=f"adapters.{name}", found=name,
                                 expected=", ".join(sorted(mission.catalog.capabilities)))
            declared = tuple(mission.catalog.capabilities[name].outcomes)
            bound[name] = (ForcedAdapter(name, declared, policy, adapter)
                           if policy is not None else adapter)
        executor = Executor(
            machine, mission.catalog, bound, strategy=strategy, goals=goals_of(mission),
            initial_beliefs=initial_beliefs(mission), callbacks=sinks,
            sensors=backend.sensor_reader(), ground_truth=backend.truth_reader(),
            timeouts=config.timeouts, max_steps=options.max_steps or config.max_steps,
            mission=mission.name, seed=seed, stop=stop, source=mission.file,
            endings=options.endings)
        if on_ready is not None:
            on_ready(executor)
        return executor.run()
    finally:
        if executor is not None:
            executor.close()
        backend.close()
        if log is not None:
            log.close()
