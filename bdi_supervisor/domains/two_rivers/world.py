"""The river crossing's world: which bank the wolf, the goat, the corn and the farmer are on, and
what a crossing does.

The puzzle's physics, written on its own (it reads neither the catalog's postconditions nor the
mission's safety rule; the tests check it against both): the farmer rows across, alone or with
one item that is on his bank, and both reach the other bank; an item that is not on his bank
cannot be carried (the crossing fails and nothing moves). Whatever is left without the farmer
when he rows away is exposed: the wolf eats the goat, the goat eats the corn. The world records
what was eaten; an eaten item stays where it was and can never be carried again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapters import Outcome

ROWER = "farmer"
ITEMS = ("wolf", "goat", "corn")
ACTORS = (*ITEMS, ROWER)
#: what the farmer carries when he rows alone (the catalog's ``item`` label 0)
ALONE = "nothing"
#: who eats whom when the farmer is on the other bank
EATS = (("wolf", "goat"), ("goat", "corn"))
#: the banks' names (the catalog's labels of its bank variables)
BANKS = {0: "near", 1: "far"}


@dataclass
class RiverWorld:
    """Banks (0 start, 1 far side) per actor, what was eaten, how many crossings were made."""

    banks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ACTORS, 0))
    eaten: list[str] = field(default_factory=list)
    crossings: int = 0

    def cross(self, item: str) -> Outcome:
        """The farmer rows to the other bank carrying ``item`` (:data:`ALONE` or one of
        :data:`ITEMS`); a failed crossing changes nothing."""
        if item != ALONE and item not in ITEMS:
            return Outcome("failure", f"there is no {item!r} here (expected {ALONE} or "
                           + ", ".join(ITEMS) + ")")
        here = self.banks[ROWER]
        if item in self.eaten:
            return Outcome("failure", f"the {item} was eaten")
        if item != ALONE and self.banks[item] != here:
            return Outcome("failure", f"the {item} is not on the farmer's bank")
        there = 1 - here
        for actor in (ROWER, item) if item != ALONE else (ROWER,):
            self.banks[actor] = there
        self.crossings += 1
        self.eaten += [prey for eater, prey in EATS
                       if prey not in self.eaten and eater not in self.eaten
                       and self.banks[eater] == self.banks[prey] == here]
        cargo = "alone" if item == ALONE else f"with the {item}"
        return Outcome("completed", f"the farmer crossed {cargo} to the {BANKS[there]} bank")

    def snapshot(self) -> dict[str, Any]:
        """The world as plain data (banks by name)."""
        return {"banks": {a: BANKS[b] for a, b in self.banks.items()},
                "eaten": list(self.eaten), "crossings": self.crossings}


def from_facts(facts: Mapping[str, Any], source: str | None = None) -> RiverWorld:
    """The world a mission starts in: the bank of every actor from ``facts`` (the values the
    request's initial conditions fix, e.g. ``wolf = 0``)."""
    banks = {}
    for actor in ACTORS:
        value = facts.get(actor)
        if isinstance(value, bool) or value not in BANKS:
            raise InputError("the initial conditions do not put every actor on a bank",
                             file=source, key="request.initial_conditions",
                             found=f"{actor} = {value!r}",
                             expected=" & ".join(f"{a} = 0|1" for a in ACTORS))
        banks[actor] = value
    return RiverWorld(banks)
