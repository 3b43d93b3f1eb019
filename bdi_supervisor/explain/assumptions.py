"""Which environment assumptions a realizable set of guarantees needs.

An assumption is *needed* (slugs' ``--analyzeAssumptions`` calls it "crucially needed") when
dropping it alone makes the spec unrealizable. As in slugs, the safety and liveness assumptions
are analysed (the initial ones are not). Dropping assumptions only helps the environment, so if
dropping a whole group keeps the spec realizable, no member of the group is needed: the
analysis tests groups and splits only those whose removal breaks realizability (group testing,
about ``k log n`` fixpoints for ``k`` needed assumptions out of ``n``).

For an unrealizable spec the question is asked of each realizable neighbour of its core (the
core less one element, with every assumption): what the system relies on to meet everything
the core asks but that one element. The neighbours are analysed in the core's order within a
number of realizability checks; a neighbour whose analysis would pass it is left out whole.
"""

from __future__ import annotations

from collections.abc import Iterable

from bdi_supervisor.explain.arena import ClauseArena, ClauseRef

#: the sections slugs analyses
ANALYSED = ("env_safety", "env_liveness")


class _OutOfChecks(Exception):
    """The analysis reached its number of realizability checks."""


def needed_assumptions(arena: ClauseArena, guarantees: Iterable[ClauseRef], *,
                       realizable: bool = False, max_checks: int | None = None
                       ) -> list[ClauseRef]:
    """The analysed assumptions whose removal alone makes ``guarantees`` (with every other
    assumption) unrealizable; ``guarantees`` must be realizable with all of them
    (``realizable``: already known to be). Raises :class:`_OutOfChecks` past ``max_checks``."""
    guarantees = list(guarantees)
    candidates = arena.all_refs(ANALYSED)
    everything = set(arena.all_refs(("env_init", *ANALYSED)))
    limit = None if max_checks is None else arena.checks + max_checks

    def realizable_without(group: list[ClauseRef]) -> bool:
        if limit is not None and arena.checks >= limit:
            raise _OutOfChecks
        return arena.realizable([*guarantees, *(everything - set(group))])

    if not realizable and not realizable_without([]):
        raise ValueError("the guarantees are unrealizable even with every assumption")
    needed: list[ClauseRef] = []
    stack = [candidates] if candidates else []
    while stack:
        group = stack.pop()
        if realizable_without(group):
            continue
        if len(group) == 1:
            needed.append(group[0])
            continue
        middle = len(group) // 2
        stack += [group[middle:], group[:middle]]
    return sorted(needed)


def needed_per_core_element(arena: ClauseArena, core: list[ClauseRef],
                            max_checks: int | None = None
                            ) -> tuple[dict[ClauseRef, list[ClauseRef]], bool]:
    """For each element of ``core`` (in order, within ``max_checks`` realizability checks in
    all), the assumptions the rest of the core needs; and whether every element was analysed.
    ``core`` is a checked 1-minimal core: each neighbour is known to be realizable."""
    found: dict[ClauseRef, list[ClauseRef]] = {}
    limit = None if max_checks is None else arena.checks + max_checks
    for drop in core:
        left = None if limit is None else limit - arena.checks
        try:
            found[drop] = needed_assumptions(arena, [c for c in core if c != drop],
                                             realizable=True, max_checks=left)
        except _OutOfChecks:
            return found, False
    return found, True
