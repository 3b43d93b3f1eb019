"""NavigateState: the PyRoboSim robot goes to a location, object or room."""

from __future__ import annotations

from flexbe_core import EventState

from bdi_flexbe_states.pyrobosim.execute_task import ExecuteTask, TaskStateMixin
from bdi_supervisor.domains.pyrobosim.outcomes import NAVIGATE_OUTCOMES


class NavigateState(TaskStateMixin, EventState):
    """
    Navigate the PyRoboSim robot to a target through the world node's task action server.

    -- target_location  string  Where to go: a location, object spawn, object or room name.
    -- robot_name       string  The robot (default 'robot').
    -- action_topic     string  The ExecuteTaskAction server (default '/execute_action').
    -- server_timeout   float   Seconds to wait for the server to appear (default 30).
    -- timeout          float   Seconds the navigation may take; 0: no limit (default 0).

    <= done             The robot arrived.
    <= planning_failed  No path, or a precondition failed (e.g. out of battery).
    <= motion_failed    The motion failed (an execution or postcondition failure).
    <= canceled         The world canceled the navigation.
    <= timeout          No result within ``timeout`` seconds.
    """

    def __init__(self, target_location, robot_name='robot', action_topic='/execute_action',
                 server_timeout=30.0, timeout=0.0):
        super().__init__(outcomes=list(NAVIGATE_OUTCOMES))
        self._task = ExecuteTask('navigate', robot_name=robot_name, action_topic=action_topic,
                                 server_timeout=server_timeout, timeout=timeout,
                                 timeout_outcome='timeout', unsent_outcome='planning_failed')
        self._fields = {'target_location': str(target_location)}
