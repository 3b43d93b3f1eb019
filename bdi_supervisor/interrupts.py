"""Stopping cleanly on SIGINT and SIGTERM.

The command lines install :func:`handling`: SIGINT raises :class:`KeyboardInterrupt` and SIGTERM
:class:`Terminated` (a ``KeyboardInterrupt``, so every ``finally`` and ``except
KeyboardInterrupt`` cleanup runs for both: temporary files are removed, pools cancelled). The
entry point turns them into exit 130 and 143.

A step that must not be cut in two (a temporary file created and remembered, a folder swapped
for another) runs in :func:`deferred`: a signal arriving inside it is raised when it ends. A
signal whose exception Python would have to swallow (it arrived in a weakref callback of the
import system) is sent again rather than lost.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (exit 143)."""


#: signals a :func:`deferred` block held back, raised when the outermost block ends
_pending: list[int] = []
_depth = 0


def _raise_for(signum: int) -> None:
    if signum == signal.SIGTERM:
        raise Terminated()
    raise KeyboardInterrupt()


#: the last signal handled (raised again when Python had to swallow its exception)
_last: list[int] = []


def _handler(signum: int, frame: object) -> None:
    _last[:] = [signum]
    if _depth:
        _pending.append(signum)
        return
    _raise_for(signum)


def _unraisable(previous):
    """A ``sys.unraisablehook`` for a command being stopped by a signal. The signal's exception,
    where it arrived at a place that cannot raise (a weakref callback of the import system, a
    ``__del__``), is not printed and lost but the signal is sent again, to be raised at the next
    line that can stop; an error of an object torn down by the stop (a BDD manager whose
    constructor the signal cut short) is not printed either: the command is ending anyway."""

    def hook(unraisable) -> None:
        if not _last:
            previous(unraisable)
        elif isinstance(unraisable.exc_value, KeyboardInterrupt):
            signal.raise_signal(_last[0])

    return hook


@contextlib.contextmanager
def handling() -> Iterator[None]:
    """SIGINT and SIGTERM raise (see the module docstring) inside the block; the previous
    handlers come back after it. Outside the main thread it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _last.clear()
    previous = {signum: signal.signal(signum, _handler)
                for signum in (signal.SIGINT, signal.SIGTERM)}
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable(sys.unraisablehook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A SIGINT or SIGTERM arriving inside the block is raised when the block ends."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if not _depth and _pending:
            signum = _pending[0]
            _pending.clear()
            _raise_for(signum)
