"""Delta debugging: ddmin returns a 1-minimal failing subset (checked by brute force)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bdi_supervisor.separation.core import ddmin


@given(st.lists(st.frozensets(st.integers(0, 9), max_size=4), min_size=1, max_size=4),
       st.integers(1, 10))
def test_ddmin_is_one_minimal(family, size):
    items = list(range(size))
    family = [f for f in family if f <= set(items)]
    if not family:
        family = [frozenset(items[:1])]

    def fails(subset):
        return any(f <= set(subset) for f in family)

    result = ddmin(items, fails)
    assert fails(result)
    assert result == sorted(result)
    for drop in result:
        assert not fails([x for x in result if x != drop])
