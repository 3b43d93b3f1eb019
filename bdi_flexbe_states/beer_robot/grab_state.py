"""GrabState: the robot takes something out of the fridge (beer robot)."""

from bdi_flexbe_states.world_action import WorldActionState, service_token
from bdi_supervisor.domains.beer_robot import service


class GrabState(WorldActionState):
    """
    The robot takes an object out of the fridge, in the beer robot's world (node
    ``beer_robot_world``, service ``beer_robot/grab/<object>``).

    -- object   string  What to take (beer).
    -- timeout  float   Seconds from entering within which the world must answer
                        (default 10).

    <= done             The robot holds the object.
    <= failed           There is none in the fridge, the robot is not at the fridge or its hands
                        are full: nothing was taken.

    No userdata keys. Without the world's answer in time it raises (an engine error, never an
    outcome the world may not have had).
    """

    def __init__(self, object, timeout=10.0):
        super().__init__(service("grab", service_token('object', object)), timeout)
