"""What FlexBE onboard sends when a behavior ends, per engine line (2.x, 3.x, 4.x), as read from
``flexbe_onboard/flexbe_onboard.py`` (``_behavior_execution``, ``_prepare_behavior``) and
``flexbe_core`` (``PreemptableStateMachine.spin``,
``OperatableStateMachine._execute_current_state``) of FlexBE 2.3.3, 3.0.7 and 4.0.3.
docs/flexbe.md has the same table; the onboard tests check the installed line's row for an
exception against the real engine.

Each ending is the ``BEStatus`` reports (code, args) after STARTED, and the ``flexbe/log``
``ERROR`` texts that come with them (an empty report list: onboard sends none).
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

from bdi_supervisor.ros.flexbe_run import ERROR, FAILED, FINISHED, READY

LINES = (2, 3, 4)


def installed_line() -> int:
    """The engine line of the installed FlexBE (``flexbe_core``'s major version)."""
    return int(importlib.metadata.version("flexbe_core").split(".")[0])


@dataclass(frozen=True)
class Ending:
    reports: tuple[tuple[int, tuple[str, ...]], ...]
    logs: tuple[str, ...] = ()


def _finished(outcome: str) -> Ending:
    return Ending(((FINISHED, (outcome,)), (READY, ())))


STATE_RAISED_2 = "Failed to execute state 0_gr:\nlist index out of range"
STATE_RAISED_3 = "Failed to execute state '0_gr':\nlist index out of range"
STATE_RAISED_4 = ("Failed to execute state '0_gr':\n<class 'IndexError'> - list index out of "
                  "range")

#: ending → engine line → what onboard sends
ENDINGS: dict[str, dict[int, Ending]] = {
    # the behavior's container reached an outcome: FINISHED [str(outcome)], then READY
    "goal outcome": {line: _finished("finished") for line in LINES},
    "failure outcome": {line: _finished("failed") for line in LINES},
    # the operator (or a state) preempted it: the container's outcome is 'preempted'
    "preempted": {line: _finished("preempted") for line in LINES},
    # a state's execute() raised: 2.x logs and keeps the state active for the operator (it is
    # executed again each tick, no BEStatus); 3.x/4.x log, stop the behavior, spin() returns None
    "state raised": {
        2: Ending((), (STATE_RAISED_2,)),
        3: Ending(((FINISHED, ("None",)), (READY, ())), (STATE_RAISED_3,)),
        4: Ending(((FINISHED, ("None",)), (READY, ())), (STATE_RAISED_4,)),
    },
    # an exception out of the behavior's execute() (outside a state): FAILED without args
    "behavior raised": {line: Ending(((FAILED, ()), (READY, ()))) for line in LINES},
    # the behavior could not be prepared (import, create(), checksum): ERROR, no STARTED
    "not started": {line: Ending(((ERROR, ()),)) for line in LINES},
}
