"""GoToState: fly the drone to a named place."""

from flexbe_core import Logger
from flexbe_core.proxy import ProxySubscriberCached
from flexible_drones_msgs.action import GoTo
from flexible_drones_msgs.msg import FullState

from bdi_flexbe_states.quadcopter.drone_action import DroneActionState, drone_topic, set_duration
from bdi_supervisor.domains.quadcopter.course import GateCourse, distance


class GoToState(DroneActionState):
    """
    Fly to ``target`` through the drone's ``go_to`` action, one straight leg per goal.
    ``clear_of_gate``: out of the nearest gate's plane along the ring, then inside the ring
    (the course's safe landing points), from the position on the drone's ``odom`` topic.

    -- target    string  Where to: 'clear_of_gate'.
    -- drone     string  The drone's name (default 'drone').
    -- speed     float   Speed (m/s) each leg's duration is computed for (default 0.4).
    -- timeout   float   Seconds to wait for each leg's result (default 60).

    <= done             Arrived.
    <= failed           No position known, an unknown target, or a leg failed.
    <= timeout          A leg did not arrive in time.
    """

    TARGETS = ("clear_of_gate",)

    def __init__(self, target, drone="drone", speed=0.4, timeout=60.0):
        super().__init__(["done", "failed", "timeout"], GoTo, drone_topic(drone, "go_to"),
                         timeout)
        self._target = str(target)
        self._speed = float(speed)
        self._odom = drone_topic(drone, "odom")
        self._position = ProxySubscriberCached({self._odom: FullState})
        self._legs = []
        self._course = GateCourse()

    def on_enter(self, userdata):
        self._legs = self._plan()
        super().on_enter(userdata)

    def _plan(self):
        if self._target not in self.TARGETS:
            Logger.logwarn(f"{self.name}: unknown target {self._target!r} "
                           f"(known: {', '.join(self.TARGETS)})")
            return []
        message = self._position.get_last_msg(self._odom)
        if message is None:
            Logger.logwarn(f"{self.name}: no position on {self._odom}")
            return []
        p = message.pose.position
        return self._course.retreat_path((p.x, p.y, p.z))

    def goal(self, userdata):
        if len(self._legs) < 2:
            return None
        start, end = self._legs[0], self._legs[1]
        seconds = max(distance(start, end) / self._speed, 0.5)
        goal = GoTo.Goal(frame=GoTo.Goal.FRAME_ABSOLUTE)
        goal.goal.x, goal.goal.y, goal.goal.z = end
        set_duration(goal.duration, seconds)
        return goal

    def finished(self, result, userdata):
        outcome = super().finished(result, userdata)
        self._legs = self._legs[1:]
        if outcome != "done" or len(self._legs) < 2:
            return outcome
        super().on_enter(userdata)  # the next leg
        return None
