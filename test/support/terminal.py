"""Run ``bdi-supervisor`` in a pseudo-terminal of a given size, as a person at a narrow terminal
would: the tool sees a terminal on all three standard streams and takes its width from the
terminal (no ``COLUMNS``), each answer is typed once its question is on the screen (and echoed
there, as a terminal does), and what the screen received comes back as text without escape
sequences."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import select
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from support.cli_harness import command

#: CSI and OSC escape sequences, and the charset selections some terminals get
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Z]")


@dataclass
class Screen:
    code: int | None
    text: str

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


def terminal_available() -> str | None:
    """Why no pseudo-terminal can be opened here (None when one can)."""
    try:
        import fcntl  # noqa: F401
        import pty
        import termios  # noqa: F401

        master, slave = pty.openpty()
    except (ImportError, OSError) as error:
        return f"no pseudo-terminal here: {error}"
    os.close(master)
    os.close(slave)
    return None


def _terminal(columns: int, rows: int) -> tuple[int, int]:
    """A pseudo-terminal ``columns`` wide and ``rows`` high: (master, slave)."""
    import fcntl
    import pty
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    return master, slave


def _screen_text(data: bytes) -> str:
    return ESCAPES.sub("", data.decode("utf-8", "replace")).replace("\r\n", "\n")


def _read_all(master: int, process: subprocess.Popen, deadline: float,
              answers: tuple[str, ...], question: str) -> bytes:
    """Everything the terminal receives until the process has ended and closed it, typing the
    next answer each time one more ``question`` (a regular expression) is on the screen."""
    data, typed = b"", 0
    while time.monotonic() < deadline:
        if typed < len(answers) and len(re.findall(question, _screen_text(data), re.S)) > typed:
            os.write(master, f"{answers[typed]}\n".encode())
            typed += 1
        ready = select.select([master], [], [], 0.2)[0]
        if not ready:
            if process.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError as error:  # Linux: EIO once the last holder of the slave closed it
            if error.errno == errno.EIO:
                break
            raise
        if not chunk:
            break
        data += chunk
    return data


def run_in_terminal(argv: list, columns: int, answers: tuple[str, ...] = (),
                    question: str = r"\): ", rows: int = 50, cwd: Path | None = None,
                    timeout: float = 180) -> Screen:
    """``bdi-supervisor ARGV`` in a ``columns``-wide terminal, ``answers`` typed one line each
    as one more ``question`` (a regular expression, ``.`` matching line ends too: questions
    wrap) is on the screen; its exit status and the text it showed."""
    master, slave = _terminal(columns, rows)
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env.update(TERM="xterm-256color", NO_COLOR="1")
    try:
        process = subprocess.Popen(command("supervisor", argv), stdin=slave, stdout=slave,
                                   stderr=slave, env=env, cwd=cwd, start_new_session=True)
    finally:
        os.close(slave)
    try:
        data = _read_all(master, process, time.monotonic() + timeout, answers, question)
        try:
            code = process.wait(timeout=max(1.0, timeout / 10))
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
    finally:
        os.close(master)
        with contextlib.suppress(ProcessLookupError):
            if process.poll() is None:
                process.kill()
    return Screen(code, _screen_text(data))
