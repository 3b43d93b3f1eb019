"""OpenDoorState: the robot opens the kitchen door (beer robot)."""

from bdi_flexbe_states.world_action import WorldActionState
from bdi_supervisor.domains.beer_robot import service


class OpenDoorState(WorldActionState):
    """
    The robot walks up to the kitchen door and opens it, in the beer robot's world (node
    ``beer_robot_world``, service ``beer_robot/open_door``).

    -- timeout  float   Seconds from entering within which the world must answer
                        (default 10).

    <= done             The door is open (or already was).
    <= failed           The door is locked: it stays closed.

    No userdata keys. Without the world's answer in time it raises (an engine error, never an
    outcome the world may not have had).
    """

    def __init__(self, timeout=10.0):
        super().__init__(service("open_door"), timeout)
