"""The beer robot (fetch a beer through the kitchen door): its world (:mod:`.world`), the actions
it serves to the project's FlexBE states of the beer-robot catalog (:func:`world_actions`) and,
in ``ros/``, the world node that serves them under ``runner:=flexbe``. The embedded runner runs
the beer robot under the ``forced`` simulator; this package registers no simulator.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from bdi_supervisor.domains.beer_robot.world import (
    OBJECTS,
    PEOPLE,
    PLACES,
    KitchenWorld,
    from_facts,
)
from bdi_supervisor.runtime.served import WorldAction

_STATES = "bdi_flexbe_states.beer_robot"
#: the project's FlexBE states of the catalog's capabilities, by the world's action
STATES = {"open_door": f"{_STATES}.open_door_state.OpenDoorState",
          "navigate": f"{_STATES}.navigate_state.NavigateState",
          "grab": f"{_STATES}.grab_state.GrabState",
          "hand_over": f"{_STATES}.hand_over_state.HandOverState"}


def service(action: str, argument: str | None = None) -> str:
    """The world node's service of ``action`` (a key of :data:`STATES`) with ``argument``
    (relative name: ``beer_robot/open_door``, ``beer_robot/navigate/fridge``)."""
    return f"beer_robot/{action}" + (f"/{argument}" if argument is not None else "")


def world_actions(facts: Mapping[str, Any]) -> tuple[KitchenWorld, list[WorldAction]]:
    """The kitchen of the world where the hypotheses' facts have the values ``facts`` (e.g. the
    mission's ``actual`` ones) and one action per place, object and person."""
    world = from_facts(facts)
    actions = [WorldAction(service("open_door"), STATES["open_door"], world.open_door)]
    for action, run, key, values in (("navigate", world.navigate, "target", PLACES),
                                     ("grab", world.grab, "object", OBJECTS),
                                     ("hand_over", world.hand_over, "to", PEOPLE)):
        actions += [WorldAction(service(action, value), STATES[action], partial(run, value),
                                {key: value}) for value in values]
    return world, actions
