"""LandState: land the drone where it is."""

from flexible_drones_msgs.action import Land

from bdi_flexbe_states.quadcopter.drone_action import DroneActionState, drone_topic, set_duration


class LandState(DroneActionState):
    """
    Descend vertically to ``height`` and stop the motors (the drone's ``land`` action).

    -- height    float   Height (m) to land at (0: the floor).
    -- drone     string  The drone's name (default 'drone').
    -- duration  float   Seconds the descent takes (default 0: the platform's own).
    -- timeout   float   Seconds to wait for the result (default 60).

    <= done             The drone is on the ground.
    <= failed           The descent failed (e.g. it hit a gate's crossbar).
    <= timeout          No arrival in time (the drone's or this state's timeout).
    """

    def __init__(self, height, drone="drone", duration=0.0, timeout=60.0):
        super().__init__(["done", "failed", "timeout"], Land, drone_topic(drone, "land"),
                         timeout)
        self._height = float(height)
        self._duration = float(duration)

    def goal(self, userdata):
        goal = Land.Goal(height=self._height)
        set_duration(goal.duration, self._duration)
        return goal
