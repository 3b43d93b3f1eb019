"""A counter-run in capability/outcome terms, and the forced outcomes that replay it.

The counter-run's lasso strategy (:func:`~.counterrun.lasso_strategy`) is realized as a
supervisor machine like any strategy; walking the play through the machine gives, per
activation, the capability the supervisor runs and the outcome the environment answers. Those
outcomes, pinned to the activations (``cap#n=outcome``, the ``--force`` syntax of
``bdi-supervisor run``), replay the play: the loop is unrolled ``loops`` times and the run
stopped after that many activations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.explain.counterrun import LOOP, CounterRun
from bdi_supervisor.realize.machine import (
    MachineState,
    SupervisorMachine,
    build_machine,
    outcome_variable,
)
from bdi_supervisor.synthesis.strategy import Strategy

#: times the loop of a counter-run is played when it is replayed
LOOPS = 3


@dataclass
class Replay:
    """The activations of a counter-run, as a forced-outcome script."""

    #: (capability, outcome or None when the play ends there) per activation, in order
    activations: list[tuple[str, str | None]] = field(default_factory=list)
    #: activations of the prefix before the loop (all of them without a loop)
    prefix: int = 0
    max_steps: int = 0
    force: str = ""

    def to_dict(self) -> dict:
        return {"force": self.force, "max_steps": self.max_steps, "prefix": self.prefix,
                "activations": [{"capability": c, "outcome": o} for c, o in self.activations]}


def mission_machine(lasso: Strategy, mission: Any) -> SupervisorMachine:
    """The supervisor machine of a counter-run's lasso strategy for ``mission``."""
    from bdi_supervisor.realize.stage import mission_outcomes

    return build_machine(lasso, mission.catalog, sm_outcomes=mission_outcomes(mission),
                         source=f"{mission.name} counter-run")


def replay_script(machine: SupervisorMachine, catalog: Catalog, run: CounterRun,
                  loops: int = LOOPS) -> Replay:
    """The forced outcomes that replay ``run`` on ``machine`` (see the module docstring)."""
    by_id = {state.strategy_id: state for state in machine.states}
    positions = [k for k, step in enumerate(run.steps) if step.outputs is not None]
    played: list[tuple[int, str, str | None]] = []  # (position, capability, outcome)
    for k in positions:
        state = by_id.get(k)
        if state is None:
            continue  # no activation here (wiring, an SM outcome)
        nxt = k + 1 if k + 1 < len(positions) else (
            run.loop_start if run.end == LOOP else None)
        outcome = None
        for transition in state.transitions.values():
            if not transition.excluded and any(b.path and b.path[0] == nxt
                                               for b in transition.branches):
                outcome = transition.outcome
                break
        if outcome is None and run.end != LOOP and k == positions[-1]:
            outcome = _deadlock_outcome(machine, catalog, state, run)
        played.append((k, state.capability, outcome))
    replay = Replay()
    if run.end == LOOP and run.loop_start is not None:
        prefix = [p for p in played if p[0] < run.loop_start]
        loop = [p for p in played if p[0] >= run.loop_start]
        sequence = prefix + loop * max(1, loops)
        replay.prefix = len(prefix)
    else:
        sequence = played
        replay.prefix = len(played)
    replay.activations = [(cap, outcome) for _, cap, outcome in sequence]
    counts: dict[str, int] = {}
    entries = []
    for cap, outcome in replay.activations:
        counts[cap] = counts.get(cap, 0) + 1
        if outcome is not None:
            entries.append(f"{cap}#{counts[cap]}={outcome}")
    replay.force = ",".join(entries)
    replay.max_steps = max(1, len(replay.activations))
    return replay


def _deadlock_outcome(machine: SupervisorMachine, catalog: Catalog, state: MachineState,
                      run: CounterRun) -> str | None:
    """The outcome the environment answers with when it leaves the system no safe answer:
    the one whose outcome proposition the deadlock's inputs show (None if none does)."""
    last = run.steps[-1].inputs
    for normalized in dict.fromkeys(state.outcomes.values()):
        variable = outcome_variable(catalog, state.capability, normalized, machine.encoding)
        if last.get(variable) is True:
            return normalized
    return None
