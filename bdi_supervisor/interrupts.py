"""Stopping cleanly on SIGINT and SIGTERM.

The command lines install :func:`handling`: SIGINT raises :class:`KeyboardInterrupt` and SIGTERM
:class:`Terminated` (a ``KeyboardInterrupt``, so every ``finally`` and ``except
KeyboardInterrupt`` cleanup runs for both: temporary files are removed, pools cancelled). The
entry point turns them into exit 130 and 143.

A step that must not be cut in two (a temporary file created and remembered, a folder swapped
for another) runs in :func:`deferred`: a signal arriving inside it is raised when it ends. A
signal whose exception Python would have to swallow (it arrived in a weakref callback of the
import system, a ``__del__``) is sent again rather than lost: from a helper thread a moment later
(:data:`RESEND_DELAY`), so that its handler runs once the main thread has left the place that
could not raise, not inside ``sys.unraisablehook``, where its exception would be printed and
swallowed once more. A block that ends while such a signal is on its way raises it as it ends.
"""

from __future__ import annotations

import contextlib
import os
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
#: seconds after which a swallowed signal is sent again
RESEND_DELAY = 0.01
#: the signal on its way again and its timer (at most one)
_resend: list[tuple[int, threading.Timer]] = []
#: inside the unraisable hook: an exception raised there would be printed and swallowed
_in_hook = False


def _handler(signum: int, frame: object) -> None:
    _last[:] = [signum]
    if _depth:
        _pending.append(signum)
        return
    if _in_hook:
        _send_again(signum)
        return
    _raise_for(signum)


def _send_again(signum: int) -> None:
    """Send ``signum`` to this process again :data:`RESEND_DELAY` from now (once: a signal
    already on its way is not sent twice)."""
    if _resend:
        return
    timer = threading.Timer(RESEND_DELAY, _resent, (signum,))
    timer.daemon = True
    _resend.append((signum, timer))
    timer.start()


def _resent(signum: int) -> None:
    if _resend:
        _resend.clear()
        os.kill(os.getpid(), signum)


def _cancel_resend() -> int | None:
    """Stop a signal on its way again; return it (None: none was)."""
    if not _resend:
        return None
    signum, timer = _resend.pop()
    timer.cancel()
    return signum


def _unraisable(previous):
    """A ``sys.unraisablehook`` for a command being stopped by a signal. The signal's exception,
    where it arrived at a place that cannot raise (a weakref callback of the import system, a
    ``__del__``), is not printed and lost but the signal is sent again, to be raised at the next
    line that can stop; an error of an object torn down by the stop (a BDD manager whose
    constructor the signal cut short) is not printed either: the command is ending anyway."""

    def hook(unraisable) -> None:
        global _in_hook
        _in_hook = True
        try:
            if not _last:
                previous(unraisable)
            elif isinstance(unraisable.exc_value, KeyboardInterrupt):
                _send_again(_last[0])
        finally:
            _in_hook = False

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
        on_its_way = _cancel_resend()
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if on_its_way is not None:  # the block ended before a swallowed signal came back
        _raise_for(on_its_way)


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
