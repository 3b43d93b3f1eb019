"""The mission model: hypotheses and properties sections, the structure built from a supervisor,
launch-time verdicts, checked against the explicit-state oracle."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ctl_oracle import Explicit, replay
from support.monitor_support import prepared

from bdi_monitor.hypotheses import Fact, Hypotheses, parse_hypotheses
from bdi_monitor.logic import parse
from bdi_monitor.mission_model import ModelChecker, build_model, mission_model
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission.loader import load_mission


def beer():
    mission, prep = prepared("beer_robot")
    return mission, prep, mission_model(mission, prep.machine, prep.reduced)


def as_tuple(node):
    return (node.world, node.states, node.automata)


def test_beer_worlds_directions_and_labels():
    model = beer()[2]
    s = model.structure
    assert [w.name for w in s.worlds] == ["not_door_locked.not_beer", "not_door_locked.beer",
                                          "door_locked.not_beer", "door_locked.beer"]
    assert s.worlds[s.actual].name == "not_door_locked.beer"
    assert s.directions == ["completed", "failure", "stay"]
    # every outcome the machine can take is a direction
    start = s.worlds[0].initial
    assert {"open_door_a"} <= s.worlds[0].labels[start]
    assert "door_locked" in s.worlds[2].labels[start] and "beer" in s.worlds[3].labels[start]
    # door locked: open_door can only fail; unlocked: only succeed
    d_fail, d_ok = s.directions.index("failure"), s.directions.index("completed")
    assert s.worlds[2].delta[start][d_ok] is None and s.worlds[2].delta[start][d_fail] is not None
    assert s.worlds[0].delta[start][d_fail] is None and s.worlds[0].delta[start][d_ok] is not None


def test_consistent_worlds_are_the_worlds_whose_tree_contains_the_time_point():
    _, _, model = beer()
    s = model.structure
    tau = s.automata["B"].tau
    todo = [(model.initial, tuple(w.initial for w in s.worlds), ())]
    seen = set()
    while todo:
        q, states, path = todo.pop()
        if (q, states) in seen:
            continue
        seen.add((q, states))
        position, consistent = model.tracker[q]
        assert consistent == {j for j, st_ in enumerate(states) if st_ is not None}, path
        if position is not None:
            assert all(st_ in (None, position) for st_ in states)
        for d in range(s.k):
            nxt = tuple(None if st_ is None else w.delta[st_][d]
                        for w, st_ in zip(s.worlds, states))
            if any(n is not None for n in nxt):
                todo.append((tau[q][d], nxt, (*path, s.directions[d])))
            else:
                assert tau[q][d] == model.sink


def test_beer_launch_verdicts_match_the_seed_pattern():
    _, _, model = beer()
    checker = ModelChecker(model)
    results = {p.name: checker.launch(p) for p in model.properties}
    # phi1-like: possible only where there is beer behind an unlocked door; phi2-like: never
    assert results["beer_possible"].holds
    assert results["beer_possible"].holds_in == ["not_door_locked.beer"]
    assert not results["beer_inevitable"].holds and results["beer_inevitable"].holds_in == []
    assert results["always_ends"].holds and len(results["always_ends"].holds_in) == 4
    assert results["door_believed_unlocked"].holds  # presumed, not yet contradicted


def test_counterexamples_replay_against_the_oracle():
    _, _, model = beer()
    checker = ModelChecker(model)
    result = checker.launch(next(p for p in model.properties if p.name == "beer_inevitable"))
    assert result.certificate is not None and not result.certificate.verdict
    replay(result.certificate, Explicit(model.structure))


@pytest.mark.parametrize("name", ["beer_robot", "logistics_p0"])
def test_truth_tables_agree_with_the_explicit_oracle(name):
    mission, prep = prepared(name)
    model = mission_model(mission, prep.machine, prep.reduced)
    checker = ModelChecker(model)
    oracles = [Explicit(dataclasses.replace(model.structure, actual=j))
               for j in range(len(model.structure.worlds))]
    for prop in model.properties[:6]:
        assert checker.launch(prop).holds == oracles[model.structure.actual].holds(prop.formula)
        table = checker.truth_table(prop)
        for q, (_, consistent) in enumerate(model.tracker):
            expected = {j for j in consistent
                        if as_tuple(model.node(q, j)) in oracles[j].sat(prop.formula)}
            assert table[q] == expected, (prop.name, q)


FORMULAS = ["bel EF finished", "AG(bel f0 -> AF end)", "E[!fault U finished]", "des EF goal",
            "int AX end", "AG(open_door_f -> bel f0)", "AG(bel !f1 -> EF goal)",
            "A[!end U (f1 | end)]"]


@st.composite
def facts(draw):
    mission = prepared("beer_robot")[0]
    caps = sorted(mission.catalog.capabilities)
    found = []
    for n in range(draw(st.integers(1, 2))):
        admits = {}
        for value in (False, True):
            table = {}
            for cap in draw(st.lists(st.sampled_from(caps), max_size=2, unique=True)):
                outcomes = mission.catalog.capabilities[cap].outcomes
                table[cap] = frozenset(draw(st.lists(st.sampled_from(outcomes), unique=True)))
            admits[value] = table
        presumed = draw(st.sampled_from([None, False, True]))
        found.append(Fact(f"f{n}", (False, True), presumed, draw(st.booleans()), admits))
    if len(found) == 1:
        found.append(Fact("f1", (False, True), None, False, {}))
    return Hypotheses(tuple(found))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts())
def test_random_hypotheses_symbolic_equals_explicit(hypotheses):
    mission, prep = prepared("beer_robot")
    model = build_model(prep.machine, mission.catalog, hypotheses, prep.reduced)
    checker = ModelChecker(model)
    oracles = [Explicit(dataclasses.replace(model.structure, actual=j))
               for j in range(len(model.structure.worlds))]
    for text in FORMULAS:
        formula = parse(text)
        for j, oracle in enumerate(oracles):
            assert checker.checkers[j].holds(formula) == oracle.holds(formula), (text, j)
    # belief is serial (KD) wherever the automaton is not in its sink
    out_b = model.structure.automata["B"].out
    for q, (position, consistent) in enumerate(model.tracker):
        if position is not None:
            assert {j for _, j in out_b[q]} <= consistent and out_b[q]


def _mission(tmp_path, sections: str):
    """The beer mission with its monitor sections replaced by ``sections``."""
    base = prepared("beer_robot")[0]
    text = Path(base.file).read_text().split("hypotheses:")[0]
    path = tmp_path / "beer_robot.yaml"
    path.write_text(text.replace("../catalogs/beer_robot.yaml", str(base.catalog_path))
                    + sections)
    return load_mission(path)


@pytest.mark.parametrize("sections, key, message", [
    ("hypotheses:\n  door:\n    admits:\n      true: {fly: [completed]}\n",
     "hypotheses.door.admits[True].fly", "unknown capability"),
    ("hypotheses:\n  door:\n    admits:\n      true: {open_door: [flying]}\n",
     "hypotheses.door.admits[True].open_door", "outcomes must be"),
    ("hypotheses:\n  door:\n    presumed: maybe\n", "hypotheses.door.presumed",
     "not one of the fact's values"),
    ("hypotheses:\n  holding: {}\n", "hypotheses.holding", "clashes"),
    ("hypotheses:\n  door:\n    colour: red\n", "hypotheses.door.colour", "unknown key"),
])
def test_bad_hypotheses_are_located(tmp_path, sections, key, message):
    mission = _mission(tmp_path, sections)
    with pytest.raises(InputError) as info:
        parse_hypotheses(mission)
    assert info.value.key == key and message in info.value.message
    assert info.value.file == mission.file and info.value.line is not None


def test_bad_property_formula_is_located(tmp_path):
    mission = _mission(tmp_path, "properties:\n  p: 'AG(bel holding -> EF nowhere)'\n")
    prep = prepared("beer_robot")[1]
    with pytest.raises(InputError) as info:
        mission_model(mission, prep.machine, prep.reduced)
    error = info.value
    assert error.key == "properties.p" and error.line == mission.lines[("properties", "p")]
    assert "nowhere" in error.found and "column" in error.message
