"""NavigateState: the robot goes to a place (beer robot)."""

from bdi_flexbe_states.world_action import WorldActionState, service_token
from bdi_supervisor.domains.beer_robot import service


class NavigateState(WorldActionState):
    """
    The robot goes to a place of the beer robot's world (node ``beer_robot_world``, service
    ``beer_robot/navigate/<target>``); the fridge is behind the kitchen door.

    -- target   string  Where to go: lounge, door, fridge or owner.
    -- timeout  float   Seconds from entering within which the world must answer
                        (default 10).

    <= done             The robot is at the target.
    <= failed           The way is shut (the kitchen door is closed) or the place is unknown:
                        the robot stays where it was.

    No userdata keys. Without the world's answer in time it raises (an engine error, never an
    outcome the world may not have had).
    """

    def __init__(self, target, timeout=10.0):
        super().__init__(service("navigate", service_token('target', target)), timeout)
