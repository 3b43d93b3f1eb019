"""Generated specs have the pinned realizability verdicts (and broken ones are unrealizable),
checked with omega as an oracle.

The spec goes to omega through :mod:`bdi_supervisor.synthesis.omega_bridge` (its own
translation and bit-blasting, none of our BDD code), with slugs' semantics: for all environment
initial states some system initial state wins; the system sees the next input before choosing
and wins when the environment violates its safety first.
"""

import dataclasses

import pytest
from support.expected_verdicts import CONFIGS, ENCODINGS, expected, group_of, overrides
from support.paths import MISSIONS

from bdi_supervisor.common import Realizability
from bdi_supervisor.mission import load_mission
from bdi_supervisor.mission.model import MissionFormula
from bdi_supervisor.spec.structuredslugs import parse_formula
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.omega_bridge import omega_realizable as realizable

OURS = ["coffee", "coffee_extended", "vending", "vending_extended", "two_rivers"]


@pytest.mark.parametrize("name", OURS)
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("config", CONFIGS)
def test_omega_agrees_with_the_pinned_verdicts(name, encoding, config):
    mission = load_mission(MISSIONS / f"{name}.yaml")
    cell = expected(group_of(name), encoding, config)
    spec = generate_spec(mission, **overrides(encoding, config))
    assert realizable(spec) == (cell.synthesis == Realizability.REALIZABLE)


def _with(mission, section, text):
    constraints = dict(mission.constraints)
    constraints[section] = (*constraints.get(section, ()),
                            MissionFormula(text, parse_formula(text), "test"))
    return dataclasses.replace(mission, constraints=constraints)


#: every move that leaves the start configuration carries the wolf
WOLF_FIRST = "wolf' = 0 & goat' = 0 & corn' = 0 & farmer' = 0 & move_a' -> item' = 1"


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
@pytest.mark.parametrize("extra", [
    "item' != 2",                     # the goat must cross, so it must be carried
    "item' != 1 & item' != 3",        # the wolf and the corn must be carried too
    WOLF_FIRST,                       # taking the wolf first leaves the goat with the corn
])
def test_two_rivers_without_a_solution_is_unrealizable(encoding, extra):
    mission = _with(load_mission(MISSIONS / "two_rivers.yaml"), "sys_safety", extra)
    assert not realizable(generate_spec(mission, encoding=encoding))


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
def test_two_rivers_safety_rule_is_what_makes_it_a_puzzle(encoding):
    mission = load_mission(MISSIONS / "two_rivers.yaml")
    # taking the wolf first is fine once the rule is gone
    free = dataclasses.replace(mission, constraints={})
    assert realizable(generate_spec(_with(free, "sys_safety", WOLF_FIRST), encoding=encoding))


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
def test_goal_that_needs_a_forbidden_capability_is_unrealizable(encoding):
    mission = _with(load_mission(MISSIONS / "vending_extended.yaml"), "sys_safety", "!soda_a'")
    assert not realizable(generate_spec(mission, encoding=encoding))
