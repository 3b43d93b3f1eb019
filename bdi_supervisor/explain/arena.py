"""The clauses of a spec encoded one by one in one arena, and games over subsets of them.

Explaining an unrealizable spec asks many "is this part of the spec realizable?" questions
(cores, needed assumptions). :class:`ClauseArena` encodes every clause of the spec once, in one
CUDD manager, and answers each question with a :meth:`SymbolicGame.variant` of the full game
that keeps only the chosen clauses (the range limits of the integer variables always stay), so
no question re-encodes a formula.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from bdi_supervisor.explain import counterstrategy as counter
from bdi_supervisor.spec.gr1 import SECTIONS, Clause, GR1Spec
from bdi_supervisor.synthesis import gr1
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame

#: safety sides kept per player (each a few clustered BDDs)
SIDES = 16
#: the system's sections (its guarantees) and the environment's (its assumptions)
GUARANTEES = ("sys_init", "sys_safety", "sys_liveness")
ASSUMPTIONS = ("env_init", "env_safety", "env_liveness")


@dataclass(frozen=True, order=True)
class ClauseRef:
    """One clause of a spec: its section and its index there."""

    section: str
    index: int

    def clause(self, spec: GR1Spec) -> Clause:
        return spec.section(self.section)[self.index]

    def text(self) -> str:
        return f"{self.section}[{self.index}]"


def refs(spec: GR1Spec, sections: Iterable[str]) -> list[ClauseRef]:
    """Every clause of ``sections``, in section then file order."""
    return [ClauseRef(s, k) for s in sections for k in range(len(spec.section(s)))]


@dataclass
class ClauseArena:
    """A spec's clauses encoded separately (see the module docstring)."""

    spec: GR1Spec
    game: SymbolicGame
    encoded: dict[ClauseRef, Function]
    limits: dict[str, list[Function]] = field(default_factory=dict)
    budget: gr1.Budget | None = None
    #: how many realizability questions were answered (each one fixpoint)
    checks: int = 0
    #: per player, recent safety sides (:meth:`_safety`), by their kept clauses
    sides: dict[str, OrderedDict[frozenset[ClauseRef], SymbolicGame]] = field(
        default_factory=dict, repr=False)
    #: the environment's fixpoint per set of kept clauses, computed once each
    environments: dict[frozenset[ClauseRef], counter.SymbolicCounterStrategy] = field(
        default_factory=dict, repr=False)

    @classmethod
    def build(cls, spec: GR1Spec, game: SymbolicGame,
              budget: gr1.Budget | None = None) -> ClauseArena:
        """Encode every clause of ``spec`` in ``game``'s manager (``game`` has ``spec``'s
        variables; its own sections are not used)."""
        encoded = {}
        for section in SECTIONS:
            for ref in refs(spec, [section]):
                if budget is not None:
                    budget.check(game)
                encoded[ref] = game.encode(ref.clause(spec).formula, ref.clause(spec))
        env_vars = [v for v in game.variables if v.owner == "env"]
        sys_vars = [v for v in game.variables if v.owner == "sys"]
        limits = {
            "env_init": [game.limit(v) for v in env_vars],
            "sys_init": [game.limit(v) for v in sys_vars],
            "env_safety": [game.limit(v, p) for v in env_vars for p in (False, True)],
            "sys_safety": [game.limit(v, p) for v in sys_vars for p in (False, True)],
        }
        return cls(spec, game, encoded, limits, budget)

    def all_refs(self, sections: Iterable[str] = SECTIONS) -> list[ClauseRef]:
        return refs(self.spec, sections)

    def subgame(self, keep: Iterable[ClauseRef]) -> SymbolicGame:
        """The game of the kept clauses (and every range limit)."""
        kept = set(keep)
        chosen: dict[str, list[Function]] = {s: [] for s in SECTIONS}
        for ref, encoded in self.encoded.items():  # section then file order
            if ref in kept:
                chosen[ref.section].append(encoded)
        true = self.game.true

        def conjoin(parts: list[Function]) -> Function:
            result = true
            for part in parts:
                result &= part
            return result

        game = self.game.variant(
            env_init=conjoin(self.limits["env_init"] + chosen["env_init"]),
            sys_init=conjoin(self.limits["sys_init"] + chosen["sys_init"]),
            env_live=chosen["env_liveness"], sys_live=chosen["sys_liveness"],
            env_from=self._safety("env", kept, chosen["env_safety"]),
            sys_from=self._safety("sys", kept, chosen["sys_safety"]))
        game.spec = self.spec
        return game

    def _safety(self, owner: str, kept: set[ClauseRef], parts: list[Function]) -> SymbolicGame:
        """A variant whose ``owner`` safety side has the kept clauses, clustered (the latest
        :data:`SIDES` of each side are kept: the core search keeps the environment's side,
        the assumption analysis the system's)."""
        section = f"{owner}_safety"
        key = frozenset(ref for ref in kept if ref.section == section)
        cache = self.sides.setdefault(owner, OrderedDict())
        game = cache.get(key)
        if game is None:
            game = self.game.variant(**{f"{owner}_parts": self.limits[section] + parts})
            cache[key] = game
            if len(cache) > SIDES:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        return game

    def environment(self, keep: Iterable[ClauseRef]
                    ) -> tuple[SymbolicGame, counter.SymbolicCounterStrategy]:
        """The game of the kept clauses and the environment's fixpoint in it (solved once per
        set of clauses: the core's pruning and the counter-strategy often ask the same)."""
        keep = list(keep)
        game = self.subgame(keep)
        key = frozenset(keep)
        if key not in self.environments:
            self.environments[key] = counter.environment_fixpoint(game, self.budget)
        return game, self.environments[key]

    def realizable(self, keep: Iterable[ClauseRef]) -> bool:
        """Is the spec made of the kept clauses realizable (slugs' semantics)?"""
        return self.winning_region(keep)[1] is not None

    def winning_region(self, keep: Iterable[ClauseRef], *, levels: bool = False
                       ) -> tuple[SymbolicGame, Function | None, list[list[Function]]]:
        """The game of the kept clauses, the system's winning region in it (None when it is
        unrealizable: found as early as possible, the region is then not computed) and, with
        ``levels``, the solver's ``Y`` levels per liveness guarantee (none without one)."""
        self.checks += 1
        keep = list(keep)
        game = self.subgame(keep)
        if gr1.initial_losing_inputs(game, game.true) != game.false:
            return game, None, []  # no initial output for some initial input: no fixpoint
        if not any(ref.section == "sys_liveness" for ref in keep):
            return game, gr1.safety_realizable(game, self.budget), []
        solution = gr1.solve(game, early_exit=True, budget=self.budget, keep_levels=levels)
        if not solution.realizable:
            return game, None, []
        return game, solution.winning, solution.levels


