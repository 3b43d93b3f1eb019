"""Every bench script answers ``--help`` (usage, exit 0) without running or a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import BENCH, ROOT

SCRIPTS = sorted(p for p in BENCH.glob("*/*.py")
                 if "__main__" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[str(p.relative_to(ROOT)) for p in SCRIPTS])
def test_bench_script_help(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:") and "Traceback" not in done.stderr
