"""Two-Rivers (wolf, goat, corn and farmer): the river crossing's world (:mod:`.world`), the
actions it serves to the project's FlexBE ``MoveState`` (:func:`world_actions`) and, in
``ros/``, the world node that serves them under ``runner:=flexbe``. The embedded runner runs
Two-Rivers under the ``forced`` simulator; this package registers no simulator.
"""

from __future__ import annotations

from functools import partial

from bdi_supervisor.domains.two_rivers.world import ALONE, ITEMS, ROWER, RiverWorld, from_facts
from bdi_supervisor.runtime.served import WorldAction
from bdi_supervisor.runtime.session import initial_beliefs

#: the project's FlexBE state of the catalog's ``move`` capability
MOVE_STATE = "bdi_flexbe_states.two_rivers.move_state.MoveState"


def move_service(tracker: str, item: str) -> str:
    """The world node's service for ``tracker`` rowing across with ``item`` (relative name)."""
    return f"two_rivers/{tracker}/move/{item}"


def world_actions(mission) -> tuple[RiverWorld, list[WorldAction]]:
    """The world ``mission`` starts in (its initial conditions put every actor on a bank) and
    one crossing per item."""
    world = from_facts(initial_beliefs(mission), mission.file)
    actions = [WorldAction(move_service(ROWER, item), MOVE_STATE, partial(world.cross, item),
                           {"item": item, "tracker": ROWER}) for item in (ALONE, *ITEMS)]
    return world, actions
