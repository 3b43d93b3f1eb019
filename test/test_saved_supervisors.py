"""The saved run folders under ``test/data/supervisors`` are what the pipeline produces today.

They are the ``--from DIR`` inputs of the monitor CLI tests (and of ``bench/monitor``). Each is
regenerated from its mission and compared, so a change of the synthesis, audit or reducer cannot
leave them stale unnoticed. After an intended change, refresh them with
``python test/test_saved_supervisors.py``.
"""

from __future__ import annotations

import json
import sys

import pytest
from support.paths import DATA, ROOT

from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import Prepared, prepare
from bdi_supervisor.synthesis import strategy as strategy_io

SAVED = DATA / "supervisors"
#: saved folder → the mission it was synthesized from
MISSIONS = {"beer_robot": "beer_robot", "logistics_p0": "logistics_p0"}
REFRESH = "stale; refresh with: python test/test_saved_supervisors.py"


def fresh(name: str) -> Prepared:
    return prepare(load_mission(ROOT / "config" / "missions" / f"{MISSIONS[name]}.yaml"))


def test_every_saved_folder_is_checked():
    assert sorted(p.name for p in SAVED.iterdir() if p.is_dir()) == sorted(MISSIONS)


@pytest.mark.parametrize("name", sorted(MISSIONS))
def test_saved_supervisor_equals_a_fresh_synthesis(name):
    folder = SAVED / name
    prepared = fresh(name)
    saved = strategy_io.load(folder / "reduced.json")
    assert strategy_io.to_dict(saved) == strategy_io.to_dict(prepared.reduced), f"{name}: {REFRESH}"
    verdict = json.loads((folder / "audit.json").read_text())["status"]
    assert verdict == prepared.audit == "PASS", f"{name}: {REFRESH}"


def refresh() -> None:
    """Rewrite every saved folder from a fresh synthesis (reduced strategy and audit verdict)."""
    for name in sorted(MISSIONS):
        prepared = fresh(name)
        folder = SAVED / name
        folder.mkdir(parents=True, exist_ok=True)
        strategy_io.save(prepared.reduced, folder / "reduced.json")
        (folder / "audit.json").write_text(json.dumps({"status": prepared.audit}))
        print(f"{folder}: {prepared.counts}", file=sys.stderr)


if __name__ == "__main__":
    refresh()
