"""The numpy explicit-state peer of bench/ctl against the explicit test oracle: same product
nodes and the same true-set for every subformula, on random structures (partial worlds, shared
automata, all operators) and on small grids."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ctl_oracle import Explicit
from support.ctl_strategies import formulas, structures
from support.paths import BENCH

from bdi_monitor.logic import parse
from bdi_monitor.logic.ast import walk
from bdi_monitor.models.beer import PHI1, PHI2
from bdi_monitor.models.grid import grid_structure

np = pytest.importorskip("numpy")
_PATH = BENCH / "ctl" / "explicit_numpy.py"
_SPEC = importlib.util.spec_from_file_location("explicit_numpy", _PATH)
peer = importlib.util.module_from_spec(_SPEC)
sys.modules["explicit_numpy"] = peer  # dataclasses look their module up there
_SPEC.loader.exec_module(peer)


def _node(row, m):
    states = tuple(None if s < 0 else int(s) for s in row[1:1 + m])
    return int(row[0]), states, tuple(int(q) for q in row[1 + m:])


def _checker(structure):
    tables = peer.read_tables(structure)
    product = peer.explore(tables)
    m = len(structure.worlds)
    nodes = [_node(row, m) for row in product.rows.tolist()]
    return peer.ExplicitChecker(tables, product), nodes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures(), st.lists(formulas(depth=3), min_size=1, max_size=3))
def test_numpy_peer_agrees_with_the_oracle(structure, fs):
    checker, nodes = _checker(structure)
    oracle = Explicit(structure)
    assert len(set(nodes)) == len(nodes) and set(nodes) == oracle.nodes
    assert nodes[0] == oracle.start
    for f in fs:
        for sub in walk(f):
            got = {u for u, inside in zip(nodes, checker.sat(sub)) if inside}
            assert got == set(oracle.sat(sub)), str(sub)


@pytest.mark.parametrize("args", [dict(n=4), dict(n=3, worlds=8, obstacles="wall", actual=5),
                                  dict(n=4, worlds=2, actual=1)])
def test_numpy_peer_on_grids(args):
    structure = grid_structure(**args)
    checker, nodes = _checker(structure)
    oracle = Explicit(structure)
    assert set(nodes) == oracle.nodes
    for f in map(parse, (PHI1, PHI2, "bel EF bb", "int E[!hb U atF]")):
        assert checker.holds(f) is oracle.holds(f), str(f)
