"""Run ``bdi-supervisor`` / ``bdi-monitor`` in this process and classify what happened.

Used by the reliability tests and the fuzz suite: :func:`run_cli` captures the exit status,
stdout and stderr, and turns an escaping exception (or a traceback printed on stderr) into the
outcome ``traceback`` instead of failing inside the harness.
"""

from __future__ import annotations

import contextlib
import io
import os
import traceback
from dataclasses import dataclass
from pathlib import Path

EXIT_CODES = (0, 1, 2, 3)


@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    #: the formatted exception when one escaped the command
    crash: str | None = None

    @property
    def traceback(self) -> bool:
        return self.crash is not None or "Traceback (most recent call last)" in self.err

    @property
    def kind(self) -> str:
        """``ok`` / ``negative`` / ``bad_input`` / ``incomplete`` / ``traceback`` / ``exit N``."""
        if self.traceback:
            return "traceback"
        return {0: "ok", 1: "negative", 2: "bad_input", 3: "incomplete"}.get(
            self.code, f"exit {self.code}")


def run_cli(tool: str, argv: list[str]) -> Outcome:
    """``tool`` is ``supervisor`` or ``monitor``."""
    if tool == "supervisor":
        from bdi_supervisor.cli.main import main
    else:
        from bdi_monitor.cli import main
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
