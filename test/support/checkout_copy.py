"""A fresh copy of this checkout's files, as a clone would have them (for tests that must not
see build output, caches or ``out/``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support.paths import ROOT


def copy_checkout(target: Path) -> Path:
    """Copy the tracked and untracked-but-not-ignored files to ``target``; skip without git."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot tell the repository's files from build output")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)
    return target
