"""The small domains' worlds (plain Python, no ROS) against independent oracles: the Two-Rivers
crossing against the catalog's move pre/postconditions and the mission's safety rule, the beer
robot's kitchen against the mission's world hypotheses; and the outcomes a world serves against
the embedded runner's for the same mission, seed and forced outcomes."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.supervisors import prepared

from bdi_monitor.hypotheses import parse_hypotheses
from bdi_supervisor.catalog.interfaces import state_domain
from bdi_supervisor.catalog.model import Parameter
from bdi_supervisor.domains import beer_robot, two_rivers
from bdi_supervisor.domains.two_rivers.world import ACTORS, BANKS, RiverWorld
from bdi_supervisor.mission import load_mission
from bdi_supervisor.runtime.adapters import FunctionAdapter
from bdi_supervisor.runtime.served import (
    ServedCapabilities,
    UnknownRequest,
    capability_for,
    unserved,
)
from bdi_supervisor.runtime.session import RunOptions, run_supervisor
from bdi_supervisor.spec.formula import evaluate


def _labels(catalog, variable):
    return catalog.variables[variable].labels


# ----------------------------------------------------------------------------- Two-Rivers


def test_river_banks_are_the_catalogs_bank_labels():
    catalog = load_mission("two_rivers").catalog
    assert all(_labels(catalog, actor) == {v: BANKS[v] for v in BANKS} for actor in ACTORS)


@pytest.mark.parametrize("banks", list(itertools.product((0, 1), repeat=4)))
def test_a_crossing_is_what_the_catalog_says_a_move_is(banks):
    """Every start (16) and item (4): the world crosses iff the move's precondition holds, and
    then the postconditions of ``completed`` hold between before and after; a refused crossing
    changes nothing."""
    mission = load_mission("two_rivers")
    move = mission.catalog.capabilities["move"]
    before = dict(zip(ACTORS, banks))
    for value, item in _labels(mission.catalog, "item").items():
        world = RiverWorld(dict(before))
        outcome = world.cross(item)
        now = {**before, "item": value}
        allowed = all(evaluate(p, now) for p in move.preconditions)
        assert (outcome.outcome == "completed") == allowed, (before, item, outcome)
        if allowed:
            after = {**world.banks, "item": value}
            assert all(evaluate(q, now, after) for q in move.postconditions["completed"])
        else:
            assert world.banks == before and world.crossings == 0


@pytest.mark.parametrize("banks", list(itertools.product((0, 1), repeat=4)))
def test_something_is_eaten_exactly_when_the_missions_safety_rule_breaks(banks):
    """From every start the rule allows: the world records a meal iff the crossing leaves the
    goat with the wolf or the corn without the farmer (the mission's sys_safety formula)."""
    mission = load_mission("two_rivers")
    (rule,) = [c.formula for c in mission.constraints["sys_safety"]]
    before = dict(zip(ACTORS, banks))
    if not evaluate(rule, before, before):
        return
    for item in _labels(mission.catalog, "item").values():
        world = RiverWorld(dict(before))
        if world.cross(item).outcome == "completed":
            assert bool(world.eaten) == (not evaluate(rule, before, world.banks)), (before, item)


def test_an_eaten_item_is_never_carried_again():
    world = RiverWorld()
    assert world.cross("corn").outcome == "completed"  # the wolf is left with the goat
    assert world.eaten == ["goat"]
    assert world.cross("nothing").outcome == "completed"
    refused = world.cross("goat")
    assert refused.outcome == "failure" and "eaten" in refused.reason
    assert world.snapshot()["banks"]["goat"] == "near"


def test_the_world_starts_where_the_initial_conditions_put_everyone():
    world, actions = two_rivers.world_actions(load_mission("two_rivers"))
    assert world.banks == dict.fromkeys(ACTORS, 0)
    assert sorted(a.parameters["item"] for a in actions) == sorted(
        _labels(load_mission("two_rivers").catalog, "item").values())


# --------------------------------------------------------------------- lining up with the runner


def world_adapters(mission, actions):
    """Capability → adapter running the world action its activation asks for (the request the
    project's FlexBE state makes: its interface and its parameters as text)."""
    catalog = mission.catalog
    adapters = {}
    for name, cap in catalog.capabilities.items():
        if state_domain(cap.interface) is None:
            continue

        def run(activation, cap=cap):
            given = {k: str(v) for k, v in activation.parameters.items()}
            (action,) = [a for a in actions if a.interface == cap.interface
                         and all(given.get(k) == v for k, v in a.parameters.items())]
            return action.run()

        adapters[name] = FunctionAdapter("world", tuple(cap.outcomes), run)
    return adapters


def served_outcomes(mission, actions, steps, seed, script):
    """The world's outcomes for the activations of its capabilities among ``steps``, in order."""
    served = ServedCapabilities.for_mission(mission, seed, script)
    adapters = world_adapters(mission, actions)
    outcomes = []
    for step in steps:
        if step.capability not in adapters:
            continue
        given = {k: str(v) for k, v in step.parameters.items()}
        (action,) = [a for a in actions if all(given.get(k) == v
                                               for k, v in a.parameters.items())
                     and a.interface == mission.catalog.capabilities[step.capability].interface]
        outcomes.append(served.act(action).outcome.outcome)
    return outcomes


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), pins=st.sets(st.integers(1, 12), max_size=3))
def test_two_rivers_world_serves_the_embedded_runners_outcomes(seed, pins):
    """Fed the move activations of an embedded run (forced simulator: the mission's seeded high
    wind, plus pinned failures), the world decides the same outcomes, and a run against the world
    itself goes the same way and brings everyone across."""
    mission, prep = prepared("two_rivers")
    script = " ".join(f"move#{n}=failure" for n in sorted(pins)) or None
    options = RunOptions(seed=seed, force=script)
    forced = run_supervisor(mission, prep.machine, prep.reduced, options=options)
    world, actions = two_rivers.world_actions(mission)
    moves = [s.outcome.outcome for s in forced.steps if s.capability == "move"]
    assert served_outcomes(mission, actions, forced.steps, seed, script) == moves
    world, actions = two_rivers.world_actions(mission)
    against = run_supervisor(mission, prep.machine, prep.reduced, options=options,
                             adapters=world_adapters(mission, actions))
    assert [(s.state, s.outcome.outcome) for s in against.steps] == \
        [(s.state, s.outcome.outcome) for s in forced.steps]
    if against.sm_outcome == "finished":
        assert set(world.snapshot()["banks"].values()) == {"far"} and not world.eaten
    assert world.crossings == moves.count("completed")


