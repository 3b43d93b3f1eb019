"""Structure YAML: round trips, the shipped beer model, validation errors with locations."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from support.ctl_strategies import structures
from support.paths import CTL_MODELS

from bdi_monitor import structure as structure_io
from bdi_monitor.models.beer import beer_structure
from bdi_monitor.models.grid import grid_structure
from bdi_monitor.product import explore
from bdi_supervisor.errors import InputError

MINIMAL = """\
directions: [go, stay]
actual_world: a
worlds:
  a:
    initial: s0
    states:
      s0: {labels: [p], next: {go: s1, 2: s0}}
      s1: {next: {1: s0}}
  b:
    states:
      t0: {labels: [q], next: {2: t0}}
belief:
  states:
    q0: {next: {go: q1}, out: [a, b]}
    q1: {out: {a: [a]}}
"""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structure=structures())
def test_yaml_round_trip(tmp_path_factory, structure):
    path = tmp_path_factory.mktemp("s") / "s.yaml"
    structure_io.dump(structure, path)
    loaded = structure_io.load(path)
    assert structure_io.to_data(loaded) == structure_io.to_data(structure)
    assert explore(loaded) == explore(structure)


def test_shipped_beer_model_is_the_generator_s():
    loaded = structure_io.load(CTL_MODELS / "beer.yaml")
    assert structure_io.to_data(loaded) == structure_io.to_data(beer_structure())


def test_grid_round_trips_through_yaml(tmp_path):
    structure = grid_structure(3, worlds=5, obstacles="random:1")
    structure_io.dump(structure, tmp_path / "g.yaml")
    assert structure_io.to_data(structure_io.load(tmp_path / "g.yaml")) == \
        structure_io.to_data(structure)


def test_minimal_structure_defaults():
    s = structure_io.from_yaml(MINIMAL)
    assert [w.name for w in s.worlds] == ["a", "b"]
    assert s.worlds[0].delta == [[1, 0], [0, None]]
    assert s.automata["B"].tau == [[1, 0], [1, 1]]  # an omitted direction stays
    assert s.automata["B"].out[0] == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert s.automata["B"].out[1] == {(0, 0)}
    assert s.automata["D"].out == [frozenset()]
    assert s.propositions == {"p", "q"}


@pytest.mark.parametrize("old, new, key, line, found", [
    ("s1: {next: {1: s0}}", "s1: {next: {}}", "worlds.a.states.s1.next", 8, "no direction"),
    ("{go: s1, 2: s0}", "{go: s9, 2: s0}", "worlds.a.states.s0.next.go", 7, "'s9'"),
    ("{go: s1, 2: s0}", "{go: s1, 3: s0}", "worlds.a.states.s0.next.3", 7, "3"),
    ("out: [a, b]", "out: [a, c]", "belief.states.q0.out[1]", 14, "'c'"),
    ("actual_world: a", "actual_world: z", "actual_world", 2, "'z'"),
    ("    initial: s0", "    initial: s5", "worlds.a.initial", 5, "'s5'"),
    ("      t0: {labels", "      t0: {colour: red, labels", "worlds.b.states.t0.colour", 11,
     "'colour'"),
    ("directions: [go, stay]", "directions: go", "directions", 1, "'go'"),
    ("      s0: {labels: [p]", "      s0: {labels: [p q]", "worlds.a.states.s0.labels[0]", 7,
     "'p q'"),
])
def test_validation_errors_name_file_key_and_line(old, new, key, line, found):
    assert old in MINIMAL
    with pytest.raises(InputError) as info:
        structure_io.from_yaml(MINIMAL.replace(old, new), "m.yaml")
    error = info.value
    assert (error.file, error.key, error.line, error.found) == ("m.yaml", key, line, found)


def test_yaml_syntax_error_has_a_position():
    with pytest.raises(InputError) as info:
        structure_io.from_yaml("directions: [a\nworlds: {", "bad.yaml")
    assert info.value.line is not None and info.value.file == "bad.yaml"


def test_missing_file(tmp_path):
    with pytest.raises(InputError) as info:
        structure_io.load(tmp_path / "nope.yaml")
    assert "nope.yaml" in str(info.value)
