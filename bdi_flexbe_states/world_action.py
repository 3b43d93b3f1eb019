"""WorldActionState: the common part of the project's states that act through a domain's world
node (``bdi_supervisor.ros.world``): one ``std_srvs/Trigger`` call per activation, whose
``success`` is the outcome and whose ``message`` the reason. Not a state of any catalog by
itself: each domain's states subclass it with their service."""

import re
import time

from flexbe_core import EventState, Logger
from flexbe_core.proxy import ProxyServiceCaller
from std_srvs.srv import Trigger

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: seconds from a state's creation (its service client's, with the behavior) to its first request:
#: Fast DDS drops a response (rmw: "failed to send response (timeout)") while the server has not
#: yet matched the client's response reader, which on a loaded machine can lag the client seeing
#: the service, so a request sent at once could act in the world and never be answered
DISCOVERY_SETTLE = 1.0


def service_token(parameter, value):
    """``value`` as one token of a service name (a ROS name token), else ValueError naming
    ``parameter``: the behavior fails in ``create()`` instead of calling a wrong service."""
    text = str(value)
    if not _TOKEN.fullmatch(text):
        raise ValueError(f"parameter '{parameter}': {value!r} is not a name (letters, digits, _)")
    return text


class WorldActionState(EventState):
    """
    Asks a world node to act through its std_srvs/Trigger service and reports its answer.

    -- service  string  The world node's service (relative to onboard's namespace).
    -- timeout  float   Seconds to wait for the service to appear, and then for its answer.

    <= done             The world did it.
    <= failed           The world refused or failed (nothing changed), or did not answer in time.

    No userdata keys.
    """

    def __init__(self, service, timeout=10.0):
        super().__init__(outcomes=['done', 'failed'])
        self._service = service
        self._timeout = float(timeout)
        self._outcome = None
        self._deadline = 0.0
        # wait_duration=None: no availability check here (the world may start after onboard)
        ProxyServiceCaller({service: Trigger}, wait_duration=None)
        self._created = time.monotonic()

    def on_enter(self, userdata):
        self._outcome = None
        settle = self._created + DISCOVERY_SETTLE - time.monotonic()
        if settle > 0:
            time.sleep(settle)
        self._deadline = time.monotonic() + self._timeout
        try:
            ProxyServiceCaller.call_async(self._service, Trigger.Request(),
                                          wait_duration=self._timeout)
        except Exception as error:  # ValueError when the service never appeared
            self._finish('failed', f"world service '{self._service}' not available: {error}")

    def execute(self, userdata):
        if self._outcome is not None:  # kept while FlexBE waits for the operator's confirmation
            return self._outcome
        if ProxyServiceCaller.done(self._service):
            try:
                response = ProxyServiceCaller.result(self._service)
            except Exception as error:  # the call itself failed
                return self._finish('failed', f"{self._service}: {type(error).__name__}: {error}")
            return self._finish('done' if response.success else 'failed', response.message)
        if time.monotonic() > self._deadline:
            return self._finish('failed', f"no answer from '{self._service}' within "
                                          f"{self._timeout:g} s")
        return None

    def _finish(self, outcome, reason):
        self._outcome = outcome
        log = Logger.loginfo if outcome == 'done' else Logger.logwarn
        log(f"{self.name}: {reason}")
        return outcome