# ----------------------------------------------------------------------------- beer robot


@pytest.mark.parametrize("index", range(4))
def test_the_kitchen_admits_what_the_hypotheses_admit(index):
    """In each world of the mission's hypotheses (door locked or not, beer or not), the run
    against that kitchen ends ``finished`` only in the unlocked, stocked one, and every outcome
    it meets is one the hypotheses admit there."""
    mission, prep = prepared("beer_robot")
    hypotheses = parse_hypotheses(mission)
    values = hypotheses.worlds()[index]
    world, actions = beer_robot.world_actions(values)
    result = run_supervisor(mission, prep.machine, prep.reduced,
                            adapters=world_adapters(mission, actions))
    for step in result.steps:
        assert hypotheses.admitted(values, step.capability, step.outcome.outcome), step
    nominal = values == {"door_locked": False, "beer": True}
    assert result.sm_outcome == ("finished" if nominal else "aborted")
    assert world.given == (["beer to owner"] if nominal else [])


@pytest.mark.parametrize("script", [None, "open_door=failure", "goto_fridge=failure",
                                    "grab_beer=failure", "bring_beer=failure"])
def test_beer_world_serves_the_embedded_runners_outcomes(script):
    mission, prep = prepared("beer_robot")
    forced = run_supervisor(mission, prep.machine, prep.reduced, options=RunOptions(force=script))
    world, actions = beer_robot.world_actions(parse_hypotheses(mission).actual())
    mine = [s.outcome.outcome for s in forced.steps if s.capability != "apologize"]
    assert served_outcomes(mission, actions, forced.steps, None, script) == mine
    assert (world.given == ["beer to owner"]) == (forced.sm_outcome == "finished")
    if script == "open_door=failure":
        assert not world.door_open and world.robot == "lounge"  # a failed action changes nothing


# ------------------------------------------------------------------- requests and their gaps


def test_shipped_catalogs_are_served_by_their_worlds():
    for name, actions in (("two_rivers", two_rivers.world_actions(load_mission("two_rivers"))[1]),
                          ("beer_robot", beer_robot.world_actions({})[1])):
        catalog = load_mission(name).catalog
        mine = [c for c, cap in catalog.capabilities.items()
                if state_domain(cap.interface) == name]
        assert mine and unserved(catalog, mine, [(a.interface, a.parameters)
                                                 for a in actions]) == []


def test_a_capability_asking_for_what_the_world_lacks_is_a_gap():
    catalog = load_mission("beer_robot").catalog
    goto = catalog.capabilities["goto_fridge"]
    catalog.capabilities["goto_fridge"] = dataclasses.replace(
        goto, parameters=(Parameter("target", "garage"),))
    offered = [(a.interface, a.parameters) for a in beer_robot.world_actions({})[1]]
    gaps = unserved(catalog, ["goto_fridge", "open_door"], offered)
    assert len(gaps) == 1 and "goto_fridge" in gaps[0] and "'garage'" in gaps[0]
    assert unserved(catalog, ["goto_fridge"], []) == [
        "capability 'goto_fridge': no request of NavigateState is served"]


def test_requests_name_exactly_one_capability():
    catalog = load_mission("two_rivers").catalog
    assert capability_for(catalog, two_rivers.MOVE_STATE, {"item": "goat",
                                                           "tracker": "farmer"}) == "move"
    with pytest.raises(UnknownRequest, match="no capability"):
        capability_for(catalog, two_rivers.MOVE_STATE, {"tracker": "boatman"})
    catalog.capabilities["move_again"] = catalog.capabilities["move"]
    with pytest.raises(UnknownRequest, match="several capabilities"):
        capability_for(catalog, two_rivers.MOVE_STATE, {"item": "goat"})
