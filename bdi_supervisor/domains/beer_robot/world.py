"""The beer robot's world: the kitchen door, the fridge, where the robot is, what it holds and
what the owner was given.

Written on its own (the tests check it against the mission's world hypotheses, which say which
outcomes a locked door or an empty fridge admit): the door opens unless it is locked; the fridge
is behind the door; the robot grabs a beer at the fridge if there is one and its hands are free;
handing over takes it to the person and leaves its hands empty. An action that fails changes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.runtime.adapters import Outcome

#: where the robot can go (the fridge only through the open kitchen door)
PLACES = ("lounge", "door", "fridge", "owner")
#: who can be handed something
PEOPLE = ("owner",)
#: what the fridge holds
OBJECTS = ("beer",)
#: the mission's world hypotheses this world realizes: fact → (attribute, value when true,
#: value when false)
FACTS = {"door_locked": ("door_locked", True, False), "beer": ("beers", 1, 0)}


def _failed(reason: str) -> Outcome:
    return Outcome("failure", reason)


@dataclass
class KitchenWorld:
    """The kitchen as the robot finds it and leaves it."""

    door_locked: bool = False
    beers: int = 1
    door_open: bool = False
    robot: str = "lounge"
    holding: str | None = None
    given: list[str] = field(default_factory=list)

    def open_door(self) -> Outcome:
        """Open the kitchen door (the robot walks up to it)."""
        if self.door_open:
            self.robot = "door"
            return Outcome("completed", "the kitchen door is already open")
        if self.door_locked:
            return _failed("the kitchen door is locked")
        self.door_open, self.robot = True, "door"
        return Outcome("completed", "the kitchen door is open")

    def navigate(self, target: str) -> Outcome:
        """Go to ``target`` (one of :data:`PLACES`)."""
        if target not in PLACES:
            return _failed(f"there is no place {target!r} (expected " + ", ".join(PLACES) + ")")
        if target == "fridge" and not self.door_open:
            return _failed("the kitchen door is closed")
        self.robot = target
        return Outcome("completed", f"the robot is at the {target}")

    def grab(self, thing: str) -> Outcome:
        """Take ``thing`` out of the fridge."""
        if self.robot != "fridge":
            return _failed(f"the robot is at the {self.robot}, not at the fridge")
        if self.holding is not None:
            return _failed(f"the robot already holds a {self.holding}")
        if thing not in OBJECTS or self.beers < 1:
            return _failed(f"there is no {thing} in the fridge")
        self.beers -= 1
        self.holding = thing
        return Outcome("completed", f"the robot holds a {thing}")

    def hand_over(self, person: str) -> Outcome:
        """Bring what the robot holds to ``person`` and hand it over."""
        if person not in PEOPLE:
            return _failed(f"there is nobody called {person!r} here")
        thing = self.holding
        if thing is None:
            return _failed("the robot holds nothing")
        self.given.append(f"{thing} to {person}")
        self.robot, self.holding = person, None
        return Outcome("completed", f"the {person} has a {thing}")

    def snapshot(self) -> dict[str, Any]:
        """The world as plain data."""
        return {"door_locked": self.door_locked, "door_open": self.door_open,
                "beers_in_fridge": self.beers, "robot": self.robot, "holding": self.holding,
                "given": list(self.given)}


def from_facts(facts: Mapping[str, Any]) -> KitchenWorld:
    """The kitchen of a world where the hypotheses' facts have the values ``facts`` (e.g. the
    mission's ``actual`` values: ``door_locked`` false, ``beer`` true); facts not given keep
    the default (door unlocked, one beer)."""
    world = KitchenWorld()
    for fact, (attribute, true, false) in FACTS.items():
        if fact in facts:
            setattr(world, attribute, true if facts[fact] else false)
    return world
