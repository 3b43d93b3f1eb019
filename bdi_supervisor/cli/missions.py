"""``bdi-supervisor missions [--json]`` — the missions that ship with the package.

One line per mission: its name (what ``run``, ``synthesize`` and ``spec`` accept instead of a
file), what it is, its synthesis defaults (``<encoding>-<S|SP|F|FP>``), its simulator, the pip
extra that simulator needs, and the FlexBE state packages its realized behavior imports;
``--json`` prints them as one JSON array.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import InputError
from bdi_supervisor.helptext import examples


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "missions", help="list the shipped missions (run them by name from any directory)",
        description=__doc__)
    parser.epilog = examples(
        'bdi-supervisor missions',
        'bdi-supervisor missions --json')
    parser.add_argument("--json", action="store_true",
                        help="print a JSON array: one record per mission")
    parser.set_defaults(func=run)


def overview(path: Path) -> dict[str, Any]:
    """What ``missions`` shows of the mission file ``path``."""
    from bdi_supervisor.catalog.interfaces import state_package
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.runtime.extras import simulator_extra

    mission = load_mission(path)
    runner = mission.section("runner") or {}
    sim = runner.get("sim") or "forced"
    extra = simulator_extra(sim, runner)
    capabilities = mission.catalog.capabilities.values()
    packages = sorted({state_package(cap.interface) for cap in capabilities})
    return {"name": mission.name, "file": str(path), "description": mission.description or "",
            "defaults": mission.synthesis.config, "sim": sim,
            "extra": extra.name if extra else None, "state_packages": packages}


def run(args: argparse.Namespace) -> int:
    from bdi_supervisor.display import print_table, table
    from bdi_supervisor.shipped import config_dir, names, shipped_file

    if config_dir() is None:
        raise InputError("no shipped missions found in this installation",
                         expected="a bdi_supervisor install with its config data")
    rows = [overview(shipped_file("missions", name)) for name in names("missions")]
    if args.json:
        print(json.dumps(rows, indent=1))
        return ExitCode.OK
    grid = table("mission", "defaults", "sim", "extra", "FlexBE state packages", "description")
    for row in rows:
        grid.add_row(row["name"], row["defaults"], row["sim"], row["extra"] or "-",
                     ", ".join(row["state_packages"]), row["description"])
    # a narrow terminal keeps the name and what the mission is
    print_table(grid, drop=("FlexBE state packages", "extra", "sim", "defaults"))
    return ExitCode.OK
