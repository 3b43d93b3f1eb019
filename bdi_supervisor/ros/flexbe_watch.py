"""Whether FlexBE onboard is still running the behavior, as plain data (no rclpy, no flexbe_msgs).

Onboard's ``BEStatus`` reports do not cover every way a run can end: a killed onboard sends
nothing, and FlexBE 2.x keeps a state that raised an exception active (it logs "Failed to
execute state ..." on every tick and sends no ``BEStatus``). Once onboard acknowledged the
behavior, the supervisor node watches three more signals (:class:`OnboardWatch`); each ends the
run with an error naming what it saw:

- the heartbeat: onboard publishes ``flexbe_msgs/BehaviorSync`` on ``flexbe/heartbeat`` once a
  second (FlexBE 2.3, 3.0 and 4.0 alike) from its node's timer, whatever the behavior does. None
  for ``heartbeat_timeout`` seconds (3 by default) means onboard died or hangs;
- the publishers of ``flexbe/status``: onboard's node leaving the ROS graph (a clean exit at
  once; a killed process once DDS drops it, which takes longer than the heartbeat);
- ``flexbe/log`` (``flexbe_msgs/BehaviorLog``): an ``ERROR`` whose text says a state failed to
  execute (:func:`state_exception`). FlexBE 3.x/4.x then end the behavior with ``None``, 2.x
  keeps the state active for an operator.

Under ``ros2 launch`` the launch itself also ends the run when onboard's process exits
(:func:`bdi_supervisor.ros.launch_plan.on_onboard_exit`).
"""

from __future__ import annotations

from dataclasses import dataclass

HEARTBEAT_TOPIC = "flexbe/heartbeat"
LOG_TOPIC = "flexbe/log"
#: ``flexbe_msgs/BehaviorLog.ERROR``
LOG_ERROR = 3
#: how FlexBE's state machines (2.3, 3.0, 4.0) begin the error they log when a state raised
STATE_EXCEPTION = "Failed to execute state"
DEFAULT_HEARTBEAT_TIMEOUT = 3.0


def state_exception(status_code: int, text: str) -> str | None:
    """Why the run failed, when a ``flexbe/log`` message says a state raised; else None."""
    if status_code != LOG_ERROR or STATE_EXCEPTION not in text:
        return None
    first = " ".join(text.split())
    return f"FlexBE onboard: {first[:300]}"


@dataclass
class OnboardWatch:
    """Onboard's liveness since ``started`` (its acknowledgement; times in seconds of any
    monotonic clock, given by the caller)."""

    started: float
    heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT
    last_beat: float | None = None
    publisher_seen: bool = False

    def __post_init__(self) -> None:
        if not self.heartbeat_timeout > 0:
            raise ValueError("heartbeat_timeout must be > 0")

    def beat(self, now: float) -> None:
        """A heartbeat arrived at ``now``."""
        self.last_beat = now

    def check(self, now: float, publishers: int) -> str | None:
        """Why onboard is gone at ``now`` (``publishers``: how many publish ``flexbe/status``),
        or None while it is alive."""
        if publishers > 0:
            self.publisher_seen = True
        elif self.publisher_seen:
            return "FlexBE onboard left: nothing publishes flexbe/status any more"
        since = self.started if self.last_beat is None else self.last_beat
        if now - since < self.heartbeat_timeout:
            return None
        if self.last_beat is None:
            return (f"FlexBE onboard sent no heartbeat on {HEARTBEAT_TOPIC} within "
                    f"{self.heartbeat_timeout:g} s of acknowledging the behavior")
        return (f"FlexBE onboard is silent: no heartbeat on {HEARTBEAT_TOPIC} for "
                f"{now - self.last_beat:.1f} s (it died or hangs)")
