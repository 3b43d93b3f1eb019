"""MoveState: the farmer rows across the river (Two-Rivers)."""

from bdi_flexbe_states.world_action import WorldActionState, service_token
from bdi_supervisor.domains.two_rivers import move_service


class MoveState(WorldActionState):
    """
    The farmer rows across the river, alone or carrying one item, in the Two-Rivers world
    (node ``two_rivers_world``, service ``two_rivers/<tracker>/move/<item>``).
    A crossing that fails moves nothing.

    -- item     string  What the farmer carries: nothing, wolf, goat or corn.
    -- tracker  string  Who rows the boat (the world's farmer).
    -- timeout  float   Seconds from entering within which the world must answer
                        (default 10).

    <= done             The farmer, and the item, reached the other bank.
    <= failed           The crossing failed (e.g. high wind) or was refused (the item is not on
                        the farmer's bank): nothing moved.

    No userdata keys. Without the world's answer in time it raises (an engine error, never an
    outcome the world may not have had).
    """

    def __init__(self, item, tracker='farmer', timeout=10.0):
        super().__init__(move_service(service_token('tracker', tracker),
                                      service_token('item', item)), timeout)
