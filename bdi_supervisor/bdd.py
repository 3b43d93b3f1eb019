"""The BDD toolkit both model checkers share: the CUDD binding, its managers, and conjunctions
kept as clusters with early quantification.

- :data:`cudd` is ``dd.cudd``, imported without ``dd``'s optional networkx dependency: ``dd``
  imports networkx when it is installed (only for its graph export, which this project never
  calls), and that import costs several times a bare interpreter's start-up. The first import
  of this module loads ``dd.cudd`` while ``import networkx`` is made to fail fast, so ``dd`` takes
  its "networkx is not installed" path; a ``dd`` that cannot do without networkx is then
  imported the ordinary way. The ``dd`` modules that ``dd.cudd`` uses only inside functions
  (:data:`DEFERRED`) are imported when first used. Modules that need CUDD import it from here,
  never from ``dd``.
- :func:`manager` is a fresh CUDD manager sized for the problem.
- :class:`LiveNodes` counts a manager's live nodes at a bounded share of the run's time.
- :func:`cluster`, :func:`schedule` and :func:`exists_and` are the relational product of a
  partitioned relation: ``∃ names. u ∧ p1 ∧ … ∧ pn`` computed as a chain of ``and_exists``
  over clusters of the parts, each name quantified right after the last cluster that mentions
  it, so the monolithic relation is never built. The GR(1) game
  (:mod:`bdi_supervisor.synthesis.symbolic`) and the CTL-BDI product
  (:mod:`bdi_monitor.symbolic`) both compute their predecessors and images this way.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType

from bdi_supervisor.lazyimport import import_deferring

#: modules ``dd.cudd`` imports but uses only inside functions this project calls rarely or never
#: (its pure-Python BDD, copying, pickling and expression-parsing helpers, and the standard
#: library's modules that only those or its graph export use): most of the time of importing
#: ``dd.cudd``, so they are imported on first use (:mod:`bdi_supervisor.lazyimport`)
DEFERRED = ("dd._copy", "dd._parser", "dd.bdd", "dd.autoref", "pickle", "pprint", "subprocess",
            "shlex", "textwrap")


def _import_cudd() -> ModuleType:
    if "dd.cudd" in sys.modules or "networkx" in sys.modules:
        return importlib.import_module("dd.cudd")
    try:
        return import_deferring("dd.cudd", DEFERRED, blocked=("networkx",))
    except ImportError:  # a dd that cannot do without networkx
        for name in [m for m in sys.modules if m == "dd" or m.startswith("dd.")]:
            del sys.modules[name]
    return importlib.import_module("dd.cudd")


cudd = _import_cudd()
Function = cudd.Function

#: CUDD's computed-table slots at start (CUDD grows the table as its hit rate warrants)
INITIAL_CACHE_SLOTS = 2**14
#: up to this many BDD variables a manager starts with :data:`SMALL_MEMORY` as its memory estimate
SMALL_VARIABLES = 64
SMALL_MEMORY = 2**26
#: ``dd``'s default estimate (it sizes CUDD's fast unique-table growth and its garbage collection)
LARGE_MEMORY = 2**30


def manager(variables: int | None = None) -> cudd.BDD:
    """A fresh CUDD manager (dynamic reordering on, as ``dd`` sets it) for about ``variables``
    BDD variables.

    Setting up a manager costs time in proportion to its memory estimate and initial cache
    (~10 ms with ``dd``'s defaults, most of a small spec's solve), so small problems get a small
    estimate; the cache starts small for all and grows with use.
    """
    small = variables is not None and variables <= SMALL_VARIABLES
    return cudd.BDD(memory_estimate=SMALL_MEMORY if small else LARGE_MEMORY,
                    initial_cache_size=INITIAL_CACHE_SLOTS)


class LiveNodes:
    """A manager's live-node count (``len(bdd)``), taken at a bounded share of the run's time.

    CUDD counts the nodes with nonzero references by scanning its whole unique table, so a count
    costs time in proportion to the table, milliseconds on large specs: taken between every two
    fixpoint steps it can cost more than the steps. A count is taken again only once ``ratio``
    times the last count's own time has passed since it ended (or when the manager changes, or
    when asked ``fresh``); in between the last count is returned. So counting takes at most
    about ``1 / ratio`` of the time, and a count is never older than ``ratio`` counts' time."""

    def __init__(self, ratio: float = 10.0) -> None:
        self.ratio = ratio
        self.value = 0
        self._bdd: cudd.BDD | None = None
        self._next = 0.0

    def __call__(self, bdd: cudd.BDD, fresh: bool = False) -> int:
        start = time.perf_counter()
        if fresh or bdd is not self._bdd or start >= self._next:
            self.value, self._bdd = len(bdd), bdd
            end = time.perf_counter()
            self._next = end + self.ratio * (end - start)
        return self.value


def cluster(parts: Iterable[Function], max_nodes: int,
            check: Callable[[], None] | None = None) -> list[Function]:
    """Conjoin consecutive ``parts`` greedily while a cluster stays within ``max_nodes`` BDD
    nodes (TRUE parts dropped). ``check`` is called before each step (a budget raises there)."""
    clusters: list[Function] = []
    current = None
    for part in parts:
        if check is not None:
            check()
        if part == part.bdd.true:
            continue
        if current is None:
            current = part
            continue
        joined = current & part
        if joined.dag_size <= max_nodes:
            current = joined
        else:
            clusters.append(current)
            current = part
    if current is not None:
        clusters.append(current)
    return clusters


def schedule(parts: Sequence[Function], names: Iterable[str]) -> list[list[str]]:
    """For each part, the ``names`` no later part mentions: they are quantified right after it.
    Names that no part mentions go with the first part."""
    wanted = set(names)
    supports = [part.support & wanted for part in parts]
    steps: list[list[str]] = [[] for _ in parts]
    seen: set[str] = set()
    for index in range(len(parts) - 1, -1, -1):
        steps[index] = sorted(supports[index] - seen)
        seen |= supports[index]
    if parts:
        steps[0] = sorted(set(steps[0]) | (wanted - seen))
    return steps


def exists_and(u: Function, parts: Sequence[Function], names: Iterable[str],
               steps: Sequence[Sequence[str]] | None = None) -> Function:
    """``∃ names. u ∧ ⋀ parts`` with early quantification; ``steps`` is ``schedule(parts,
    names)``, given when it was computed once for many calls."""
    if not parts:
        names = list(names)
        return u.bdd.exist(names, u) if names else u
    for part, qvars in zip(parts, steps if steps is not None else schedule(parts, names)):
        u = cudd.and_exists(u, part, list(qvars)) if qvars else u & part
    return u


def conjoin(parts: Iterable[Function], start: Function) -> Function:
    """``start ∧ ⋀ parts`` (a monolithic relation: use only where a conjunction must be whole)."""
    result = start
    for part in parts:
        result &= part
    return result


__all__ = ["Function", "cluster", "conjoin", "cudd", "exists_and", "manager", "schedule"]
