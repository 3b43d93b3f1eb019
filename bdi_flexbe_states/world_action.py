"""WorldActionState: the common part of the project's states that act through a domain's world
node (``bdi_supervisor.ros.world``): one request per activation, with its own request id, whose
reply's ``success`` is the outcome and whose ``message`` the reason. Not a state of any catalog by
itself: each domain's states subclass it with their service.

The request is sent again with the same id while no reply has come (the world answers a repeat
with its recorded answer and does not act twice), so a lost reply costs a repeat, never a wrong
outcome or a second act; a state that has no reply by its deadline raises (``OutcomeUnknown``:
the world may or may not have acted; ``WorldUnavailable``: its service was not there), so the
behavior stops and the supervisor ends the run as an engine error: the protocol of
``bdi_supervisor.runtime.exchange``.
"""

import re
import time

from diagnostic_msgs.srv import AddDiagnostics
from flexbe_core import EventState, Logger
from flexbe_core.proxy import ProxyServiceCaller

from bdi_supervisor.runtime.exchange import DECIDE, SEND, UNKNOWN, UNSENT, Exchange, new_request_id

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the world's action service type (``bdi_supervisor.ros.world.ACTION_SERVICE``; the request's
#: ``load_namespace`` carries the request id)
SERVICE_TYPE = AddDiagnostics


def service_token(parameter, value):
    """``value`` as one token of a service name (a ROS name token), else ValueError naming
    ``parameter``: the behavior fails in ``create()`` instead of calling a wrong service."""
    text = str(value)
    if not _TOKEN.fullmatch(text):
        raise ValueError(f"parameter '{parameter}': {value!r} is not a name (letters, digits, _)")
    return text


class WorldActionState(EventState):
    """
    Asks a world node to act (one request, sent again with the same id until answered) and
    reports its answer.

    -- service  string  The world node's service (relative to onboard's namespace).
    -- timeout  float   Seconds from entering within which the world must answer (its service
                        appearing included); > 0.

    <= done             The world did it.
    <= failed           The world refused or failed: nothing changed.

    No userdata keys. No answer within ``timeout``: the state raises (the behavior stops with an
    error) instead of taking an outcome the world may not have had: OutcomeUnknown where the
    request left (the world may have acted), WorldUnavailable where its service was not there.
    """

    def __init__(self, service, timeout=10.0):
        super().__init__(outcomes=['done', 'failed'])
        self._service = service
        self._timeout = float(timeout)
        if not self._timeout > 0:
            raise ValueError(f"parameter 'timeout': {timeout!r}; expected seconds > 0")
        self._outcome = None
        self._exchange = None
        self._request = None
        self._calls = []  # each send's future: a reply to any of them decides
        # wait_duration=None: no availability check here (the world may start after onboard)
        ProxyServiceCaller({service: SERVICE_TYPE}, wait_duration=None)

    def on_enter(self, userdata):
        self._outcome = None
        self._calls = []
        self._exchange = Exchange(new_request_id(), time.monotonic(), self._timeout)
        self._request = SERVICE_TYPE.Request(load_namespace=self._exchange.request_id)
        self._send(wait=self._timeout)  # the first send waits for the service to appear

    def execute(self, userdata):
        if self._outcome is not None:  # kept while FlexBE waits for the operator's confirmation
            return self._outcome
        reply = self._reply()
        step = self._exchange.step(time.monotonic(), reply is not None)
        if step == DECIDE:
            return self._finish('done' if reply.success else 'failed', reply.message)
        if step == SEND:
            self._send(wait=0.0)
        elif step in (UNKNOWN, UNSENT):
            self._drop_calls()
            raise self._exchange.failure(self._service)
        return None

    def on_exit(self, userdata):
        self._drop_calls()

    def on_stop(self):
        self._drop_calls()

    def _send(self, wait):
        """One try: send the request, or note why it could not leave (no server)."""
        try:
            ProxyServiceCaller.call_async(self._service, self._request, wait_duration=float(wait))
        except Exception as error:  # ValueError: the service is not there (or went away)
            if not self._exchange.unsent_reason:
                Logger.logwarn(f"{self.name}: '{self._service}' not reachable: {error}")
            self._exchange.tried(time.monotonic(), f"{type(error).__name__}: {error}")
            return
        self._exchange.sent(time.monotonic())
        # the proxy keeps the latest call per service (flexbe_core 2.3-4.0: ``_results``); this
        # state keeps its own sends' calls, so that a reply slower than the retry period counts
        self._calls.append(ProxyServiceCaller._results[self._service])
        if self._exchange.sends > 1:
            Logger.loginfo(f"{self.name}: no reply yet from '{self._service}': asked again "
                           f"(request {self._exchange.request_id}, {self._exchange.sends} sent)")

    def _reply(self):
        """The first reply to any send of this activation's request, or None."""
        for call in self._calls:
            if call.done() and call.exception() is None and call.result() is not None:
                return call.result()
        return None

    def _drop_calls(self):
        """Cancel the calls still waiting (rclpy forgets them; a late reply is dropped)."""
        for call in self._calls:
            call.cancel()
        self._calls = []

    def _finish(self, outcome, reason):
        self._drop_calls()
        self._outcome = outcome
        log = Logger.loginfo if outcome == 'done' else Logger.logwarn
        log(f"{self.name}: {reason}")
        return outcome
