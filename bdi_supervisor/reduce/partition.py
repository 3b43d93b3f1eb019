"""Refinable partition with Hopcroft-style splitting (Valmari–Lehtinen layout).

Elements ``0..n-1`` live in one array; each block is a contiguous slice ``[first, end)``.
Marking moves an element to the front of its block; :meth:`split` turns the marked front into a
block of its own when it is neither empty nor the whole block. Everything is O(1) per mark, so a
splitting round costs time linear in the number of marks.
"""

from __future__ import annotations

from collections.abc import Sequence


class RefinablePartition:
    def __init__(self, n: int, initial_blocks: Sequence[Sequence[int]]) -> None:
        self.elements: list[int] = []
        self.location = [0] * n
        self.block = [0] * n
        self.first: list[int] = []
        self.end: list[int] = []
        self.mid: list[int] = []
        for members in initial_blocks:
            b = len(self.first)
            self.first.append(len(self.elements))
            for v in members:
                self.location[v] = len(self.elements)
                self.block[v] = b
                self.elements.append(v)
            self.end.append(len(self.elements))
            self.mid.append(self.first[b])
        self.touched: list[int] = []

    @property
    def count(self) -> int:
        return len(self.first)

    def size(self, b: int) -> int:
        return self.end[b] - self.first[b]

    def members(self, b: int) -> list[int]:
        return self.elements[self.first[b]:self.end[b]]

    def mark(self, v: int) -> None:
        b = self.block[v]
        i = self.location[v]
        m = self.mid[b]
        if i < m:
            return  # already marked
        if m == self.first[b]:
            self.touched.append(b)
        w = self.elements[m]
        self.elements[i], self.elements[m] = w, v
        self.location[w], self.location[v] = i, m
        self.mid[b] = m + 1

    def split(self) -> list[tuple[int, int]]:
        """Split every touched block into marked / unmarked parts.

        Returns ``(old, new)`` pairs; ``new`` is the smaller part, renumbered as a new block.
        """
        result = []
        for b in self.touched:
            first, mid, end = self.first[b], self.mid[b], self.end[b]
            self.mid[b] = first
            if mid == end:
                continue  # all marked: no split
            new = len(self.first)
            if mid - first <= end - mid:
                self.first.append(first)
                self.end.append(mid)
                self.first[b] = mid
            else:
                self.first.append(mid)
                self.end.append(end)
                self.end[b] = mid
            self.mid[b] = self.first[b]
            self.mid.append(self.first[new])
            for pos in range(self.first[new], self.end[new]):
                self.block[self.elements[pos]] = new
            result.append((b, new))
        self.touched = []
        return result
