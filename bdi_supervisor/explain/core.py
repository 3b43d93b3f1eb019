"""Unrealizable cores: a 1-minimal set of the system's guarantees that is unrealizable together
with every environment assumption.

Dropping guarantees only helps the system, so the question is monotone: every answer is reused
for the subsets and supersets it decides (:class:`~.arena.MonotoneOracle`). The search starts
from the smallest part of the spec the failure needs: the system's initial conditions alone
when they already fail, else the initial conditions and safety when the safety game is lost,
else (liveness) the initial conditions, the safety and the one liveness guarantee the solver
found unreachable when that is already unrealizable, else every guarantee. The safety
guarantees the environment's counter-strategy does not need are dropped next, a few games in
all (:mod:`.prune`), and what is left is minimized by Zeller's ddmin
(:func:`bdi_supervisor.separation.core.ddmin`).
"""

from __future__ import annotations

from bdi_supervisor.explain.arena import ClauseArena, ClauseRef, MonotoneOracle
from bdi_supervisor.explain.prune import relevant_guarantees
from bdi_supervisor.separation.core import ddmin

ENV = ("env_init", "env_safety", "env_liveness")


def start_set(arena: ClauseArena, oracle: MonotoneOracle,
              unreachable_goal: int | None = None) -> tuple[str, list[ClauseRef]]:
    """The failure level (``init``, ``safety``, ``liveness``) and the guarantees to minimize."""
    init = arena.all_refs(["sys_init"])
    if oracle(init):
        return "init", init
    safety = init + arena.all_refs(["sys_safety"])
    if oracle(safety):
        return "safety", safety
    liveness = arena.all_refs(["sys_liveness"])
    if unreachable_goal is not None and unreachable_goal < len(liveness):
        single = [*safety, liveness[unreachable_goal]]
        if oracle(single):
            return "liveness", single
    return "liveness", safety + liveness


def guarantee_oracle(arena: ClauseArena) -> MonotoneOracle:
    """``unrealizable(guarantees)`` with every environment assumption kept."""
    return MonotoneOracle(arena, arena.all_refs(ENV))


def unrealizable_core(arena: ClauseArena, oracle: MonotoneOracle,
                      unreachable_goal: int | None = None) -> tuple[str, list[ClauseRef]]:
    """The failure level and a 1-minimal unrealizable core of ``arena``'s spec (which must be
    unrealizable), in section then file order."""
    level, start = start_set(arena, oracle, unreachable_goal)
    if not oracle(start):
        raise ValueError("the specification is realizable: it has no unrealizable core")
    relevant = relevant_guarantees(arena, oracle, start, arena.budget)
    return level, sorted(ddmin(relevant, oracle))


def is_minimal_core(oracle: MonotoneOracle, core: list[ClauseRef]) -> bool:
    """``core`` is unrealizable with every assumption and dropping any one element makes it
    realizable (ddmin's last round asked exactly these questions, so the oracle knows them)."""
    return oracle(core) and not any(oracle([c for c in core if c != drop]) for drop in core)
