"""UploadTrajectoryState: upload a planned trajectory to the drone."""

from flexbe_core import Logger
from flexible_drones_msgs.action import UploadTrajectory

from bdi_flexbe_states.quadcopter.drone_action import DroneActionState, drone_topic


class UploadTrajectoryState(DroneActionState):
    """
    Upload the planned trajectory in userdata ``trajectory`` (the drone's ``upload_trajectory``
    action); it must be the one planned for ``trajectory_id``.

    -- trajectory_id  int     Id the trajectory was planned as.
    -- drone          string  The drone's name (default 'drone').
    -- timeout        float   Seconds to wait for the result (default 30).

    <= done                  The drone holds the trajectory.
    <= failed                No trajectory of that id in userdata, or the upload failed.
    <= timeout               No result in time.

    ># trajectory     Trajectory  The planned trajectory (PlanTrajectoryState's output).
    """

    def __init__(self, trajectory_id, drone="drone", timeout=30.0):
        super().__init__(["done", "failed", "timeout"], UploadTrajectory,
                         drone_topic(drone, "upload_trajectory"), timeout,
                         input_keys=["trajectory"])
        self._trajectory_id = int(trajectory_id)

    def goal(self, userdata):
        trajectory = userdata.trajectory
        if trajectory is None or int(trajectory.trajectory_id) != self._trajectory_id:
            Logger.logwarn(f"{self.name}: no planned trajectory {self._trajectory_id} in userdata")
            return None
        return UploadTrajectory.Goal(trajectory=trajectory)
