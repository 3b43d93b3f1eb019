"""ExecuteTrajectoryState: fly an uploaded trajectory."""

from flexible_drones_msgs.action import ExecuteTrajectory

from bdi_flexbe_states.quadcopter.drone_action import DroneActionState, drone_topic


class ExecuteTrajectoryState(DroneActionState):
    """
    Fly the uploaded trajectory ``trajectory_id`` (the drone's ``execute_trajectory`` action;
    leaving the state early cancels it).

    -- trajectory_id  int     Id of the uploaded trajectory.
    -- timescale      float   Time scale (1: as planned, 2: half the speed).
    -- drone          string  The drone's name (default 'drone').
    -- timeout        float   Seconds to wait for the result (default 120).

    <= done                  The trajectory was flown (through its gate).
    <= failed                Not flown: odometry lost, crashed, missed the gate, not uploaded.
    <= timeout               No arrival in time (the drone's or this state's timeout).
    <= canceled              The flight was cancelled.
    """

    def __init__(self, trajectory_id, timescale=1.0, drone="drone", timeout=120.0):
        super().__init__(["done", "failed", "timeout", "canceled"], ExecuteTrajectory,
                         drone_topic(drone, "execute_trajectory"), timeout)
        self._trajectory_id = int(trajectory_id)
        self._timescale = float(timescale)

    def goal(self, userdata):
        return ExecuteTrajectory.Goal(trajectory_id=self._trajectory_id,
                                      timescale=self._timescale)
