"""Which environment assumptions a realizable set of guarantees needs.

An assumption is *needed* (slugs' ``--analyzeAssumptions`` calls it "crucially needed") when
dropping it alone makes the spec unrealizable. As in slugs, the safety and liveness assumptions
are analysed (the initial ones are not). Dropping assumptions only helps the environment, so if
dropping a whole group keeps the spec realizable, no member of the group is needed: the
analysis tests groups and splits only those whose removal breaks realizability (group testing,
about ``k log n`` fixpoints for ``k`` needed assumptions out of ``n``).

For an unrealizable spec the question is asked of each realizable neighbour of its core (the
core less one element, with every assumption): what the system relies on to meet everything
the core asks but that one element.
"""

from __future__ import annotations

from collections.abc import Iterable

from bdi_supervisor.explain.arena import ClauseArena, ClauseRef

#: the sections slugs analyses
ANALYSED = ("env_safety", "env_liveness")


def needed_assumptions(arena: ClauseArena, guarantees: Iterable[ClauseRef]) -> list[ClauseRef]:
    """The analysed assumptions whose removal alone makes ``guarantees`` (with every other
    assumption) unrealizable; ``guarantees`` must be realizable with all of them."""
    guarantees = list(guarantees)
    candidates = arena.all_refs(ANALYSED)
    everything = set(arena.all_refs(("env_init", *ANALYSED)))

    def realizable_without(group: list[ClauseRef]) -> bool:
        return arena.realizable([*guarantees, *(everything - set(group))])

    if not realizable_without([]):
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


def needed_per_core_element(arena: ClauseArena,
                            core: list[ClauseRef]) -> dict[ClauseRef, list[ClauseRef]]:
    """For each element of ``core``, the assumptions the rest of the core needs."""
    return {drop: needed_assumptions(arena, [c for c in core if c != drop]) for drop in core}
