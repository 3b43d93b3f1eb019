"""One measured child process for the synthesis benchmarks (``run.py``, ``startup.py``)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """This checkout first on the path, bytecode caching on (as an installed package has it)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_process(command: list[str], timeout: float | None = None) -> dict:
    """Run ``command``; its wall and CPU seconds, peak RSS (MiB, from ``wait4``), exit code and
    output (``None`` wall time when it ran past ``timeout`` and was killed)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   env=child_env())
        timer = threading.Timer(timeout, process.kill) if timeout is not None else None
        if timer is not None:
            timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            if timer is not None:
                timer.cancel()
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
    killed = process.returncode < 0
    return {"wall": None if killed else wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024, "code": process.returncode, "output": text}
