"""Importing a module while some of the modules it imports wait for their first use.

A library often imports at its top modules it only uses inside a few functions: ``dd.cudd``
imports its pure-Python BDD, its parsers, ``pickle`` and ``subprocess``; ``dataclasses`` imports
``inspect`` (with ``ast``, ``dis`` and ``tokenize``) only to write the docstring of a dataclass
that has none. :func:`import_deferring` imports such a library while each of those modules is a
stand-in (:class:`OnFirstUse`) in ``sys.modules``: the library binds the stand-in, which imports
the module itself the first time one of its attributes is read. The stand-ins leave
``sys.modules`` when the import returns, so every later ``import`` gets the module itself. What
is saved is part of the start-up of every command (docs/performance.md#start-up).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterable, Iterator
from types import ModuleType


class OnFirstUse(ModuleType):
    """Stands in for a module until one of its attributes is read; then imports the module
    itself (with ``blocked`` modules failing to import, :func:`blocking`) and answers from it."""

    def __init__(self, name: str, blocked: Iterable[str] = ()) -> None:
        super().__init__(name)
        self._blocked = tuple(blocked)

    def __getattr__(self, attribute: str) -> object:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        with blocking(self._blocked):
            module = importlib.import_module(name)
        return getattr(module, attribute)


@contextlib.contextmanager
def blocking(names: Iterable[str]) -> Iterator[None]:
    """Inside, ``import NAME`` raises ImportError for each of ``names`` not imported yet (a
    library's optional dependency then takes its "not installed" path)."""
    blocked = [name for name in names if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # "import name" raises
    try:
        yield
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def import_deferring(name: str, deferred: Iterable[str],
                     blocked: Iterable[str] = ()) -> ModuleType:
    """Import module ``name`` with each module of ``deferred`` that is not imported yet standing
    in as an :class:`OnFirstUse` and each of ``blocked`` failing to import (:func:`blocking`);
    a module already imported is returned as it is."""
    if name in sys.modules:
        return sys.modules[name]
    blocked = tuple(blocked)
    stand_ins = {item: OnFirstUse(item, blocked) for item in deferred if item not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        with blocking(blocked):
            return importlib.import_module(name)
    finally:
        for item, stand_in in stand_ins.items():
            if sys.modules.get(item) is stand_in:
                del sys.modules[item]  # a later import gets the module itself


__all__ = ["OnFirstUse", "blocking", "import_deferring"]
