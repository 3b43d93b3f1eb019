"""PlanTrajectoryState: plan a trajectory between two frames of the course."""

from flexbe_core import Logger
from flexible_drones_msgs.action import GetTrajectory

from bdi_flexbe_states.quadcopter.drone_action import DroneActionState


class PlanTrajectoryState(DroneActionState):
    """
    Plan trajectory ``trajectory_id`` from ``start_frame`` to ``target_frame`` (the planner's
    ``plan_trajectory`` action) and hand it on in userdata ``trajectory``.

    -- trajectory_id  int     Id of the trajectory (the course segment 1..5).
    -- start_frame    string  Frame it starts at ('start', 'gate_A_target_1', ...).
    -- target_frame   string  Frame it ends at ('gate_A_target_1', ..., 'end').
    -- timeout_sec    float   Planning time the planner may take (s).
    -- planner        string  The planner's action (default '/plan_trajectory').
    -- timeout        float   Seconds to wait for the result (default: timeout_sec + 5).

    <= done                  Planned.
    <= failed                The planner found no trajectory between the frames.
    <= timeout               No result in time.

    #> trajectory     Trajectory  The planned trajectory.
    """

    def __init__(self, trajectory_id, start_frame, target_frame, timeout_sec=2.0,
                 planner="/plan_trajectory", timeout=None):
        wait = float(timeout) if timeout is not None else float(timeout_sec) + 5.0
        super().__init__(["done", "failed", "timeout"], GetTrajectory, planner, wait,
                         output_keys=["trajectory"])
        self._goal = GetTrajectory.Goal(trajectory_id=int(trajectory_id),
                                        timeout_sec=float(timeout_sec))
        self._goal.start.frame_id = str(start_frame)
        self._goal.target.frame_id = str(target_frame)

    def goal(self, userdata):
        userdata.trajectory = None
        return self._goal

    def finished(self, result, userdata):
        if not result.success:
            Logger.logwarn(f"{self.name}: the planner failed: {result.message}")
            return "failed"
        userdata.trajectory = result.trajectory
        return "done"
