"""ArmState: arm or disarm the drone."""

import time

from flexbe_core import EventState, Logger
from flexbe_core.proxy import ProxyServiceCaller
from flexible_drones_msgs.srv import Arm

from bdi_flexbe_states.quadcopter.drone_action import SERVER_WAIT, drone_topic


class ArmState(EventState):
    """
    Arm (``arm`` true) or disarm (false) the drone (the drone's ``arm`` service). Arming runs
    the drone's pre-flight checks (link, battery, geofence on hardware).

    -- arm       bool    True: arm; False: disarm.
    -- drone     string  The drone's name (default 'drone').
    -- timeout   float   Seconds to wait for the answer (default 30).

    <= done             Armed (disarmed).
    <= failed           Refused: a pre-flight check failed, or disarming in flight.
    <= timeout          No answer in time.
    """

    def __init__(self, arm, drone="drone", timeout=30.0):
        super().__init__(outcomes=["done", "failed", "timeout"])
        self._topic = drone_topic(drone, "arm")
        self._arm = bool(arm)
        self._timeout = float(timeout)
        self._client = ProxyServiceCaller({self._topic: Arm}, wait_duration=0.0)
        self._outcome = None
        self._started = 0.0

    def on_enter(self, userdata):
        self._outcome = None
        self._started = time.monotonic()
        try:
            self._client.call_async(self._topic, Arm.Request(arm=self._arm,
                                                             timeout_sec=self._timeout),
                                    wait_duration=SERVER_WAIT)
        except Exception as error:  # the proxy raises ValueError/TypeError on a missing server
            Logger.logwarn(f"{self.name}: could not call {self._topic}: {error}")
            self._outcome = "failed"

    def execute(self, userdata):
        if self._outcome is not None:
            return self._outcome
        if self._client.done(self._topic):
            response = self._client.result(self._topic)
            self._outcome = "done" if response is not None and response.success else "failed"
            if self._outcome == "failed":
                Logger.logwarn(f"{self.name}: the drone refused to "
                               f"{'arm' if self._arm else 'disarm'}")
        elif time.monotonic() - self._started > self._timeout:
            self._outcome = "timeout"
        return self._outcome
