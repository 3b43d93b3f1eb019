"""TakeoffState: take the drone off to a height."""

from flexible_drones_msgs.action import Takeoff

from bdi_flexbe_states.quadcopter.drone_action import DroneActionState, drone_topic, set_duration


class TakeoffState(DroneActionState):
    """
    Take off vertically to ``height`` (the drone's ``takeoff`` action).

    -- height    float   Height (m) to climb to.
    -- drone     string  The drone's name (default 'drone').
    -- duration  float   Seconds the climb takes (default 0: the platform's own).
    -- timeout   float   Seconds to wait for the result (default 60).

    <= done             The drone hovers at the height.
    <= failed           The drone refused or failed (not armed, crashed, out of the geofence).
    <= timeout          No arrival in time (the drone's or this state's timeout).
    """

    def __init__(self, height, drone="drone", duration=0.0, timeout=60.0):
        super().__init__(["done", "failed", "timeout"], Takeoff, drone_topic(drone, "takeoff"),
                         timeout)
        self._height = float(height)
        self._duration = float(duration)

    def goal(self, userdata):
        goal = Takeoff.Goal(height=self._height)
        set_duration(goal.duration, self._duration)
        return goal
