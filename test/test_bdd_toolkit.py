"""The shared BDD toolkit (:mod:`bdi_supervisor.bdd`): clustered conjunctions with early
quantification give exactly the monolithic ``∃ names. u ∧ ⋀ parts``, whatever the parts, the
cluster size and the names quantified."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bdi_supervisor.bdd import LiveNodes, cluster, conjoin, exists_and, manager, schedule

NAMES = ("a", "b", "c", "d", "e", "f")


def truth_tables(n: int):
    """Random Boolean functions over the first ``n`` names, as sets of satisfying rows."""
    return st.frozensets(st.integers(0, 2 ** n - 1))


def function(bdd, rows: frozenset[int], names: tuple[str, ...]):
    """The BDD with exactly ``rows`` (bit i of a row is the value of ``names[i]``)."""
    result = bdd.false
    for row in rows:
        result |= bdd.cube({name: bool(row >> i & 1) for i, name in enumerate(names)})
    return result


@settings(max_examples=150, deadline=None)
@given(u=truth_tables(4), parts=st.lists(st.tuples(st.integers(0, 2), truth_tables(3)),
                                          max_size=5),
       quantified=st.sets(st.sampled_from(NAMES)), limit=st.integers(1, 12))
def test_exists_and_is_the_monolithic_product(u, parts, quantified, limit):
    bdd = manager(len(NAMES))
    bdd.declare(*NAMES)
    u = function(bdd, u, NAMES[:4])
    # each part over three consecutive names, starting at its offset
    parts = [function(bdd, rows, NAMES[offset:offset + 3]) for offset, rows in parts]
    clusters = cluster(parts, limit)
    expected = bdd.exist(sorted(quantified), conjoin(parts, u)) if quantified else conjoin(parts, u)
    assert conjoin(clusters, bdd.true) == conjoin(parts, bdd.true)
    assert all(c != bdd.true for c in clusters)
    assert exists_and(u, clusters, quantified) == expected
    assert exists_and(u, parts, quantified) == expected  # unclustered, TRUE parts included
    assert exists_and(u, clusters, quantified, schedule(clusters, quantified)) == expected


def test_schedule_quantifies_each_name_after_its_last_part():
    bdd = manager(4)
    bdd.declare("x", "y", "z", "w")
    parts = [bdd.var("x") & bdd.var("y"), bdd.var("y") | bdd.var("z")]
    # x only in the first part, y and z last in the second, w in none (with the first)
    assert schedule(parts, ["w", "x", "y", "z"]) == [["w", "x"], ["y", "z"]]
    assert schedule([], ["x"]) == []
    assert exists_and(bdd.var("w"), [], ["w"]) == bdd.true


def test_live_nodes_counts_again_only_after_its_share_of_time_or_when_asked():
    """:class:`LiveNodes` gives CUDD's count (``len(bdd)``) when it counts, the last count in
    between; a fresh count, another manager or the end of the interval count again."""
    bdd = manager(len(NAMES))
    bdd.declare(*NAMES)
    live = LiveNodes(ratio=1e9)  # an interval longer than the test: counts only when it must
    kept = [bdd.add_expr(r"a /\ b"), bdd.add_expr(r"c \/ d")]
    first = live(bdd)
    assert first == len(bdd)
    kept.append(bdd.add_expr(r"(a /\ e) \/ (b /\ ~f)"))
    assert len(bdd) > first and live(bdd) == first  # within the interval: the last count
    assert live(bdd, fresh=True) == len(bdd)
    other = manager(2)
    other.declare("x", "y")
    assert live(other) == len(other)  # another manager: counted
    prompt = LiveNodes(ratio=0.0)  # no interval: every call counts
    kept.append(bdd.add_expr(r"a /\ c /\ e"))
    assert prompt(bdd) == len(bdd)
    kept.append(bdd.add_expr(r"b /\ d /\ f"))
    assert prompt(bdd) == len(bdd)
