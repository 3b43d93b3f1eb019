"""The symbolic CTL-BDI checker against independent oracles (explicit product, pyModelChecking),
the seed's case study and grid benchmark, and the until-falsity (lasso) regression."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ctl_oracle import Explicit, as_tuple, replay
from support.ctl_strategies import formulas, structures

from bdi_monitor.checker import Checker, check
from bdi_monitor.counterexample import explain
from bdi_monitor.encoding import TableEncoding
from bdi_monitor.logic import parse
from bdi_monitor.logic.ast import walk
from bdi_monitor.models.beer import EXTRA, PHI1, PHI2, beer_structure
from bdi_monitor.models.grid import grid_structure
from bdi_monitor.product import explore
from bdi_monitor.structure import Automaton, Structure, World, empty_automaton
from bdi_monitor.symbolic import CLOSURE_AFTER, CLOSURE_LIMIT, SymbolicModel

FAST = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _sat_nodes(checker: Checker, formula) -> set:
    return {as_tuple(n) for n in checker.model.nodes(checker.sat(formula))}


@FAST
@given(structures(), st.lists(formulas(), min_size=1, max_size=3))
def test_agrees_with_explicit_checker_on_random_structures(structure, fs):
    checker = Checker(structure)
    oracle = Explicit(structure)
    assert {as_tuple(n) for n in checker.model.nodes(checker.reach)} == oracle.nodes
    assert checker.count() == len(oracle.nodes) == len(explore(structure))
    for f in fs:
        for sub in walk(f):
            assert _sat_nodes(checker, sub) == set(oracle.sat(sub)), str(sub)
        certificate = explain(checker, f)
        assert certificate.verdict == oracle.holds(f)
        replay(certificate, oracle)


@FAST
@given(structures(), formulas(depth=3), st.data())
def test_certificates_replay_at_every_node(structure, f, data):
    checker = Checker(structure)
    oracle = Explicit(structure)
    nodes = explore(structure)
    node = data.draw(st.sampled_from(nodes))
    assert checker.holds(f, node) == oracle.holds(f, as_tuple(node))
    replay(explain(checker, f, node), oracle)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures(max_worlds=1, modal=False, max_states=7, partial=False),
       st.lists(formulas(modal=False, depth=3), min_size=3, max_size=5))
def test_agrees_with_pymodelchecking_on_plain_ctl(structure, fs):
    pytest.importorskip("pyModelChecking")
    from pyModelChecking import CTL

    from bdi_monitor.pmc_bridge import translate, world_kripke

    kripke = world_kripke(structure.worlds[0])
    checker = Checker(structure)
    for f in fs:
        expected = set(CTL.modelcheck(kripke, translate(f, tagged=False)))
        got = {n.states[0] for n in checker.model.nodes(checker.sat(f))}
        assert got == expected, str(f)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures(max_states=3, partial=False), st.lists(formulas(depth=3), min_size=2, max_size=3))
def test_tagged_pymodelchecking_peer_agrees_on_ctl_bdi(structure, fs):
    """The peer of bench/ctl: CTL-BDI on the tagged-edge product, checked by pyModelChecking."""
    pytest.importorskip("pyModelChecking")
    from bdi_monitor.pmc_bridge import holds, tagged_kripke

    kripke = tagged_kripke(structure)
    checker = Checker(structure)
    for f in fs:
        assert holds(kripke, f) == checker.holds(f), str(f)


def test_until_falsity_on_a_lasso_is_not_a_least_fixpoint():
    """One state, self-loop, a true, b false (a lasso): E[a U b], A[a U b] and AF b are
    false, which a least fixpoint over 'false' rules never derives; EG a is true."""
    world = World("w", ["u"], 0, [[0]], [frozenset({"a"})])
    structure = Structure(["loop"], [world], {r: empty_automaton(1) for r in "BDI"},
                          propositions=frozenset({"a", "b"}))
    checker = Checker(structure)
    oracle = Explicit(structure)
    for text, expected in [("E[a U b]", False), ("A[a U b]", False), ("AF b", False),
                           ("!E[a U b]", True), ("EG a", True), ("EG !b", True),
                           ("AG !E[a U b]", True)]:
        f = parse(text)
        assert check(checker, f).holds is expected, text
        certificate = explain(checker, f)
        replay(certificate, oracle)
    lasso = explain(checker, parse("AF b"))
    assert any(e.back for e in lasso.edges), "AF b is refuted by a lasso"


@pytest.mark.parametrize("actual, nodes, verdicts", [
    ("w1", 20, [True, False, True, True, True]),
    ("w2", 20, [True, False, True, True, True]),
    ("w3", 37, [False, False, True, False, True]),
    ("w4", 37, [False, False, True, False, True]),
])
def test_beer_robot_gives_the_seed_model_verdicts(actual, nodes, verdicts):
    structure = beer_structure(actual)
    checker = Checker(structure)
    oracle = Explicit(structure)
    assert checker.count() == nodes == len(oracle.nodes)
    for text, expected in zip((PHI1, PHI2, *EXTRA), verdicts):
        f = parse(text, structure.propositions)
        assert checker.holds(f) is expected is oracle.holds(f), text
        replay(explain(checker, f), oracle)


@pytest.mark.parametrize("n, beer_nodes, dry_nodes", [(2, 34, 63), (4, 178, 327),
                                                     (8, 754, 1383)])
def test_grid_gives_the_seed_benchmark_node_counts(n, beer_nodes, dry_nodes):
    phi1, phi2 = parse(PHI1), parse(PHI2)
    for actual, nodes, phi1_holds in ((0, beer_nodes, True), (2, dry_nodes, False)):
        structure = grid_structure(n, actual=actual)
        checker = Checker(structure)
        assert checker.count() == nodes
        assert checker.holds(phi1) is phi1_holds
        assert checker.holds(phi2) is False
        oracle = Explicit(structure)
        assert len(oracle.nodes) == nodes
        for f in (phi1, phi2):
            assert oracle.holds(f) is checker.holds(f)
            certificate = explain(checker, f)
            replay(certificate, oracle)


def test_grid_with_obstacles_and_more_worlds_agrees_with_oracle():
    phi1, phi2 = parse(PHI1), parse(PHI2)
    for structure in (grid_structure(4, obstacles="wall"),
                      grid_structure(4, worlds=6, obstacles="random:3", actual=4),
                      grid_structure(3, worlds=2)):
        checker = Checker(structure)
        oracle = Explicit(structure)
        assert checker.count() == len(oracle.nodes)
        for f in (phi1, phi2, parse("bel EF bb"), parse("AG(atF -> bel br | bel !br)"),
                  parse("int EF bb"), parse("E[!hb U atF]")):
            assert checker.holds(f) is oracle.holds(f), str(f)
            replay(explain(checker, f), oracle)
        assert checker.holds(phi1) is bool(structure.worlds[structure.actual].labels[0] & {"br"})


def test_witnesses_for_true_existential_properties():
    structure = grid_structure(4)
    checker = Checker(structure)
    oracle = Explicit(structure)
    for text in ("EF bb", "E[!hb U atF]", "EG !bb", "bel EF bb", "EX EX atF | EF atD"):
        f = parse(text)
        certificate = explain(checker, f)
        assert certificate.verdict is True
        assert certificate.obligations[certificate.root].rule != "invariant"
        replay(certificate, oracle)


def test_partial_worlds_use_bottom_states():
    """World w1 has no 'b' direction: after a 'b' step in w0 it is absent (⊥) and no longer
    accessible, so bel p changes truth."""
    w0 = World("w0", ["x", "y"], 0, [[0, 1], [1, 1]], [frozenset({"p"}), frozenset()])
    w1 = World("w1", ["z"], 0, [[0, None]], [frozenset()])
    everyone = frozenset({(0, 0), (0, 1), (1, 0), (1, 1)})
    b = Automaton(["q"], 0, [[0, 0]], [everyone])
    structure = Structure(["a", "b"], [w0, w1], {"B": b, "D": b, "I": b})
    checker = Checker(structure)
    oracle = Explicit(structure)
    for text in ("bel p", "EX bel !p", "AX bel !p", "EF (bel !p & !p)", "AG bel !p"):
        f = parse(text)
        assert checker.holds(f) is oracle.holds(f), text
        replay(explain(checker, f), oracle)
    assert checker.holds(parse("EX bel !p"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures(), formulas(depth=3), st.data())
def test_worlds_where_matches_per_world_truth(structure, f, data):
    checker = Checker(structure)
    node = data.draw(st.sampled_from(explore(structure)))
    oracle = Explicit(structure)
    expected = {j for j in range(len(structure.worlds))
                if (j, node.states, node.automata) in oracle.nodes
                and oracle.holds(f, (j, node.states, node.automata))}
    assert checker.worlds_where(f, node) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structures(), formulas(depth=3), st.permutations(range(3)))
def test_invariant_under_renumbering_worlds(structure, f, order):
    """Permuting the world indices (relations and actual world along) keeps every verdict."""
    m = len(structure.worlds)
    perm = [p for p in order if p < m]
    where = {old: new for new, old in enumerate(perm)}
    worlds = [structure.worlds[old] for old in perm]
    autos = {r: Automaton(a.states, a.initial, a.tau,
                          [frozenset((where[i], where[j]) for i, j in out) for out in a.out])
             for r, a in structure.automata.items()}
    renumbered = Structure(structure.directions, worlds, autos, where[structure.actual],
                           propositions=structure.propositions)
    assert Checker(renumbered).holds(f) == Checker(structure).holds(f)
    assert Checker(renumbered).count() == Checker(structure).count()


@FAST
@given(structures(), st.lists(formulas(), min_size=1, max_size=3), st.sampled_from([0, 1, 2]),
       st.sampled_from([1, 40, CLOSURE_LIMIT]))
def test_closure_accelerated_fixpoints_agree_with_the_explicit_checker(structure, fs, after,
                                                                      limit):
    """Reachability and E-until switched to per-direction closures after ``after`` rounds (a
    ``limit`` of 1 or 40 nodes gives them up, on some structures part way) give the oracle's
    sets."""
    model = SymbolicModel(structure, closure_after=after, closure_limit=limit)
    checker = Checker(model)
    oracle = Explicit(structure)
    assert {as_tuple(n) for n in model.nodes(checker.reach)} == oracle.nodes
    for f in fs:
        for sub in walk(f):
            assert _sat_nodes(checker, sub) == set(oracle.sat(sub)), str(sub)


@pytest.mark.parametrize(("n", "worlds"), [(6, 8), (9, 5), (12, 4)])
def test_grid_closures_give_the_step_by_step_sets(n, worlds):
    """On grids long enough to need many steps, the closures give the same reachable set and
    true-sets as single steps, in far fewer rounds."""
    structure = grid_structure(n, worlds, obstacles="random:3")
    fast = Checker(SymbolicModel(structure, closure_after=0))
    slow = Checker(SymbolicModel(structure, closure_after=None))
    assert fast.count() == slow.count() == len(explore(structure))
    for text in (PHI1, PHI2, "AG(atF -> E[!hb U bb])", "E[!atD U (hb & atL)]"):
        f = parse(text)
        assert fast.count(f) == slow.count(f), text
    assert fast.iterations < slow.iterations


@FAST
@given(structures(), st.lists(formulas(), min_size=1, max_size=3))
def test_reordering_models_check_by_single_steps(structure, fs):
    """With dynamic reordering no closure is built (they are asked for from round 0 and
    would be), and the sets are still the oracle's."""
    model = SymbolicModel(structure, reordering=True, closure_after=0)
    checker = Checker(model)
    oracle = Explicit(structure)
    assert {as_tuple(n) for n in model.nodes(checker.reach)} == oracle.nodes
    for f in fs:
        assert _sat_nodes(checker, f) == set(oracle.sat(f)), str(f)
    assert model.closure_after is None and model._closures == {}


def test_closures_by_default_on_the_grid_rules_only():
    """The grid's rule encoding asks for closures; a structure's tables (files, random
    structures) check by single steps unless closures are asked for explicitly."""
    structure = grid_structure(8, 4)
    assert SymbolicModel(structure).closure_after == CLOSURE_AFTER
    assert SymbolicModel(structure, encoding=TableEncoding(structure)).closure_after is None
    assert SymbolicModel(beer_structure()).closure_after is None
    assert SymbolicModel(beer_structure(), closure_after=0).closure_after == 0
