"""PyRoboSim's execution statuses and the FlexBE outcomes they become.

One table for both runners: the embedded adapters record the FlexBE outcome a state would have
reported (:mod:`.adapters`), and the project's FlexBE states for PyRoboSim
(``bdi_flexbe_states.pyrobosim``) return it. The status codes are those of
``pyrobosim_msgs/ExecutionResult`` (the same numbers as PyRoboSim's ``ExecutionStatus``).
"""

from __future__ import annotations

#: ``pyrobosim_msgs/ExecutionResult`` status code → name
STATUS_NAMES = {-1: "UNKNOWN", 0: "SUCCESS", 1: "PRECONDITION_FAILURE", 2: "PLANNING_FAILURE",
                3: "EXECUTION_FAILURE", 4: "POSTCONDITION_FAILURE", 5: "INVALID_ACTION",
                6: "CANCELED"}

#: outcomes of a navigation state (the catalogs' navigation capabilities declare these)
NAVIGATE_OUTCOMES = ("done", "planning_failed", "motion_failed", "canceled", "timeout")
#: outcomes of every other action state (pick, place, open, close, detect)
ACTION_OUTCOMES = ("done", "failed")

_NAVIGATE = {"SUCCESS": "done", "PRECONDITION_FAILURE": "planning_failed",
             "PLANNING_FAILURE": "planning_failed", "CANCELED": "canceled"}


def status_name(code: int) -> str:
    """The name of an ``ExecutionResult`` status code (``UNKNOWN`` for a code it has not)."""
    return STATUS_NAMES.get(int(code), "UNKNOWN")


def flexbe_outcome(action: str, status: str) -> str:
    """The FlexBE outcome of ``action`` (navigate, pick, ...) ending with ``status`` (a name):
    navigation tells planning (and precondition) failures, cancellation and every other failure
    (``motion_failed``) apart; the other actions are ``done`` or ``failed``."""
    if action == "navigate":
        return _NAVIGATE.get(status, "motion_failed")
    return "done" if status == "SUCCESS" else "failed"
