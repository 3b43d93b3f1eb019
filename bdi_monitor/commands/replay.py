"""``bdi-monitor replay LOG.jsonl [--mission M] [--from DIR] [--json]``.

Evaluates a recorded run (the BDI-state JSON Lines of ``bdi-supervisor run --bdi-log``) with the
live monitor: checks the mission's properties at launch, feeds every record and prints each
verdict change at the record that caused it, then the final verdicts. The mission defaults to
the one named in the log (``config/missions/<mission>.yaml`` next to the log or in this package's
config). Exit 0 when every property ends ``true``, 1 when some ends otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bdi_supervisor.display import output_console
from bdi_supervisor.errors import InputError
from bdi_supervisor.shipped import shipped_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay", help="evaluate a recorded run (BDI-state JSON Lines) with the live monitor",
        description="Check a mission's CTL-BDI properties at launch, then replay a recorded "
                    "BDI-state log through the monitor, printing every verdict change at the "
                    "record that caused it. Exit 0 if every property ends true, 1 otherwise, "
                    "2 on bad input.")
    parser.add_argument("log", metavar="LOG.jsonl", help="BDI-state records, one JSON per line")
    parser.add_argument("--mission", metavar="M",
                        help="mission file (default: the mission named in the log)")
    parser.add_argument("--from", dest="from_dir", metavar="DIR",
                        help="saved run folder with the supervisor (default: synthesize)")
    parser.add_argument("--json", action="store_true", help="print one JSON record")
    parser.set_defaults(func=run)


def _mission_path(log: Path, lines: list[str], given: str | None) -> Path:
    if given:
        return Path(given)
    for line in lines:
        try:
            name = json.loads(line).get("mission")
        except (ValueError, AttributeError):
            continue
        if isinstance(name, str) and name.replace("_", "").isalnum():
            for folder in (log.parent, log.parent / "config" / "missions"):
                if (folder / f"{name}.yaml").is_file():
                    return folder / f"{name}.yaml"
            shipped = shipped_file("missions", name)
            if shipped is not None:
                return shipped
            raise InputError("cannot find the mission named in the log", file=str(log),
                             key="mission", found=repr(name), expected="--mission FILE")
    raise InputError("the log names no mission", file=str(log), key="mission",
                     expected="--mission FILE")


def run(args: argparse.Namespace) -> int:
    from bdi_monitor.live import LiveMonitor
    from bdi_monitor.monitor import create_monitor

    log = Path(args.log)
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the log: {error}", file=str(log)) from None
    mission = _mission_path(log, lines, args.mission)
    monitor = create_monitor(mission, args.from_dir)
    if not monitor.names:
        raise InputError("the mission has no properties to monitor", file=str(mission),
                         key="properties", expected="a properties section")
    console = None if args.json else output_console()
    live = LiveMonitor(monitor, console)
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = line  # counted as malformed by the monitor
        live(record)
    record = {"log": str(log), "mission": str(mission), **live.to_json()}
    ok = all(v == "true" for v in record["verdicts"].values())
    if args.json:
        json.dump(record, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        live.print_summary(console)
    return 0 if ok else 1
