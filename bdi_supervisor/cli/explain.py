"""``bdi-supervisor explain MISSION|SPEC`` — why a mission or spec is unrealizable.

Prints a 1-minimal unrealizable core of the guarantees, each named in the mission's terms
(capability precondition, postcondition or follow-on rule, request goal or initial condition,
custom constraint, pending rule) with file and line; the assumptions each realizable neighbour
of the core needs; the environment's counter-strategy (symbolic, and explicit up to
``--max-states`` states); and a counter-run, replayed for a mission with the embedded executor
and forced outcomes (the replay command is printed when ``-o`` saves the explanation).
``--json`` prints the explanation record, ``-o FILE`` writes it; ``--counter-strategy FILE``
writes the explicit counter-strategy as JSON, ``--slugs-counter-strategy FILE`` in slugs'
``--counterStrategy`` text format.

Exit 1 when it explains an unrealizable spec, 0 when the spec is realizable (nothing to
explain), 2 on bad input, 3 when a budget ran out first.
"""

from __future__ import annotations

import argparse
import json
import sys

from bdi_supervisor.cli.arguments import (
    add_override_arguments,
    add_solver_arguments,
    options_from_args,
    overrides_from_args,
    solver_overrides,
)
from bdi_supervisor.helptext import examples

SPEC_SUFFIXES = (".structuredslugs", ".slugsin")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "explain", help="why a mission or spec is unrealizable: core, counter-strategy, "
                        "counter-run", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.epilog = examples(
        'bdi-supervisor explain two_rivers_goat_stays        # exit 1: unrealizable',
        'bdi-supervisor explain two_rivers_goat_stays --json',
        'bdi-supervisor explain two_rivers_goat_stays --draw goat_stays  # goat_stays.svg')
    parser.add_argument("target", metavar="MISSION|SPEC",
                        help="mission file or shipped mission name, or a .structuredslugs / "
                             ".slugsin spec")
    parser.add_argument("--json", action="store_true", help="print the explanation as JSON")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the explanation (JSON)")
    parser.add_argument("--counter-strategy", metavar="FILE",
                        help="write the explicit counter-strategy (our JSON)")
    parser.add_argument("--slugs-counter-strategy", metavar="FILE",
                        help="write the explicit counter-strategy in slugs' --counterStrategy "
                             "text format")
    parser.add_argument("--draw", metavar="BASE",
                        help="picture the counter-strategy with the core: BASE.dot and, with "
                             "Graphviz, BASE.svg and BASE.png")
    parser.add_argument("--no-assumptions", action="store_true",
                        help="skip the analysis of the assumptions the core relies on")
    parser.add_argument("--assumption-checks", type=int, default=None, metavar="N",
                        help="realizability checks that analysis may spend; the core's "
                             "elements past them are not analysed (default 100)")
    add_override_arguments(parser)
    add_solver_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    solver = options_from_args(args)
    checks = _assumption_checks(args)
    is_spec = args.target.endswith(SPEC_SUFFIXES)
    if is_spec and overrides_from_args(args):
        from bdi_supervisor.errors import InputError

        raise InputError("a spec file has no mission options to override", key="--encoding",
                         found=args.target, expected="a mission, or no --encoding/--liveness/"
                                                     "--pending")
    timeline = None
    if is_spec:
        from bdi_supervisor.explain.explanation import ExplainOptions, explain
        from bdi_supervisor.spec.io import load_spec

        spec = load_spec(args.target)
        _check_outputs(args)
        explanation = explain(spec, ExplainOptions(solver, args.max_states,
                                                   not args.no_assumptions, checks))
        data = explanation.to_dict()
    else:
        from bdi_supervisor.mission import load_mission
        from bdi_supervisor.pipeline import explain_mission

        mission = load_mission(args.target)
        _check_outputs(args)
        overrides = {**solver_overrides(args), **overrides_from_args(args)}
        explained = explain_mission(mission, overrides, max_states=args.max_states,
                                    assumptions=not args.no_assumptions,
                                    assumption_checks=checks)
        explanation, timeline = explained.explanation, explained.timeline
        data = explained.to_dict()
    _write_files(args, explanation, data)
    if args.json:
        json.dump(data, sys.stdout, indent=1)
        print()
    else:
        from bdi_supervisor.cli.explanation_view import print_explanation

        print_explanation(data, source=args.target, replay_file=args.output,
                          timeline=timeline)
    from bdi_supervisor.cli.solve import exit_code

    return exit_code(explanation.status)


def _outputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    drawn = [(f"--draw ({ext})", f"{args.draw}.{ext}") for ext in ("dot", "svg", "png")
             ] if args.draw else []
    return [("-o", args.output), ("--counter-strategy", args.counter_strategy),
            ("--slugs-counter-strategy", args.slugs_counter_strategy), *drawn]


def _check_outputs(args: argparse.Namespace) -> None:
    """The output files, once the inputs are read (none may be one of them) and before the
    explanation starts."""
    from bdi_supervisor.outpaths import check_outputs

    check_outputs(_outputs(args))


def _assumption_checks(args: argparse.Namespace) -> int:
    from bdi_supervisor.explain.explanation import DEFAULT_ASSUMPTION_CHECKS

    if args.assumption_checks is None:
        return DEFAULT_ASSUMPTION_CHECKS
    if args.assumption_checks < 1:
        from bdi_supervisor.errors import InputError

        raise InputError("must be a positive number", key="--assumption-checks",
                         found=str(args.assumption_checks),
                         expected="a count of realizability checks (or --no-assumptions)")
    return args.assumption_checks


def _write_files(args: argparse.Namespace, explanation, data: dict) -> None:
    from bdi_supervisor.outpaths import write_text_atomic

    if args.output:
        write_text_atomic(args.output, json.dumps(data, indent=1))
    if explanation.explicit is None or explanation.game is None:
        from bdi_supervisor.cli.solve import not_written

        reason = ("the spec is realizable" if explanation.status == "REALIZABLE" else
                  "no explicit counter-strategy was built")
        not_written(_outputs(args)[1:], reason)
        return
    from bdi_supervisor.explain import counterstrategy

    if args.counter_strategy:
        write_text_atomic(args.counter_strategy, json.dumps(
            counterstrategy.to_json(explanation.game, explanation.explicit), indent=1))
    if args.slugs_counter_strategy:
        write_text_atomic(args.slugs_counter_strategy,
                          counterstrategy.slugs_text(explanation.game, explanation.explicit))
    if args.draw:
        _draw(args, counterstrategy.to_json(explanation.game, explanation.explicit), data)


def _draw(args: argparse.Namespace, counter: dict, data: dict) -> None:
    """The counter-strategy's picture at ``--draw BASE`` (named in the mission's terms for a
    mission); what was written on stderr."""
    from bdi_supervisor import draw
    from bdi_supervisor.limits import printable

    catalog = None
    if not args.target.endswith(SPEC_SUFFIXES):
        from bdi_supervisor.mission import load_mission

        catalog = load_mission(args.target).catalog
    encoding = str(data.get("config") or "").rsplit("-", 1)[0] or None  # one-hot-SP: one-hot
    drawn = draw.render_counter(counter, data, args.draw, catalog, encoding)
    shown = ", ".join(str(p) for p in drawn.pictures) or str(drawn.dot)
    print(printable(f"counter-strategy picture: {shown}" + (f" ({drawn.note})" if drawn.note
                                                             else "")), file=sys.stderr)
