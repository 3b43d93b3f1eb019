"""Is a realized supervisor executable? Forced-outcome acceptance in the embedded executor.

A supervisor machine is *executable* for a mission when

1. every declared outcome, forced at every machine state, leads where the audited strategy says
   (:func:`~bdi_supervisor.runtime.forced.exhaustive_check`), and
2. a run with forced outcomes (the ``forced`` simulator, the mission's seeded failures,
   operator decisions taking their suggestion) ends as the mission expects: at its goal (the
   request's success outcome), or where its ``acceptance`` section says.

The seeded failures are the mission's ``acceptance`` section where it has one, else its
``runner``'s (``random``, ``force``)::

    acceptance:                    # every key optional
      seed: 1                      # the random failures' seed (default: the runner's)
      random: {goto_item: 0.2, pick: 0.2}   # failure probability per capability
      reasons: {goto_item: blocked hallway}
      force: "execute_3=failure"   # scripted outcomes, as runner.force
      max_steps: 300
      ending: aborted              # the SM outcome the run must end in (default: the goal)

``random``, ``reasons`` and ``force`` given here replace the runner's as a whole, so a mission
keeps a nominal live run (its ``runner``) and an acceptance run that must recover from failures.
The record counts the run's failures and the failures it recovered from: every one when the run
ended as expected, else those of capabilities that completed later in the run.

This is the "executable" column of the liveness comparison (``bdi-supervisor sweep`` with
``execute: true``, docs/results.md) and what the verdict tests pin.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bdi_supervisor.common import success_outcome
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.machine import SupervisorMachine
from bdi_supervisor.runtime.binding import parse_runner
from bdi_supervisor.runtime.executor import RunResult
from bdi_supervisor.runtime.forced import exhaustive_check
from bdi_supervisor.runtime.session import RunOptions, run_supervisor
from bdi_supervisor.synthesis.strategy import Strategy

#: the keys of a mission's ``acceptance`` section
ACCEPTANCE_KEYS = ("seed", "max_steps", "random", "reasons", "force", "ending")
#: the keys that make the failure profile (they replace the runner's together)
PROFILE_KEYS = ("random", "reasons", "force")


@dataclass(frozen=True)
class Acceptance:
    """The outcome of :func:`accept` (JSON-ready through :meth:`record`)."""

    #: forced (state, outcome) steps compared with the strategy, and how many went elsewhere
    checks: int
    mismatches: int
    #: the forced run's status (``goal_reached``, ``step_limit``…), its SM outcome and length
    run_status: str
    run_outcome: str | None
    run_steps: int
    #: the run's failure outcomes, and how many of them the supervisor recovered from
    run_failures: int = 0
    run_recoveries: int = 0
    #: the SM outcome the run must end in
    expected: str | None = None

    @property
    def ended_as_expected(self) -> bool:
        """At the expected SM outcome; without one (a mission without SM outcomes), at its
        goals."""
        if self.expected is None:
            return self.run_status == "goal_reached"
        return self.run_outcome == self.expected

    @property
    def executable(self) -> bool:
        return self.checks > 0 and self.mismatches == 0 and self.ended_as_expected

    def record(self) -> dict:
        return {"executable": self.executable, "checks": self.checks,
                "mismatches": self.mismatches, "run_status": self.run_status,
                "run_outcome": self.run_outcome, "run_steps": self.run_steps,
                "run_failures": self.run_failures, "run_recoveries": self.run_recoveries,
                "expected_outcome": self.expected}


def acceptance_mission(mission) -> tuple[Any, str | None]:
    """``mission`` with its ``acceptance`` section's seeded failures in place of its runner's,
    and the SM outcome its acceptance run must end in (:class:`InputError` at the section's
    key for a bad one)."""
    section = mission.section("acceptance")
    for key in section:
        if key not in ACCEPTANCE_KEYS:
            raise mission.section_error("unknown acceptance key", "acceptance", key,
                                        found=str(key), expected=", ".join(ACCEPTANCE_KEYS))
    given = {k: v for k, v in section.items() if k != "ending"}
    try:
        parse_runner({"runner": given}, mission.file)
    except InputError as error:
        key = (error.key or "runner").replace("runner", "acceptance", 1)
        raise dataclasses.replace(error, key=key, line=mission.lines.get(
            tuple(key.split(".")))) from None
    outcomes = mission.request.sm_outcomes
    ending = section.get("ending", success_outcome(outcomes))
    if "ending" in section and ending not in outcomes:
        raise mission.section_error("the acceptance run cannot end in this outcome",
                                    "acceptance", "ending", found=repr(ending),
                                    expected="one of the request's sm_outcomes: "
                                             + ", ".join(outcomes))
    runner = dict(mission.section("runner"))
    if any(k in given for k in PROFILE_KEYS):
        runner = {k: v for k, v in runner.items() if k not in PROFILE_KEYS}
    runner.update(given)
    return dataclasses.replace(mission, sections={**mission.sections, "runner": runner}), ending


def recovered(result: RunResult, ended_as_expected: bool) -> int:
    """The failures of ``result`` the supervisor recovered from: all of them when the run
    ended as expected, else those of capabilities that completed later in the run."""
    steps = result.steps
    failures = [i for i, step in enumerate(steps) if step.recovery]
    if ended_as_expected:
        return len(failures)
    return sum(any(later.capability == steps[i].capability and not later.recovery
                   for later in steps[i + 1:]) for i in failures)


def accept(mission, machine: SupervisorMachine, strategy: Strategy,
           max_steps: int | None = None) -> Acceptance:
    """Forced-outcome acceptance of ``machine`` (realized from ``strategy``) for ``mission``."""
    checks = exhaustive_check(machine, strategy, mission.catalog)
    seeded, ending = acceptance_mission(mission)
    result = run_supervisor(seeded, machine, strategy,
                            options=RunOptions(sim="forced", max_steps=max_steps))
    found = Acceptance(len(checks), sum(not c.ok for c in checks), result.status,
                       result.sm_outcome, len(result.steps), len(result.recoveries()),
                       expected=ending)
    return dataclasses.replace(found, run_recoveries=recovered(result, found.ended_as_expected))
