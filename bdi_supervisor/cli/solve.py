"""``bdi-supervisor solve SPEC`` — GR(1) synthesis of a hand-written spec.

Reads ``.structuredslugs`` or ``.slugsin``, prints the verdict and metrics (``--json``: the
synthesis record), optionally writes the explicit strategy (``--strategy OUT.json``, our
``strategy.json`` format) or slugs' JSON strategy format (``--slugs-json OUT.json``).
Exit 0 realizable, 1 unrealizable, 3 incomplete (a budget ran out), 2 bad input.
``--check-separation [--core]`` first diagnoses well-separation of the env assumptions and
prints it (with ``--json``: under the record's ``well_separation`` key); it never changes the
exit code or stops the solve.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING

from bdi_supervisor.cli.arguments import (
    add_separation_arguments,
    add_solver_arguments,
    options_from_args,
)
from bdi_supervisor.common import ExitCode, Realizability

if TYPE_CHECKING:
    from bdi_supervisor.options import SynthesisOptions


from bdi_supervisor.helptext import examples


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "solve", help="GR(1) synthesis of a .structuredslugs / .slugsin spec",
        description=__doc__)
    parser.epilog = examples(
        'bdi-supervisor spec coffee -o coffee.structuredslugs',
        'bdi-supervisor solve coffee.structuredslugs --strategy coffee.json',
        'bdi-supervisor solve coffee.structuredslugs --time-budget 60 --json')
    parser.add_argument("spec", help="SPEC.structuredslugs or SPEC.slugsin")
    parser.add_argument("--json", action="store_true", help="print the synthesis record as JSON")
    parser.add_argument("--strategy", metavar="OUT.json", help="write the explicit strategy")
    parser.add_argument("--slugs-json", metavar="OUT.json",
                        help="write the strategy in slugs' --explicitStrategy --jsonOutput format")
    parser.add_argument("--no-strategy", action="store_true",
                        help="decide realizability only (no explicit strategy)")
    add_solver_arguments(parser)
    add_separation_arguments(parser, json_flag=False)
    parser.set_defaults(func=run)


def exit_code(status: str) -> int:

    return {Realizability.REALIZABLE: ExitCode.OK,
            Realizability.UNREALIZABLE: ExitCode.NEGATIVE}.get(status, ExitCode.INCOMPLETE)


def run(args: argparse.Namespace) -> int:
    from bdi_supervisor.outpaths import check_outputs  # spec.io imports it anyway
    from bdi_supervisor.spec.io import load_spec
    from bdi_supervisor.synthesis.synthesize import synthesize

    spec = load_spec(args.spec)  # an input, which no output may replace
    check_outputs([("--strategy", args.strategy), ("--slugs-json", args.slugs_json)])
    options = options_from_args(args)
    separation = None
    if args.check_separation:
        separation = _check_separation(spec, args, options)
    if args.no_strategy:
        options = dataclasses.replace(options, extract=False)
    if args.json:  # no terminal output: rich stays unimported
        result = synthesize(spec, options)
    else:
        from bdi_supervisor.cli.synthesis_view import solving_status

        with solving_status(spec.name) as progress:
            result = synthesize(spec, options, progress=progress)
    if result.strategy is not None:
        _write_strategy_files(result.strategy, spec, args)
    else:
        not_written([("--strategy", args.strategy), ("--slugs-json", args.slugs_json)],
                    "--no-strategy" if args.no_strategy else f"the spec is {result.status}")
    if args.json:
        data = result.to_dict()
        if separation is not None:
            data["well_separation"] = separation.to_dict()
        json.dump(data, sys.stdout, indent=1)
        print()
    else:
        from bdi_supervisor.cli.synthesis_view import print_result

        print_result(result)
    return exit_code(result.status)


def not_written(outputs: list[tuple[str, str | None]], reason: str) -> None:
    """Say on stderr which of the output files asked for (``(option, path)``) this run did not
    write, and why; a file an earlier run left at such a path is removed, so that it is never
    taken for this run's."""
    from bdi_supervisor.limits import printable
    from bdi_supervisor.outpaths import remove_stale

    for option, path in outputs:
        if path:
            removed = remove_stale(path, f"{option} file")
            print(printable(f"{option} {path}: not written ({reason})"
                            + ("; the file an earlier run left there was removed"
                               if removed else "")), file=sys.stderr)


def _write_strategy_files(strategy, spec, args: argparse.Namespace) -> None:
    """``--strategy`` and ``--slugs-json`` (their modules are imported only when asked for)."""
    if args.strategy:
        from bdi_supervisor.synthesis import strategy as strategy_io

        strategy_io.save(strategy, args.strategy)
    if args.slugs_json:
        from bdi_supervisor.spec.io import write_text_atomic
        from bdi_supervisor.synthesis import slugs_json

        write_text_atomic(args.slugs_json, json.dumps(slugs_json.to_slugs_json(strategy, spec)))


def _check_separation(spec, args: argparse.Namespace, options: SynthesisOptions):
    """``--check-separation``: diagnose before solving (never stops the solve)."""
    from bdi_supervisor.separation import SeparationOptions, well_separation
    from bdi_supervisor.separation.report import summary

    record = well_separation(spec, SeparationOptions(
        core=args.core, time_budget_s=options.time_budget, node_budget=options.node_budget,
        order=options.order, seed=options.seed, reordering=options.reordering))
    if not args.json:
        sys.stdout.write(summary(record))
    return record
