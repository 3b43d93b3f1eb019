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

from bdi_supervisor.cli.arguments import (
    add_mission_argument,
    add_override_arguments,
    add_separation_arguments,
    overrides_from_args,
)
from bdi_supervisor.common import ExitCode
from bdi_supervisor.helptext import examples

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
    add_mission_argument(parser)
    add_override_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default="structuredslugs",
                        help="output format")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically) instead of stdout")
    add_separation_arguments(parser)
    parser.set_defaults(func=run)


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

    mission = load_mission(args.mission)  # its files are inputs the output may not replace
    if args.output:
        check_output_file(args.output, "-o file")
    overrides = overrides_from_args(args)
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
