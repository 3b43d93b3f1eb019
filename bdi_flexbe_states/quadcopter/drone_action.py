"""The part every drone action state shares: one goal of a Flexible Drones action, its
``return_code`` turned into the state's outcome (not a state itself)."""

import time

from flexbe_core import EventState, Logger
from flexbe_core.proxy import ProxyActionClient

from bdi_supervisor.domains.quadcopter.drone import RETURN_CODE_NAMES, flexbe_outcome

#: seconds a state waits for its action server when it starts a goal
SERVER_WAIT = 5.0


def drone_topic(drone, name):
    """The absolute name of a drone's interface (``/drone/takeoff``)."""
    return f"/{drone.strip('/')}/{name}"


def set_duration(duration, seconds):
    """Write ``seconds`` into a ``builtin_interfaces/Duration`` field; return the field."""
    duration.sec = int(seconds)
    duration.nanosec = int((seconds - int(seconds)) * 1e9)
    return duration


def outcome_for(return_code, outcomes):
    """The outcome of ``return_code`` among ``outcomes`` (``failed`` where it has none)."""
    outcome = flexbe_outcome(int(return_code))
    return outcome if outcome in outcomes else "failed"


class DroneActionState(EventState):
    """Send the goal of :meth:`goal` on entry; return the outcome of its result.

    A subclass gives ``goal(userdata)`` (``None``: the state fails without a goal) and may
    override ``finished(result, userdata)``; the action and topic come from the constructor.
    """

    def __init__(self, outcomes, action, topic, timeout, input_keys=(), output_keys=()):
        super().__init__(outcomes=list(outcomes), input_keys=list(input_keys),
                         output_keys=list(output_keys))
        self._topic = topic
        self._timeout = float(timeout)
        self._client = ProxyActionClient({topic: action}, wait_duration=0.0)
        self._outcome = None
        self._started = 0.0

    def goal(self, userdata):
        raise NotImplementedError

    def finished(self, result, userdata):
        code = int(result.return_code)
        if code != 0:
            Logger.logwarn(f"{self.name}: {self._topic} returned {code} "
                           f"({RETURN_CODE_NAMES.get(code, 'unknown')})")
        return outcome_for(code, self.outcomes)

    def on_enter(self, userdata):
        self._outcome = None
        self._started = time.monotonic()
        self._client.remove_result(self._topic)
        goal = self.goal(userdata)
        if goal is None:
            self._outcome = "failed"
            return
        try:
            self._client.send_goal(self._topic, goal, wait_duration=SERVER_WAIT)
        except Exception as error:  # the proxy raises ValueError/TypeError on a missing server
            Logger.logwarn(f"{self.name}: could not send the goal on {self._topic}: {error}")
            self._outcome = "failed"

    def execute(self, userdata):
        if self._outcome is not None:
            return self._outcome
        if self._client.has_result(self._topic):
            result = self._client.get_result(self._topic)
            self._client.remove_result(self._topic)
            self._outcome = self.finished(result, userdata)
        elif time.monotonic() - self._started > self._timeout:
            Logger.logwarn(f"{self.name}: no result on {self._topic} within {self._timeout:g} s")
            if self._client.is_active(self._topic):
                self._client.cancel(self._topic)
            self._outcome = "timeout" if "timeout" in self.outcomes else "failed"
        return self._outcome

    def on_exit(self, userdata):
        if self._client.is_active(self._topic):
            self._client.cancel(self._topic)
