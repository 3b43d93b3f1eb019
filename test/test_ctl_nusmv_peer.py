"""bench/ctl's NuSMV peer on the grid's SMV model: the same verdicts and reachable-state counts
as our checker on small grids. Runs where a NuSMV executable is given (``NUSMV=PATH``) or on
PATH; it is built by the user, never shipped, so the test skips elsewhere."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from support.paths import BENCH

from bdi_monitor.checker import Checker
from bdi_monitor.logic import parse
from bdi_monitor.models.grid import grid_structure

_SPEC = importlib.util.spec_from_file_location("nusmv_peer", BENCH / "ctl" / "nusmv_peer.py")
peer = importlib.util.module_from_spec(_SPEC)
sys.modules["nusmv_peer"] = peer
_SPEC.loader.exec_module(peer)

NUSMV = peer.find_nusmv(os.environ.get("NUSMV"))
pytestmark = pytest.mark.skipif(NUSMV is None, reason="no NuSMV executable (NUSMV=PATH or "
                                                      "NuSMV on PATH; built by the user)")
PROPERTIES = ("AG(bel br -> EF bb)", "AG(bel br -> AF bb)")  # the model's two SPECs, in order


@pytest.mark.parametrize(("n", "worlds"), [(4, 4), (8, 5), (16, 8), (32, 12)])
def test_nusmv_gives_our_verdicts_and_reachable_count(tmp_path, n, worlds):
    smv, order = peer.write(tmp_path, n, worlds)
    run = subprocess.run(peer.command(NUSMV, smv, order), capture_output=True, text=True,
                         timeout=120, check=True)
    theirs = peer.parse_output(run.stdout)
    checker = Checker(grid_structure(n, worlds))
    assert theirs["verdicts"] == [checker.holds(parse(p)) for p in PROPERTIES]
    assert theirs["nodes"] == checker.count()
