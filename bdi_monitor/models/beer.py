"""The beer robot of La Torre and Parlato's CTL-BDI model checker, abstract model
(docs/references.md).

Three locations (lounge L, fridge F, door D), two directions (1 task_step, 2 attend_door), four
worlds over two uncertain facts: ``br`` (beer in the fridge) and ``pd`` (person at the door).
The robot believes there is beer until it has looked into the fridge and learns ``pd`` once it
has been at the door. It desires beer worlds; it intends what it believes and desires.

The belief, desire and intention relations here are shared with the grid generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bdi_monitor.structure import Automaton, Structure, World, validate

#: the seed model's two properties and extra checks
PHI1 = "AG(bel br -> EF bb)"
PHI2 = "AG(bel br -> AF bb)"
EXTRA = ("AG(atF -> bel br | bel !br)", "AG(bel br -> br)", "bel EF bb")

#: (br, pd) of the four base worlds w1..w4
BASE_FACTS = ((1, 1), (1, 0), (0, 1), (0, 0))


@dataclass(frozen=True)
class Facts:
    """What a world instance fixes: beer in the fridge, person at the door, fridge variant."""

    br: int
    pd: int
    variant: int = 0


def believed(facts: Sequence[Facts], i: int, looked_fridge: bool, looked_door: bool) -> list[int]:
    """Worlds the robot considers possible in world i: it knows its map (same variant), assumes
    beer until it looked into its fridge, and knows pd once it has been at the door."""
    me = facts[i]
    return [j for j, other in enumerate(facts)
            if other.variant == me.variant
            and (other.br == me.br if looked_fridge else other.br == 1)
            and (other.pd == me.pd or not looked_door)]


def desired(facts: Sequence[Facts], i: int) -> list[int]:
    """Worlds the robot wants: beer, with the person at the door as it actually is."""
    me = facts[i]
    return [j for j, other in enumerate(facts)
            if other.variant == me.variant and other.br == 1 and other.pd == me.pd]


def intended(facts: Sequence[Facts], i: int, looked_fridge: bool, looked_door: bool) -> list[int]:
    """Believed and desired worlds; the believed ones where no believed world is desired."""
    belief = believed(facts, i, looked_fridge, looked_door)
    both = [j for j in belief if j in set(desired(facts, i))]
    return both or belief


def pairs(relation: Sequence[Sequence[int]]) -> frozenset[tuple[int, int]]:
    return frozenset((i, j) for i, targets in enumerate(relation) for j in targets)


_LOCATIONS = ("L", "F", "D")


def labels_at(locations: Sequence[str], holding: int, fact: Facts) -> set[str]:
    """The propositions of a world state: ``at<location>`` for each place the robot is at (L, F,
    D), ``br`` and ``pd`` from the world's facts, ``hb`` holding a beer, ``bb`` brought (at the
    lounge holding one), ``od`` a person at the door while the robot is there."""
    label = {f"at{location}" for location in locations}
    label |= {name for name, holds in (("br", fact.br), ("pd", fact.pd), ("hb", holding)) if holds}
    if "L" in locations and holding:
        label.add("bb")
    if "D" in locations and fact.pd:
        label.add("od")
    return label


def beer_structure(actual: str = "w1") -> Structure:
    """The abstract beer robot with ``actual`` (w1..w4) as the actual world."""
    facts = [Facts(br, pd) for br, pd in BASE_FACTS]
    states = [f"{loc}{h}" for loc in _LOCATIONS for h in (0, 1)]
    index = {name: i for i, name in enumerate(states)}
    worlds = []
    for w, fact in enumerate(facts):
        delta, labels = [], []
        for loc in _LOCATIONS:
            for h in (0, 1):
                task = {"L": f"F{fact.br}", "F": f"L{h}", "D": f"L{h}"}[loc]
                door = {"L": "D0", "F": f"D{h}", "D": f"D{h}"}[loc]
                delta.append([index[task], index[door]])
                labels.append(frozenset(labels_at([loc], h, fact)))
        worlds.append(World(f"w{w + 1}", list(states), index["L0"], delta, labels))
    # the belief/intention automaton tracks (location, looked into fridge, been at door)
    qstates = [(loc, lf, ld) for loc in _LOCATIONS for lf in (0, 1) for ld in (0, 1)]
    qindex = {q: i for i, q in enumerate(qstates)}
    tau = []
    for loc, lf, ld in qstates:
        after_task = {"L": "F", "F": "L", "D": "L"}[loc]
        tau.append([qindex[(after_task, lf | (after_task == "F"), ld)], qindex[("D", lf, 1)]])
    names = [f"{loc}_f{lf}d{ld}" for loc, lf, ld in qstates]
    m = len(facts)
    belief_out = [pairs([believed(facts, i, bool(lf), bool(ld)) for i in range(m)])
                  for _, lf, ld in qstates]
    intention_out = [pairs([intended(facts, i, bool(lf), bool(ld)) for i in range(m)])
                     for _, lf, ld in qstates]
    desire = Automaton(["q0"], 0, [[0, 0]], [pairs([desired(facts, i) for i in range(m)])])
    automata = {"B": Automaton(names, qindex[("L", 0, 0)], tau, belief_out),
                "D": desire,
                "I": Automaton(list(names), qindex[("L", 0, 0)], [list(r) for r in tau],
                               intention_out)}
    structure = Structure(["task_step", "attend_door"], worlds, automata,
                          [w.name for w in worlds].index(actual), name="beer")
    return validate(structure)
