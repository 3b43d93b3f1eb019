"""``bdi-supervisor synthesize MISSION.yaml`` — mission → spec → synthesis (→ later stages).

Writes the output folder ``<out>/<mission>/<config>/`` (spec files, ``strategy.json``,
``summary.json``; see :mod:`bdi_supervisor.pipeline`). Options given here override the
mission's ``synthesis`` section. Exit 0 when every stage passed, 1 on a negative verdict
(e.g. unrealizable), 2 on bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
from pathlib import Path

from bdi_supervisor.cli.arguments import (
    add_mission_argument,
    add_override_arguments,
    add_solver_arguments,
    options_from_args,
    overrides_from_args,
    solver_overrides,
)
from bdi_supervisor.common import ExitCode
from bdi_supervisor.helptext import examples
from bdi_supervisor.limits import printable


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "synthesize", help="run a mission: spec generation and GR(1) synthesis (and later stages)",
        description=__doc__)
    parser.epilog = examples(
        'bdi-supervisor synthesize coffee_extended        # -> out/coffee_extended/one-hot-SP/',
        'bdi-supervisor synthesize vending_extended --liveness fair-outcome --pending --draw',
        'bdi-supervisor synthesize logistics_p1 --time-budget 60 --json')
    add_mission_argument(parser)
    add_override_arguments(parser)
    parser.add_argument("--declaration-order", choices=["alphabetic", "as-written", "random"],
                        help="variable declaration order of the generated spec")
    parser.add_argument("--out", metavar="DIR", default="out",
                        help="output root (default: out/)")
    parser.add_argument("--json", action="store_true", help="print summary.json")
    parser.add_argument("--quiet", action="store_true",
                        help="no live status while synthesizing (none either when piped)")
    add_solver_arguments(parser)
    parser.add_argument("--draw", action="store_true",
                        help="also write strategy_raw.{dot,svg,png} and strategy_reduced.* "
                             "(traps and counterexamples highlighted), behavior_machine.* (the "
                             "FlexBE behavior) or, unrealizable, counter_strategy.*; DOT only "
                             "without Graphviz")
    parser.set_defaults(func=run)


def _draw_note(result, console) -> None:
    """Say what ``--draw`` wrote when Graphviz is missing (only DOT files)."""
    from bdi_supervisor import draw as drawing

    if shutil.which("dot") is not None:
        return
    files = [name for stage in result.stages for name in stage.files if name.endswith(".dot")]
    if not files:
        return
    console.print(f"--draw: Graphviz's 'dot' is not installed, so only DOT files were written "
                  f"({', '.join(files)}); {drawing.INSTALL_GRAPHVIZ}", style="yellow")


def _print_failure(args: argparse.Namespace, result, console) -> None:
    """Why the audited supervisor is not deployable (nothing when it is)."""
    from bdi_supervisor import pipeline
    from bdi_supervisor.cli.arguments import command_line
    from bdi_supervisor.cli.synthesis_view import print_audit_failure

    audit = result.audit
    found = pipeline.audit_findings(audit, result.mission.catalog, result.synthesis.strategy)
    files = [str(audit.files[key]) for key in ("audit", "audit_reduced") if key in audit.files]
    where = f"{' and '.join(files)}, key 'defects'" if files else "synthesize --json"
    closer = None if args.draw else (
        command_line("synthesize", args, "--draw") + "  (pictures with the defects' states "
        "filled and the way there in bold red)")
    print_audit_failure(found, where, closer, console)


def run(args: argparse.Namespace) -> int:
    from bdi_supervisor import pipeline
    from bdi_supervisor.cli.synthesis_view import (
        last_run_seconds,
        print_audit_warnings,
        print_result,
        solving_status,
        stage_lines,
    )
    from bdi_supervisor.display import output_console, say
    from bdi_supervisor.mission import load_mission

    mission = load_mission(args.mission)
    options_from_args(args)  # the solver flags, validated
    overrides = {**solver_overrides(args), **overrides_from_args(args)}
    if args.declaration_order:
        overrides["declaration_order"] = args.declaration_order
    console = output_console()
    config = dataclasses.replace(mission.synthesis, **overrides).config
    expected = last_run_seconds(Path(args.out) / mission.name / config)
    with solving_status(mission.name, quiet=args.json or args.quiet,
                        expected=expected) as status:
        progress = status if args.json else stage_lines(status, console)
        result = pipeline.run(mission, overrides=overrides, out_dir=args.out, progress=progress,
                              draw=args.draw)
    realize_error = result.realize_error
    if args.json:
        json.dump(result.summary(), sys.stdout, indent=1)
        print()
    else:
        if result.synthesis is not None:
            print_result(result.synthesis, console)
        explained = result.explanation
        if explained is not None:
            from bdi_supervisor.cli.explanation_view import print_explanation

            saved = next((f for s in result.stages for f in s.files
                          if f.endswith("explanation.json")), None)
            print_explanation(explained.to_dict(), console, source=args.mission,
                              replay_file=saved, timeline=explained.timeline)
        audit = result.audit
        if audit is not None:
            where = (f"{audit.files['audit']} (and audit_reduced.json), key 'warnings'"
                     if "audit" in audit.files else "rerun with --json")
            print_audit_warnings(pipeline.audit_warnings(audit), where, console)
            _print_failure(args, result, console)
        if result.out_dir is not None:
            say(console, f"output: {result.out_dir}", copyable=True)
    if args.draw:
        _draw_note(result, output_console(stderr=True))
    if realize_error is not None:  # bad input found at realization (e.g. an unresolved interface)
        print(printable(f"error: {realize_error.describe()}"), file=sys.stderr)
        return ExitCode.BAD_INPUT
    return result.exit_code
