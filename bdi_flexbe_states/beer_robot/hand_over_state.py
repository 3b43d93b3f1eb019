"""HandOverState: the robot brings what it holds to someone (beer robot)."""

from bdi_flexbe_states.world_action import WorldActionState, service_token
from bdi_supervisor.domains.beer_robot import service


class HandOverState(WorldActionState):
    """
    The robot brings what it holds to a person and hands it over, in the beer robot's world
    (node ``beer_robot_world``, service ``beer_robot/hand_over/<to>``).

    -- to       string  Who gets it (owner).
    -- timeout  float   Seconds from entering within which the world must answer
                        (default 10).

    <= done             The person has it; the robot's hands are empty.
    <= failed           The robot holds nothing or the person is unknown: nothing was
                        handed over.

    No userdata keys. Without the world's answer in time it raises (an engine error, never an
    outcome the world may not have had).
    """

    def __init__(self, to, timeout=10.0):
        super().__init__(service("hand_over", service_token('to', to)), timeout)