class MonotoneOracle:
    """``unrealizable(subset of guarantees)`` with every answer reused for the subsets and
    supersets it decides: dropping guarantees only helps the system, so a realizable set's
    subsets are realizable and an unrealizable set's supersets are unrealizable."""

    def __init__(self, arena: ClauseArena, fixed: Iterable[ClauseRef]) -> None:
        self.arena = arena
        self.fixed = list(fixed)
        self.realizable_sets: list[frozenset[ClauseRef]] = []
        self.unrealizable_sets: list[frozenset[ClauseRef]] = []

    def __call__(self, subset: list[ClauseRef]) -> bool:
        known = self.known(subset)
        if known is not None:
            return known
        unrealizable = not self.arena.realizable([*self.fixed, *subset])
        self.record(subset, unrealizable)
        return unrealizable

    def known(self, subset: Iterable[ClauseRef]) -> bool | None:
        """The answer for ``subset`` if an earlier one decides it, else None."""
        key = frozenset(subset)
        if any(known <= key for known in self.unrealizable_sets):
            return True
        if any(key <= known for known in self.realizable_sets):
            return False
        return None

    def record(self, subset: Iterable[ClauseRef], unrealizable: bool) -> None:
        """Remember an answer found elsewhere (e.g. while pruning)."""
        (self.unrealizable_sets if unrealizable else self.realizable_sets).append(
            frozenset(subset))
