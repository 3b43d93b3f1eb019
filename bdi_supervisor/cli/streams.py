"""The standard streams of a command, safe whatever the caller did with them.

- **Closed** (``>&-``, ``<&-``, ``2>&-``): :func:`prepare` opens ``/dev/null`` on each of the
  descriptors 0, 1 and 2 that is not open, before anything else opens a file (so an output file
  can never become descriptor 1), and gives ``sys.stdin``/``stdout``/``stderr`` a stream where
  Python left ``None``: input reads as empty, output is discarded.
- **An encoding without the suite's symbols** (``PYTHONIOENCODING=ascii``, a C locale):
  :func:`prepare` gives stdout and stderr the ``ascii-symbols`` error handler, which writes
  ``→`` as ``->``, ``×`` as ``x``, ``·`` as ``|`` and so on (:data:`ASCII`), and anything else
  it cannot encode as ``?``.
- **A closed pipe** (``| head``): :func:`broken_pipe` tells whether a ``BrokenPipeError`` came
  from stdout or stderr; :func:`silence` then points the descriptor at ``/dev/null`` so that
  the interpreter's last flush does not complain. The command ends quietly with exit 141
  (128 + SIGPIPE, what a Unix tool killed by the signal reports).
- **A full device** (``> /dev/full``, a full disk): :func:`where` names the file behind a
  stream for the message ``no space left on /dev/full (standard output)``.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import select
import sys
from typing import TextIO

#: how the suite's symbols are written where the stream's encoding lacks them
ASCII = {
    "→": "->", "←": "<-", "↔": "<->", "⇒": "=>", "×": "x", "·": "|", "…": "...", "—": "-",
    "–": "-", "≥": ">=", "≤": "<=", "≠": "!=", "◆": "*", "◇": "o", "●": "*", "○": "o",
    "✓": "ok", "✗": "x", "✔": "ok", "✘": "x", "•": "*", "’": "'", "‘": "'", "“": '"',
    "”": '"', "µ": "u", "±": "+-", "²": "^2", "│": "|", "─": "-", "┌": "+", "┐": "+",
    "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+", "━": "-",
    "⠋": "-", "⠙": "\\", "⠹": "|", "⠸": "/", "⠼": "-", "⠴": "\\", "⠦": "|", "⠧": "/",
    "⠇": "-", "⠏": "\\",
}
HANDLER = "ascii-symbols"
_STREAMS = (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w"))


def _ascii_symbols(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return "".join(ASCII.get(char, "?") for char in text), error.end


codecs.register_error(HANDLER, _ascii_symbols)


def _open_fd(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def prepare() -> None:
    """Make the standard streams safe to use (see the module docstring)."""
    for name, fd, mode in _STREAMS:
        if not _open_fd(fd):
            null = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if null != fd:  # a lower descriptor was closed too and took it: move it
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        _ascii_fallback(stream)


def _ascii_fallback(stream: TextIO) -> None:
    """Give ``stream`` the :data:`HANDLER` error handler when its encoding lacks ``→``."""
    encoding = getattr(stream, "encoding", None)
    reconfigure = getattr(stream, "reconfigure", None)
    if not encoding or reconfigure is None:
        return
    try:
        "→·×".encode(encoding)
    except UnicodeEncodeError:
        reconfigure(errors=HANDLER)
    except LookupError:
        pass


def _fd(stream: object) -> int | None:
    try:
        return stream.fileno()  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):
        return None


def _reader_gone(fd: int) -> bool:
    """True when ``fd`` is a pipe whose reading end is closed (poll reports an error)."""
    try:
        poll = select.poll()
        poll.register(fd, 0)
        return any(events & select.POLLERR for _, events in poll.poll(0))
    except (OSError, ValueError):
        return False


def broken_pipe(error: OSError) -> bool:
    """True when ``error`` is a write to stdout or stderr whose reader has gone."""
    if error.errno != errno.EPIPE:
        return False
    return any(fd is not None and _reader_gone(fd)
               for fd in (_fd(sys.stdout), _fd(sys.stderr)))


def silence(*streams: TextIO) -> None:
    """Point the descriptors of ``streams`` at ``/dev/null`` (the buffered text that could not
    be written goes there at exit instead of raising again)."""
    for stream in streams:
        fd = _fd(stream)
        if fd is None:
            continue
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)


def where(stream: TextIO) -> str:
    """The file behind ``stream`` as a message names it: ``/dev/full (standard output)``."""
    label = {1: "standard output", 2: "standard error"}.get(_fd(stream) or -1, "output")
    fd = _fd(stream)
    if fd is not None:
        with contextlib.suppress(OSError):
            return f"{os.readlink(f'/proc/self/fd/{fd}')} ({label})"
    return label


def flush() -> None:
    """Flush stdout and stderr (a write error surfaces here, not at interpreter exit)."""
    for stream in (sys.stdout, sys.stderr):
        flusher = getattr(stream, "flush", None)
        if flusher is not None:
            flusher()
