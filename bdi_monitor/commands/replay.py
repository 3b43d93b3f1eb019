"""``bdi-monitor replay LOG.jsonl [--mission M] [--from DIR] [--json]``.

Evaluates a recorded run (the BDI-state JSON Lines of ``bdi-supervisor run --bdi-log``) with the
live monitor: checks the mission's properties at launch, feeds every record and prints each
verdict change at the record that caused it, then the final verdicts. The mission defaults to
the one named in the log (``config/missions/<mission>.yaml`` next to the log or in this package's
config). The log is streamed (memory does not grow with it); malformed lines of any size or depth
are counted and skipped; ``--json`` lists the first and last verdict changes and counts the rest.
Exit 0 when every property ends ``true``, 1 when some ends otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bdi_supervisor.common import ExitCode, PropertyValue
from bdi_supervisor.errors import InputError
from bdi_supervisor.helptext import examples
from bdi_supervisor.shipped import shipped_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay", help="evaluate a recorded run (BDI-state JSON Lines) with the live monitor",
        description="Check a mission's CTL-BDI properties at launch, then replay a recorded "
                    "BDI-state log through the monitor, printing every verdict change at the "
                    "record that caused it. Exit 0 if every property ends true, 1 otherwise, "
                    "2 on bad input.")
    parser.epilog = examples(
        'bdi-supervisor run beer_robot --bdi-log beer.jsonl',
        'bdi-monitor replay beer.jsonl')
    parser.add_argument("log", metavar="LOG.jsonl", help="BDI-state records, one JSON per line")
    parser.add_argument("--mission", metavar="M",
                        help="mission file (default: the mission named in the log)")
    parser.add_argument("--from", dest="from_dir", metavar="DIR",
                        help="saved run folder with the supervisor (default: synthesize)")
    parser.add_argument("--json", action="store_true", help="print one JSON record")
    parser.set_defaults(func=run)


def _lines(log: Path):
    """The log's lines as bytes, streamed (a line longer than a record may be comes as None)."""
    from bdi_supervisor.limits import MAX_RECORD_BYTES
    from bdi_supervisor.yamlsource import read_lines

    for _, line in read_lines(log, "log", max_line=MAX_RECORD_BYTES):
        if line is None or line.strip():
            yield line


def _mission_path(log: Path, given: str | None) -> Path:
    from bdi_monitor.monitor import parse_line

    if given:
        return Path(given)
    for line in _lines(log):
        record, _ = parse_line(line)
        name = record.get("mission") if isinstance(record, dict) else None
        if isinstance(name, str) and name.replace("_", "").isalnum() and len(name) <= 100:
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
    from bdi_supervisor.display import output_console
    from bdi_supervisor.yamlsource import file_problem

    log = Path(args.log)
    problem = file_problem(log)
    if problem is not None:
        raise InputError("cannot read the log: it " + (
            "does not exist" if problem == "not found" else problem), file=str(log))
    mission = _mission_path(log, args.mission)
    monitor = create_monitor(mission, args.from_dir)
    if not monitor.names:
        raise InputError("the mission has no properties to monitor", file=str(mission),
                         key="properties", expected="a properties section")
    console = None if args.json else output_console()
    live = LiveMonitor(monitor, console)
    for line in _lines(log):  # streamed: memory does not grow with the log
        live.feed_line(line)
    record = {"log": str(log), "mission": str(mission), **live.to_json()}
    live.close()
    ok = all(v == PropertyValue.TRUE for v in record["verdicts"].values())
    if args.json:
        json.dump(record, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        live.print_summary(console)
    return ExitCode.OK if ok else ExitCode.NEGATIVE
