"""PlaceState: the PyRoboSim robot puts down what it holds where it is."""

from __future__ import annotations

from flexbe_core import EventState

from bdi_flexbe_states.pyrobosim.execute_task import ExecuteTask, TaskStateMixin
from bdi_supervisor.domains.pyrobosim.outcomes import ACTION_OUTCOMES


class PlaceState(TaskStateMixin, EventState):
    """
    Place the object the PyRoboSim robot holds at its location.

    -- robot_name      string  The robot (default 'robot').
    -- action_topic    string  The ExecuteTaskAction server (default '/execute_action').
    -- server_timeout  float   Seconds to wait for the server to appear (default 30).
    -- timeout         float   Seconds the place may take; 0: no limit (default 10).

    <= done            The object lies at the robot's location.
    <= failed          The place failed (empty hands, storage closed, no free spot, a simulated
                       failure) or no result within ``timeout`` seconds.
    """

    def __init__(self, robot_name='robot', action_topic='/execute_action', server_timeout=30.0,
                 timeout=10.0):
        super().__init__(outcomes=list(ACTION_OUTCOMES))
        self._task = ExecuteTask('place', robot_name=robot_name, action_topic=action_topic,
                                 server_timeout=server_timeout, timeout=timeout,
                                 timeout_outcome='failed', unsent_outcome='failed')
        self._fields = {}
