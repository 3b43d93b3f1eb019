"""``bdi-supervisor spec MISSION.yaml``: generate the GR(1) specification of a mission.

Prints structuredslugs (default), slugsin, or a JSON record with the proposition and formula
counts; ``-o FILE`` writes it atomically instead (nothing is written on error). Options given
here override the mission's ``synthesis`` section.

``--check-separation`` runs the well-separation analysis on the generated spec instead of
printing it (``-o`` still writes the spec): a summary, or the record with ``--json``;
``--core`` adds the 1-minimal core. Exit 0 if well-separated, 1 if not (or incomplete).
"""

from __future__ import annotations

import argparse
import json
import sys

from bdi_supervisor.common import ExitCode
from bdi_supervisor.helptext import examples
from bdi_supervisor.options import ENCODINGS, LIVENESS

FORMATS = ("structuredslugs", "slugsin", "json")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "spec",
        help="generate the GR(1) specification of a mission",
        description="Generate the GR(1) specification of a mission (catalog + request + custom "
                    "constraints). Exit 0 on success, 2 on bad input.",
    )
    parser.epilog = examples(
        'bdi-supervisor spec vending',
        'bdi-supervisor spec two_rivers --encoding enumerated --format json',
        'bdi-supervisor spec coffee --check-separation --core')
    parser.add_argument("mission", metavar="MISSION",
                        help="mission file or shipped mission name (bdi-supervisor missions)")
    parser.add_argument("--encoding", choices=ENCODINGS,
                        help="activation encoding (default: the mission's)")
    parser.add_argument("--liveness", choices=LIVENESS,
                        help="liveness treatment (default: the mission's)")
    pending = parser.add_mutually_exclusive_group()
    pending.add_argument("--pending", dest="pending", action="store_true", default=None,
                         help="add pending memory for failure-capable capabilities")
    pending.add_argument("--no-pending", dest="pending", action="store_false",
                         help="no pending memory")
    parser.add_argument("--format", choices=FORMATS, default="structuredslugs",
                        help="output format")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically) instead of stdout")
    add_separation_arguments(parser)
    parser.set_defaults(func=run)


def add_separation_arguments(parser: argparse.ArgumentParser, json_flag: bool = True) -> None:
    """``--check-separation [--core] [--json]`` (shared with ``solve``, which has its own
    --json)."""
    group = parser.add_argument_group("well-separation")
    group.add_argument("--check-separation", action="store_true",
                       help="diagnose well-separation of the env assumptions (Maoz & Ringert); "
                            "exit 1 if not well-separated or incomplete")
    group.add_argument("--core", action="store_true",
                       help="with --check-separation: compute a 1-minimal core of assumptions")
    if json_flag:
        group.add_argument("--json", action="store_true",
                           help="with --check-separation: print the well_separation.json record")


def check_separation(spec, args: argparse.Namespace, options=None) -> int:
    """Run the analysis for ``--check-separation``, print the summary or record; exit code."""
    import dataclasses

    from bdi_supervisor.display import output_console
    from bdi_supervisor.separation import SeparationOptions, well_separation
    from bdi_supervisor.separation.report import summary

    base = options or SeparationOptions()
    options = dataclasses.replace(base, core=args.core or base.core)
    console = output_console(stderr=True)
    if console.is_terminal:
        with console.status("well-separation") as status:
            record = well_separation(spec, options,
                                     progress=lambda phase: status.update("well-separation: "
                                                                          f"{phase}"))
    else:
        record = well_separation(spec, options)
    sys.stdout.write(record.to_json() if args.json else summary(record))
    return ExitCode.OK if record.well_separated else ExitCode.NEGATIVE


def record(spec, mission, options) -> dict:
    """The ``--format json`` record: options, proposition counts, formula counts per section."""
    counts = spec.counts()
    return {
        "mission": mission.name,
        "catalog": mission.catalog.name,
        "encoding": options.encoding,
        "liveness": options.liveness,
        "pending": options.pending,
        "configuration": options.label,
        "propositions": {k: counts[k] for k in ("inputs", "outputs", "input_bits", "output_bits")},
        "formulas": {k: v for k, v in counts.items()
                     if k not in ("inputs", "outputs", "input_bits", "output_bits")},
        "inputs": [v.name for v in spec.inputs],
        "outputs": [v.name for v in spec.outputs],
    }


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.outpaths import check_output_file
    from bdi_supervisor.spec.io import format_spec, write_text_atomic
    from bdi_supervisor.specgen.generate import generate_spec

    if args.output:
        check_output_file(args.output)
    mission = load_mission(args.mission)
    overrides = {k: getattr(args, k) for k in ("encoding", "liveness", "pending")
                 if getattr(args, k) is not None}
    options = dataclasses.replace(mission.synthesis, **overrides)
    spec = generate_spec(mission, **overrides)
    if args.check_separation:
        from bdi_supervisor.separation.stage import settings

        if args.output:
            write_text_atomic(args.output,
                              format_spec(spec, args.format if args.format != "json"
                                          else "structuredslugs"))
        return check_separation(spec, args, settings(mission).options)
    if args.format == "json":
        text = json.dumps(record(spec, mission, options), indent=2) + "\n"
    else:
        text = format_spec(spec, args.format)
    if args.output:
        write_text_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return ExitCode.OK
