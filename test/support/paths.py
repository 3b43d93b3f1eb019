"""Where the tests find the repository's files, whatever the working directory."""

from __future__ import annotations

from pathlib import Path

#: the repository root (the folder holding setup.py)
ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config"
MISSIONS = CONFIG / "missions"
CATALOGS = CONFIG / "catalogs"
CTL_MODELS = CONFIG / "ctl"
WORLDS = CONFIG / "worlds"
SWEEPS = CONFIG / "sweeps"
#: the tests' own inputs (saved supervisors, hand-written missions and catalogs)
DATA = ROOT / "test" / "data"
BENCH = ROOT / "bench"
DOCS = ROOT / "docs"
