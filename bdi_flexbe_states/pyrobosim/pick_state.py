"""PickState: the PyRoboSim robot picks an object at its location."""

from __future__ import annotations

from flexbe_core import EventState

from bdi_flexbe_states.pyrobosim.execute_task import ExecuteTask, TaskStateMixin
from bdi_supervisor.domains.pyrobosim.outcomes import ACTION_OUTCOMES


class PickState(TaskStateMixin, EventState):
    """
    Pick an object (by name or category) where the PyRoboSim robot is.

    -- object          string  The object to pick: its name (bread0) or category (bread).
    -- robot_name      string  The robot (default 'robot').
    -- action_topic    string  The ExecuteTaskAction server (default '/execute_action').
    -- server_timeout  float   Seconds to wait for the server to appear (default 30).
    -- timeout         float   Seconds the pick may take; 0: no limit (default 10).

    <= done            The robot holds the object.
    <= failed          The pick failed (not there, storage closed, hands full, a simulated
                       failure) or no result within ``timeout`` seconds.
    """

    def __init__(self, object, robot_name='robot', action_topic='/execute_action',
                 server_timeout=30.0, timeout=10.0):
        super().__init__(outcomes=list(ACTION_OUTCOMES))
        self._task = ExecuteTask('pick', robot_name=robot_name, action_topic=action_topic,
                                 server_timeout=server_timeout, timeout=timeout,
                                 timeout_outcome='failed', unsent_outcome='failed')
        self._fields = {'object': str(object)}
