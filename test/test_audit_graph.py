"""Iterative Tarjan: SCCs equal mutual reachability; reverse topological numbering; no recursion."""

from hypothesis import given, settings
from hypothesis import strategies as st

from bdi_supervisor.graph import bfs_tree, path_to, tarjan_scc


def reach(adj, u):
    seen, todo = {u}, [u]
    while todo:
        for t in adj[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


graphs = st.integers(1, 9).flatmap(lambda n: st.lists(
    st.lists(st.integers(0, n - 1), max_size=3), min_size=n, max_size=n))


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_components_are_mutual_reachability_classes(adj):
    comp, count = tarjan_scc(adj)
    sets = [reach(adj, u) for u in range(len(adj))]
    for u in range(len(adj)):
        for v in range(len(adj)):
            assert (comp[u] == comp[v]) == (v in sets[u] and u in sets[v])
        for v in adj[u]:
            assert comp[u] >= comp[v]  # emission order is reverse topological
    assert sorted(set(comp)) == list(range(count))


def test_long_chain_and_cycle_without_recursion():
    n = 200_000
    chain = [[i + 1] for i in range(n - 1)] + [[0]]
    comp, count = tarjan_scc(chain)
    assert count == 1
    chain[-1] = []
    comp, count = tarjan_scc(chain)
    assert count == n and comp[0] == n - 1
    order, parent = bfs_tree(chain, [0])
    assert len(order) == n and path_to(parent, 5) == [0, 1, 2, 3, 4, 5]
