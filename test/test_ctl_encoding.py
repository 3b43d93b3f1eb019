"""Symbolic relation builders against the explicit semantics.

The grid's encoding from its rules (per-variable update formulas, :mod:`bdi_monitor.models.
grid_rules`) must give exactly the product graph of its explicit tables: the same reachable
nodes, temporal and modal successors, labels and preimages as the table encoding
(:class:`~bdi_monitor.encoding.TableEncoding`) and the explicit oracle (``ctl_oracle``), on
generated grids (size, worlds, obstacles, actual world, object cells).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ctl_oracle import Explicit, as_tuple, replay
from support.ctl_strategies import formulas, structures

from bdi_monitor import structure as structure_io
from bdi_monitor.checker import Checker
from bdi_monitor.counterexample import explain
from bdi_monitor.encoding import TableEncoding
from bdi_monitor.logic import parse
from bdi_monitor.logic.ast import walk
from bdi_monitor.models.beer import PHI1, PHI2
from bdi_monitor.models.grid import grid_structure
from bdi_monitor.models.grid_layout import make_layout, shuffled_tail
from bdi_monitor.models.grid_rules import GridEncoding
from bdi_monitor.product import labels, modal_successors, temporal_successors
from bdi_monitor.structure import RELATIONS, validate
from bdi_monitor.symbolic import SymbolicModel

GRID_PROPS = ("atL", "atF", "atD", "bb", "hb", "br", "pd", "od")
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def grids(draw):
    """Small grid instances with every generator option."""
    n = draw(st.integers(2, 4))
    worlds = draw(st.integers(1, 8 if n == 2 else 9))
    obstacles = draw(st.sampled_from(["none", "wall", "random:1", "random:7"]))
    cells = [(x, y) for x in range(n) for y in range(n)]
    objects = draw(st.one_of(st.none(), st.lists(st.sampled_from(cells), min_size=3, max_size=3,
                                                 unique=True)))
    lounge, door, fridge = objects if objects else (None, None, None)
    actual = draw(st.integers(0, worlds - 1))
    return grid_structure(n, worlds, obstacles, actual, lounge, door, fridge)


def _models(structure):
    rules = SymbolicModel(structure)
    tables = SymbolicModel(structure, encoding=TableEncoding(structure))
    assert isinstance(rules.encoding, GridEncoding)
    return rules, tables


@SETTINGS
@given(grids(), st.data())
def test_grid_rules_give_the_explicit_product(structure, data):
    rules, tables = _models(structure)
    oracle = Explicit(structure)
    reach = set(rules.nodes(rules.reachable))
    assert {as_tuple(u) for u in reach} == oracle.nodes
    assert set(tables.nodes(tables.reachable)) == reach
    assert rules.count(rules.reachable) == len(reach)
    sample = data.draw(st.lists(st.sampled_from(sorted(reach, key=as_tuple)), min_size=1,
                                max_size=6, unique=True))
    for u in sample:
        cube = rules.node_cube(u)
        assert rules.decode(rules.node_assignment(u)) == u
        for d, successor in temporal_successors(structure, u):
            assert rules.nodes(rules.image(cube, d)) == [successor]
        assert set(rules.nodes(rules.image(cube))) == {s for _, s in
                                                        temporal_successors(structure, u)}
        for relation in RELATIONS:
            assert set(rules.nodes(rules.modal_image(relation, cube))) == \
                set(modal_successors(structure, u, relation))
        for p in GRID_PROPS:
            assert rules.contains(u, rules.label(p)) == (p in labels(structure, u)), p
    # preimages of an arbitrary set of reachable nodes, per direction and over all
    target = set(data.draw(st.lists(st.sampled_from(sorted(reach, key=as_tuple)), max_size=12)))
    target_bdd = rules.bdd.false
    for u in target:
        target_bdd |= rules.node_cube(u)
    successors = {u: temporal_successors(structure, u) for u in reach}
    for d in range(structure.k):
        expected = {u for u in reach if any(e == d and s in target for e, s in successors[u])}
        assert set(rules.nodes(rules.pre_along(d, target_bdd) & rules.reachable)) == expected
    expected = {u for u in reach if any(s in target for _, s in successors[u])}
    assert set(rules.nodes(rules.pre(target_bdd) & rules.reachable)) == expected


@SETTINGS
@given(grids(), st.lists(formulas(depth=3, props=GRID_PROPS), min_size=1, max_size=3))
def test_grid_rules_agree_with_the_oracle_on_formulas(structure, fs):
    checker = Checker(structure)
    table_checker = Checker(SymbolicModel(structure, encoding=TableEncoding(structure)))
    oracle = Explicit(structure)
    for f in fs:
        for sub in walk(f):
            sat = {as_tuple(u) for u in checker.model.nodes(checker.sat(sub))}
            assert sat == set(oracle.sat(sub)), str(sub)
            assert checker.count(sub) == table_checker.count(sub)
        certificate = explain(checker, f)
        assert certificate.verdict == oracle.holds(f)
        replay(certificate, oracle)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids())
def test_computed_grid_tables_are_a_valid_structure_and_round_trip(tmp_path_factory, structure):
    validate(structure)
    assert structure.propositions == frozenset(p for w in structure.worlds for ls in w.labels
                                               for p in ls)
    folder = tmp_path_factory.mktemp("g")
    structure_io.dump(structure, folder / "g.json")
    loaded = structure_io.load(folder / "g.json")
    assert structure_io.to_data(loaded) == structure_io.to_data(structure)
    assert Checker(loaded).count() == Checker(structure).count()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures())
def test_json_and_yaml_files_give_the_same_structure(tmp_path_factory, structure):
    folder = tmp_path_factory.mktemp("s")
    structure_io.dump(structure, folder / "s.json")
    structure_io.dump(structure, folder / "s.yaml")
    from_json = structure_io.load(folder / "s.json")
    assert structure_io.to_data(from_json) == structure_io.to_data(structure_io.load(
        folder / "s.yaml")) == structure_io.to_data(structure)


def test_json_errors_name_the_file_and_position(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"directions": ["a"],\n "worlds": {')
    with pytest.raises(structure_io.InputError) as info:
        structure_io.load(bad)
    assert info.value.file == str(bad) and info.value.line == 2
    data = structure_io.to_data(grid_structure(2))
    data["worlds"]["w1"]["states"]["x0y0h0"]["next"]["9"] = "x0y0h0"
    bad.write_text(json.dumps(data))
    with pytest.raises(structure_io.InputError) as info:
        structure_io.load(bad)
    assert info.value.key == "worlds.w1.states.x0y0h0.next.9"
    bad.write_text('{"directions": ["a"], "directions": ["b"]}')
    with pytest.raises(structure_io.InputError, match="duplicate key"):
        structure_io.load(bad)


def test_grid_is_built_from_rules_without_reading_tables():
    """The symbolic model and the checker never read a table row (rows are computed on
    demand); the explicit oracle, which does, finds the same nodes and verdicts."""
    structure = grid_structure(8, worlds=8, obstacles="wall", actual=4)
    calls = []
    for table in [w.delta for w in structure.worlds] + [structure.automata["B"].tau]:
        table._item = (lambda item: lambda s: calls.append(s) or item(s))(table._item)
    checker = Checker(structure)
    verdicts = [checker.holds(f) for f in map(parse, (PHI1, PHI2, "bel EF bb"))]
    assert calls == []
    # w, wt, d, then every state bit three times: current, next, and the closures' mid copy
    assert checker.model.var_count == 3 + 3 + 3 + 3 * (3 + 3 + 8 + 3)
    oracle = Explicit(structure)
    assert checker.count() == len(oracle.nodes)
    assert verdicts == [oracle.holds(f) for f in map(parse, (PHI1, PHI2, "bel EF bb"))]


@given(st.integers(0, 60), st.integers(0, 62), st.integers(0, 2**32))
def test_shuffled_tail_is_the_tail_of_a_full_shuffle(size, count, seed):
    cells = list(range(size))
    random.Random(seed).shuffle(cells)
    assert shuffled_tail(size, count, random.Random(seed)) == cells[::-1][:count]


@given(st.integers(2, 40), st.integers(5, 40))
def test_fridge_variants_are_distinct_free_cells_off_the_objects(n, worlds):
    variants = (worlds + 3) // 4
    if n * n - 3 < variants - 1:
        return
    layout = make_layout(n, worlds)
    assert len(layout.fridges) == variants
    objects = {layout.lounge, layout.door}
    assert len(set(layout.fridges)) == variants and not objects & set(layout.fridges)
    assert all(0 <= x < n and 0 <= y < n for x, y in layout.fridges)
