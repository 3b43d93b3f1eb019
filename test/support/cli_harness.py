"""Run ``bdi-supervisor`` / ``bdi-monitor`` in this process and classify what happened.

Used by the reliability tests and the fuzz suite: :func:`run_cli` captures the exit status,
stdout and stderr, and turns an escaping exception (or a traceback printed on stderr) into the
outcome ``traceback`` instead of failing inside the harness. :func:`run_process` runs the tool
as a process of its own, for what needs real descriptors: closed or full standard streams, a
pipe closed by its reader, the locale, signals.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

EXIT_CODES = (0, 1, 2, 3)
#: what an interpreter prints when an exception escapes, also one it could only ignore at exit
TRACEBACK_MARKS = ("Traceback (most recent call last)", "Exception ignored")


@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    #: the formatted exception when one escaped the command
    crash: str | None = None
    #: the process ran past its timeout and was killed
    hung: bool = False

    @property
    def traceback(self) -> bool:
        return self.crash is not None or any(mark in self.err for mark in TRACEBACK_MARKS)

    @property
    def kind(self) -> str:
        """``ok`` / ``negative`` / ``bad_input`` / ``incomplete`` / ``traceback`` / ``exit N``."""
        if self.hung:
            return "hang"
        if self.traceback:
            return "traceback"
        return {0: "ok", 1: "negative", 2: "bad_input", 3: "incomplete"}.get(
            self.code, f"exit {self.code}")


def run_cli(tool: str, argv: list[str]) -> Outcome:
    """``tool`` is ``supervisor`` or ``monitor``."""
    if tool == "supervisor":
        from bdi_supervisor.cli.main import main
    else:
        from bdi_supervisor.cli.monitor import main
    out, err = io.StringIO(), io.StringIO()
    crash = None
    code: int | None = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as stop:  # argparse
            code = stop.code if isinstance(stop.code, int) else 2
        except Exception:
            crash = traceback.format_exc()
    return Outcome(code, out.getvalue(), err.getvalue(), crash)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folder`` (relative) with its size and mode, to compare runs."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            info = path.lstat()
            found[str(path.relative_to(folder))] = (info.st_size, info.st_mode)
    return found


def command(tool: str, argv: list) -> list[str]:
    """The command line that runs ``tool`` (``supervisor`` or ``monitor``) with this Python."""
    module = "bdi_supervisor" if tool == "supervisor" else "bdi_monitor"
    return [sys.executable, "-m", module, *(str(a) for a in argv)]


@dataclass
class Fault:
    """How a process's surroundings are broken: standard descriptors closed before it starts
    (0, 1, 2), stdout on ``/dev/full`` or a pipe its reader closes after ``read`` bytes (None:
    a normal pipe), a file size limit (``file_size`` bytes: writes beyond it fail as on a full
    disk), environment variables, a signal sent after ``after`` seconds."""

    closed: tuple[int, ...] = ()
    stdout: str = "pipe"  # pipe, full, cut
    read: int = 0
    file_size: int | None = None
    env: dict[str, str] | None = None
    signal: int | None = None
    after: float = 0.0


def _preexec(fault: Fault):
    """What the child does before it runs the tool: close descriptors, limit file sizes."""
    if not fault.closed and fault.file_size is None:
        return None

    def prepare() -> None:
        if fault.file_size is not None:
            import resource
            import signal

            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails
            resource.setrlimit(resource.RLIMIT_FSIZE, (fault.file_size, fault.file_size))
        for fd in fault.closed:
            os.close(fd)
    return prepare


def _read_some(stream, count: int, deadline: float) -> bytes:
    """Up to ``count`` bytes of ``stream`` (fewer at its end or at ``deadline``)."""
    import select

    data = b""
    fd = stream.fileno()
    while len(data) < count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, count - len(data))
        if not chunk:
            break
        data += chunk
    return data


def run_process(tool: str, argv: list, fault: Fault | None = None, cwd: Path | None = None,
                timeout: float = 120) -> Outcome:
    """Run ``tool`` as a process under ``fault``; its outcome (stdout as far as it was read)."""
    fault = fault or Fault()
    env = {**os.environ, **(fault.env or {})}
    stdin = subprocess.DEVNULL if 0 not in fault.closed else None
    deadline = time.monotonic() + timeout
    full = open(os.devnull if fault.stdout != "full" else "/dev/full", "wb")  # noqa: SIM115
    with full:
        stdout = full if fault.stdout == "full" else subprocess.PIPE
        process = subprocess.Popen(command(tool, argv), stdin=stdin, stdout=stdout,
                                   stderr=subprocess.PIPE, env=env, cwd=cwd,
                                   preexec_fn=_preexec(fault))
    out = b""
    if fault.stdout == "cut":
        out = _read_some(process.stdout, fault.read, deadline) if fault.read else b""
        process.stdout.close()
    if fault.signal is not None:
        time.sleep(fault.after)
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(fault.signal)
    try:
        rest, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.kill()
        rest, err = process.communicate()
        return Outcome(None, "", err.decode("utf-8", "replace"), hung=True)
    out += rest or b""
    return Outcome(process.returncode, out.decode("utf-8", "replace"),
                   err.decode("utf-8", "replace"))
