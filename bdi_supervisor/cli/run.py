"""``bdi-supervisor run MISSION.yaml [--sim pyrobosim|forced] [--force SCRIPT] [--seed N]
[--bdi-log FILE] [--json] [--from DIR | --encoding E --liveness L --[no-]pending]``.

Obtains the mission's supervisor from the pipeline (:func:`bdi_supervisor.pipeline.prepare`:
spec, well-separation, synthesis, audit, reduce, audit, realize; the overrides change the
mission's ``synthesis`` section as in ``synthesize``) or from a saved run folder (``--from``),
and executes it with the embedded executor against the chosen simulator; prints the timeline.
Exit 0 when the mission goal is reached, 1 when the run ends otherwise (failure outcome,
assumption violation, adapter error, stop, step limit) or the supervisor fails its audit, 2 on
bad input (including a bad catalog/adapter binding, reported before the robot moves).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from bdi_supervisor.cli.arguments import (
    OVERRIDES,
    add_mission_argument,
    add_override_arguments,
    overrides_from_args,
)
from bdi_supervisor.common import ExitCode
from bdi_supervisor.helptext import examples
from bdi_supervisor.limits import printable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="synthesize, audit, reduce and execute a mission's supervisor",
        description="Run a mission's supervisor with the embedded executor: synthesize (or "
                    "load a saved run folder), audit, reduce, build the supervisor machine and "
                    "execute it against a simulator; print the timeline. Exit 0 when the goal "
                    "is reached, 1 when the run ends otherwise, 2 on bad input.",
    )
    parser.epilog = examples(
        'bdi-supervisor run coffee_extended --seed 1',
        'bdi-supervisor run vending_extended --force "pay=failure pay=failure"',
        'bdi-supervisor run beer_robot --bdi-log beer.jsonl --json')
    add_mission_argument(parser)
    parser.add_argument("--sim", metavar="SIM",
                        help="simulator: forced, pyrobosim or quadcopter (default: the mission's "
                             "runner.sim, else forced)")
    parser.add_argument("--force", metavar="SCRIPT",
                        help="forced outcomes: a file or entries like 'pick=failure,pick=completed'"
                             " (cap#n=outcome forces the n-th activation)")
    parser.add_argument("--seed", type=int, help="seed for the simulator and random failures")
    parser.add_argument("--bdi-log", metavar="FILE", help="write the live BDI state (JSON Lines)")
    parser.add_argument("--from", dest="from_dir", metavar="DIR",
                        help="use a saved run folder (reduced.json, strategy.json) instead of "
                             "synthesizing, or an explanation.json (bdi-supervisor explain -o): "
                             "its counter-run")
    add_override_arguments(parser)
    parser.add_argument("--max-steps", type=int, metavar="N", help="stop after N activations")
    parser.add_argument("--operator", action="store_true",
                        help="ask on the terminal for operator-decision outcomes")
    parser.add_argument("--json", action="store_true", help="print the run record as JSON")
    parser.add_argument("--quiet", action="store_true",
                        help="no live views while synthesizing and running (none when piped)")
    parser.add_argument("--monitor", action=argparse.BooleanOptionalAction, default=None,
                        help="evaluate the mission's CTL-BDI properties live (default: on when "
                             "the mission has a properties section)")
    parser.set_defaults(func=run)


def ask_operator(activation, question, console=None, stream=None) -> str:
    """Ask on the terminal for an operator decision: one of the catalog's outcomes (the words
    ``--force`` takes) or a FlexBE outcome of the state, asked again until it is one."""
    from rich.markup import escape
    from rich.prompt import Prompt

    from bdi_supervisor.display import output_console

    hint = activation.parameters.get("hint") or activation.capability
    aliases = "/".join(name for name, choice in question.aliases.items() if name != choice)
    prompt = (f"[bold]{escape(activation.state)}[/] {escape(str(hint))} "
              + escape(f"[{'/'.join(question.choices)}]")
              + (f" [dim](FlexBE: {escape(aliases)})[/]" if aliases else ""))
    while True:
        typed = Prompt.ask(prompt, default=question.default, console=console, stream=stream)
        if question.answer(str(typed)) is not None:
            return str(typed)
        (console or output_console()).print(
            f"[red]choose one of {', '.join(question.choices)}[/]")


def _monitor(args: argparse.Namespace, mission, prepared, view):
    """The live CTL-BDI monitor (``bdi_monitor.live``), printing verdict changes as they come."""
    if args.monitor is False:
        return None
    from bdi_monitor.live import attach

    console = None if args.json else (view.console if view is not None else None)
    if console is None and not args.json:
        from bdi_supervisor.display import output_console

        console = output_console()
    return attach(mission, prepared, console, args.monitor)


def run(args: argparse.Namespace) -> int:
    import bdi_supervisor.domains  # noqa: F401  (registers the simulators with the runtime)
    from bdi_supervisor.cli.solve import not_written
    from bdi_supervisor.handover import Refused, check_audit
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import NoSupervisor

    mission = load_mission(args.mission)
    overrides = _checked_arguments(args, mission)
    try:
        prepared = _supervisor(args, mission, overrides)
    except NoSupervisor as verdict:
        _print_no_supervisor(args, mission, verdict)
        not_written([("--bdi-log", args.bdi_log)], "nothing ran")
        return ExitCode.NEGATIVE
    try:
        check_audit(prepared.audit, args.from_dir)
    except Refused as refused:
        not_written([("--bdi-log", args.bdi_log)], "nothing ran")
        if args.json:
            print(json.dumps({"mission": mission.name, "audit": prepared.audit,
                              "counts": prepared.counts, "audit_warnings": prepared.warnings,
                              "audit_findings": [f.to_dict() for f in prepared.findings],
                              "result": None}, indent=1))
        else:
            print(printable(refused), file=sys.stderr)
            _print_failure(args, prepared)
        return ExitCode.NEGATIVE
    if not args.json:  # before the run: an operator reads it before the first question
        _print_header(args, mission, prepared)
    result, monitor, asked = _execute(args, mission, prepared)
    _print_run(args, mission, prepared, result, monitor, asked)
    if monitor is not None:
        monitor.close()
    return ExitCode.OK if result.goal_reached else ExitCode.NEGATIVE


def _print_failure(args: argparse.Namespace, prepared) -> None:
    """Why the supervisor was refused: the audit's findings, where they are listed, and the
    command that writes and pictures them."""
    from bdi_supervisor.cli.arguments import command_line
    from bdi_supervisor.cli.synthesis_view import print_audit_failure
    from bdi_supervisor.display import output_console

    if args.from_dir:
        where = f"{Path(args.from_dir) / 'audit.json'}, key 'defects'"
        closer = None
    else:
        where = (f"audit.json, key 'defects', in the folder that "
                 f"'{command_line('synthesize', args)}' writes")
        closer = (command_line("synthesize", args, "--draw") + "  (pictures with the defects' "
                  "states filled and the way there in bold red)")
    print_audit_failure(prepared.findings, where, closer, output_console(stderr=True))


def _checked_arguments(args: argparse.Namespace, mission) -> dict:
    """What can be refused before synthesis (the step limit, the BDI log's path, the simulator
    and its extra, the runner and adapter sections, overrides with ``--from``); the overrides."""
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.outpaths import check_output_file
    from bdi_supervisor.runtime.extras import require_simulator
    from bdi_supervisor.runtime.session import runner_config

    if args.max_steps is not None and args.max_steps < 1:
        raise InputError("must be at least 1", key="--max-steps", found=str(args.max_steps),
                         expected="a positive number of activations")
    if args.force:  # read now: a bad script is refused before synthesis
        from bdi_supervisor.runtime.forced import load_script

        load_script(args.force, mission.catalog)
    if args.bdi_log:
        check_output_file(args.bdi_log, "--bdi-log file")
    runner = mission.section("runner") or {}
    require_simulator(args.sim or runner.get("sim") or "forced", runner, mission.file)
    runner_config(mission)
    overrides = overrides_from_args(args)
    if args.from_dir and overrides:
        raise InputError("a saved run folder is already synthesized", key="--from",
                         found=", ".join(f"--{k}" for k in OVERRIDES if k in overrides),
                         expected="--from DIR or synthesis overrides, not both")
    return overrides


def _supervisor(args: argparse.Namespace, mission, overrides: dict):
    """The supervisor to run: a saved counter-run or run folder (``--from``), or the pipeline's
    (raises :class:`~bdi_supervisor.pipeline.NoSupervisor` on a negative verdict)."""
    from bdi_supervisor.cli.synthesis_view import solving_status
    from bdi_supervisor.pipeline import load_counter_run, load_folder, prepare

    if args.from_dir:
        source = Path(args.from_dir)
        prepared = (load_counter_run(source, mission) if source.is_file() else
                    load_folder(source, mission))
        if args.bdi_log:  # nor over a file of the saved run
            from bdi_supervisor.outpaths import check_output_file

            check_output_file(args.bdi_log, "--bdi-log file")
        return prepared
    with solving_status(mission.name, quiet=args.json or args.quiet) as progress:
        return prepare(mission, overrides, progress=progress)


def _print_no_supervisor(args: argparse.Namespace, mission, verdict) -> None:
    """Why there is nothing to run, with the explanation of an unrealizable mission."""
    explained = verdict.explanation
    if args.json:
        print(json.dumps({"mission": mission.name, "synthesis": verdict.status,
                          "message": verdict.message, "result": None,
                          **({"explanation": explained.to_dict()} if explained else {})},
                         indent=1))
        return
    print(printable(f"mission {mission.name}: {verdict.message}"), file=sys.stderr)
    if explained is not None:
        from bdi_supervisor.cli.explanation_view import print_explanation
        from bdi_supervisor.display import output_console

        print_explanation(explained.to_dict(), output_console(), source=args.mission,
                          timeline=explained.timeline)


def _execute(args: argparse.Namespace, mission, prepared):
    """Run the supervisor in the embedded executor (with the live view on a terminal and the
    monitor when the mission has properties): ``(result, monitor or None, operator asked)``.

    An operator session (``--operator`` on a terminal) prints each step as it ends, and its
    operator's answers are theirs: the mission's seeded random failures apply only with
    ``--seed`` and never to the decisions the operator makes."""
    from bdi_supervisor.display import output_console
    from bdi_supervisor.runtime.progress import ProgressView, StepLines
    from bdi_supervisor.runtime.session import RunOptions, run_supervisor

    interactive = not args.json and not args.quiet and sys.stderr.isatty()
    ask = ask_operator if args.operator and sys.stdin.isatty() else None
    if args.operator and ask is None:
        print("--operator: standard input is not a terminal, so operator decisions take their "
              "suggestion", file=sys.stderr)
    options = RunOptions(sim=args.sim, seed=args.seed, force=args.force,
                         bdi_log=Path(args.bdi_log) if args.bdi_log else None,
                         max_steps=args.max_steps, endings=prepared.endings,
                         random=ask is None or args.seed is not None)
    view = ProgressView() if interactive and ask is None else None
    monitor = _monitor(args, mission, prepared, view)
    lines = StepLines(output_console()) if ask is not None and not args.json else None
    callbacks = [c for c in (monitor, view, lines) if c is not None]
    with view if view is not None else contextlib.nullcontext():
        result = run_supervisor(mission, prepared.machine, prepared.reduced, options=options,
                                callbacks=callbacks, ask=ask)
    return result, monitor, lines is not None


def _print_header(args: argparse.Namespace, mission, prepared) -> None:
    """The supervisor's size at each stage and its audit warnings."""
    from bdi_supervisor.cli.synthesis_view import print_audit_warnings
    from bdi_supervisor.display import output_console, plain

    counts = prepared.counts
    console = output_console()
    console.print(f"mission {mission.name}: supervisor raw {plain(counts.get('raw'))} → "
                  f"reduced {plain(counts.get('reduced'))} → realized "
                  f"{plain(counts.get('realized'))} states")
    where = (f"{Path(args.from_dir) / 'audit.json'}, key 'warnings'" if args.from_dir else
             f"'bdi-supervisor synthesize {args.mission}' writes them to audit.json "
             "(key 'warnings'); 'run --json' prints them")
    print_audit_warnings(prepared.warnings, where, console)


def _print_run(args: argparse.Namespace, mission, prepared, result, monitor,
               asked: bool) -> None:
    """The run's record (``--json``) or its timeline (its status line alone when each step was
    printed as it ended) and verdicts."""
    from bdi_supervisor.display import output_console
    from bdi_supervisor.runtime.progress import print_result

    if args.json:
        print(json.dumps({"mission": mission.name, "audit": prepared.audit,
                          "counts": prepared.counts, "audit_warnings": prepared.warnings,
                          "result": result.to_dict(),
                          **({"monitor": monitor.to_json()} if monitor else {})},
                         indent=1, default=str))
        return
    console = output_console()
    print_result(result, console, title=f"{mission.name} run {result.run_id}",
                 timeline=not asked)
    if monitor is not None:
        monitor.print_summary(console)
