"""DoorState: the PyRoboSim robot opens or closes the door where it is."""

from __future__ import annotations

from flexbe_core import EventState

from bdi_flexbe_states.pyrobosim.execute_task import ExecuteTask, TaskStateMixin
from bdi_supervisor.domains.pyrobosim.outcomes import ACTION_OUTCOMES

ACTION_TYPES = ('open', 'close')


class DoorState(TaskStateMixin, EventState):
    """
    Open or close the PyRoboSim location the robot is at (a storage's door or a hallway).

    -- action_type     string  'open' or 'close' (default 'open').
    -- robot_name      string  The robot (default 'robot').
    -- action_topic    string  The ExecuteTaskAction server (default '/execute_action').
    -- server_timeout  float   Seconds to wait for the server to appear (default 30).
    -- timeout         float   Seconds the action may take; 0: no limit (default 10).

    <= done            The door is open (closed); also when it already was.
    <= failed          It stayed as it was (locked, hands full, not at a door, a simulated
                       failure) or no result within ``timeout`` seconds.
    """

    def __init__(self, action_type='open', robot_name='robot', action_topic='/execute_action',
                 server_timeout=30.0, timeout=10.0):
        super().__init__(outcomes=list(ACTION_OUTCOMES))
        if action_type not in ACTION_TYPES:
            raise ValueError(f"DoorState: action_type {action_type!r} is not 'open' or 'close'")
        self._task = ExecuteTask(action_type, robot_name=robot_name, action_topic=action_topic,
                                 server_timeout=server_timeout, timeout=timeout,
                                 timeout_outcome='failed', unsent_outcome='failed')
        self._fields = {}
