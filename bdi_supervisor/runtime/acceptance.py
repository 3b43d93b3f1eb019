"""Is a realized supervisor executable? Forced-outcome acceptance in the embedded executor.

A supervisor machine is *executable* for a mission when

1. every declared outcome, forced at every machine state, leads where the audited strategy says
   (:func:`~bdi_supervisor.runtime.forced.exhaustive_check`), and
2. a run with forced outcomes (the ``forced`` simulator, the mission's seeded failure profile
   from its ``runner`` section, operator decisions taking their suggestion) reaches the goal.

This is the "executable" column of the liveness comparison (``bdi-supervisor sweep`` with
``execute: true``, docs/results.md) and what the verdict tests pin.
"""

from __future__ import annotations

from dataclasses import dataclass

from bdi_supervisor.realize.machine import SupervisorMachine
from bdi_supervisor.runtime.forced import exhaustive_check
from bdi_supervisor.runtime.session import RunOptions, run_supervisor
from bdi_supervisor.synthesis.strategy import Strategy


@dataclass(frozen=True)
class Acceptance:
    """The outcome of :func:`accept` (JSON-ready through :meth:`record`)."""

    #: forced (state, outcome) steps compared with the strategy, and how many went elsewhere
    checks: int
    mismatches: int
    #: the forced run's status (``goal_reached``, ``max_steps``…), its SM outcome and length
    run_status: str
    run_outcome: str | None
    run_steps: int

    @property
    def executable(self) -> bool:
        return self.checks > 0 and self.mismatches == 0 and self.run_status == "goal_reached"

    def record(self) -> dict:
        return {"executable": self.executable, "checks": self.checks,
                "mismatches": self.mismatches, "run_status": self.run_status,
                "run_outcome": self.run_outcome, "run_steps": self.run_steps}


def accept(mission, machine: SupervisorMachine, strategy: Strategy,
           max_steps: int | None = None) -> Acceptance:
    """Forced-outcome acceptance of ``machine`` (realized from ``strategy``) for ``mission``."""
    checks = exhaustive_check(machine, strategy, mission.catalog)
    result = run_supervisor(mission, machine, strategy,
                            options=RunOptions(sim="forced", max_steps=max_steps))
    return Acceptance(len(checks), sum(not c.ok for c in checks), result.status,
                      result.sm_outcome, len(result.steps))
