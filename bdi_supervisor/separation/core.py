"""Delta debugging (Zeller's ddmin) to a 1-minimal failing subset.

Generic over the items; the well-separation analysis passes env assumption indices and the
oracle "this subset of assumptions is still not well-separated against the original reach set".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def ddmin(items: Sequence[T], fails: Callable[[list[T]], bool]) -> list[T]:
    """A 1-minimal sub-list of ``items`` on which ``fails`` holds (``fails(items)`` must hold).

    1-minimal: removing any single element makes ``fails`` false. Results of ``fails`` are
    cached per subset; order of ``items`` is kept.
    """
    cache: dict[frozenset[T], bool] = {}

    def test(subset: list[T]) -> bool:
        key = frozenset(subset)
        if key not in cache:
            cache[key] = fails(list(subset))
        return cache[key]

    current = list(items)
    if not test(current):
        raise ValueError("ddmin: the full set does not fail")
    granularity = 2
    while len(current) >= 2:
        chunks = _split(current, granularity)
        reduced = False
        for chunk in chunks:
            if test(chunk):
                current, granularity, reduced = chunk, 2, True
                break
        if not reduced:
            for index in range(len(chunks)):
                complement = [x for k, c in enumerate(chunks) if k != index for x in c]
                if test(complement):
                    current, granularity, reduced = complement, max(granularity - 1, 2), True
                    break
        if not reduced:
            if granularity >= len(current):
                break
            granularity = min(2 * granularity, len(current))
    if len(current) == 1 and test([]):
        return []
    return current


def _split(items: list[T], parts: int) -> list[list[T]]:
    size, extra = divmod(len(items), parts)
    chunks, start = [], 0
    for k in range(parts):
        end = start + size + (1 if k < extra else 0)
        if end > start:
            chunks.append(items[start:end])
        start = end
    return chunks
