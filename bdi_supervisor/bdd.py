"""The CUDD binding, ``dd.cudd``, imported without ``dd``'s optional networkx dependency.

``dd`` imports networkx when it is installed (only for its graph export, which this project
never calls), and that import costs several times a bare interpreter's start-up. Modules that
need CUDD write ``from bdi_supervisor.bdd import cudd``; the first such import loads ``dd.cudd``
while ``import networkx`` is made to fail fast, so ``dd`` takes its "networkx is not installed"
path. A ``dd`` that cannot do without networkx is then imported the ordinary way.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


def _import_cudd() -> ModuleType:
    if "dd.cudd" in sys.modules or "networkx" in sys.modules:
        return importlib.import_module("dd.cudd")
    sys.modules["networkx"] = None  # type: ignore[assignment]  # "import networkx" raises
    try:
        return importlib.import_module("dd.cudd")
    except ImportError:
        for name in [m for m in sys.modules if m == "dd" or m.startswith("dd.")]:
            del sys.modules[name]
    finally:
        if sys.modules.get("networkx", False) is None:
            del sys.modules["networkx"]
    return importlib.import_module("dd.cudd")


cudd = _import_cudd()

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


__all__ = ["cudd", "manager"]
