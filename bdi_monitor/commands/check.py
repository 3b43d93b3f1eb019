"""``bdi-monitor check MODEL 'PROPERTY' ... [--json] [--witness]``.

MODEL is a structure file (YAML, or JSON for large ones) or a model reference such as
``grid:n=512,worlds=8`` (:mod:`bdi_monitor.models.reference`), which builds the model from the
generator's rules without a file. Checks every property at the actual world's root. Exit 0 when
all hold, 1 when some fails (each failure comes with a counterexample DAG), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import BudgetExceeded, InputError
from bdi_supervisor.helptext import examples
from bdi_supervisor.limits import positive_finite, printable

if TYPE_CHECKING:
    from bdi_monitor.checker import Checker
    from bdi_monitor.structure import Structure

# the checker, the models and rich are imported by :func:`run` (``--help`` needs none of them)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check", help="model-check CTL-BDI properties on a structure",
        description="Model-check CTL-BDI properties at the actual world of a structure (a YAML "
                    "or JSON file, or a model reference such as grid:n=512,worlds=8). "
                    "Prints YES, or NO with a counterexample DAG. Exit 0 if all properties "
                    "hold, 1 if some is false, 2 on bad input, 3 when --time-budget ran out.")
    parser.epilog = examples(
        "bdi-monitor check beer:actual=w1 'AG(bel br -> EF bb)' 'AG(bel br -> AF bb)'  # exit 1",
        "bdi-monitor check grid:n=64,worlds=8 'AG(bel br -> EF bb)' --time-budget 30",
        "bdi-monitor check beer:actual=w3 'bel EF bb' --witness --json")
    parser.add_argument("model", help="structure file (YAML or .json, see "
                        "bdi_monitor.structure) or model reference NAME:KEY=VALUE,... "
                        "(grid:n=N,worlds=M,obstacles=wall|none|random:SEED,actual=K; "
                        "beer:actual=wK)")
    parser.add_argument("properties", nargs="+", metavar="PROPERTY",
                        help="CTL-BDI formula, e.g. 'AG(bel br -> EF bb)'")
    parser.add_argument("--json", action="store_true", help="print one JSON record")
    parser.add_argument("--actual", metavar="WORLD",
                        help="check at this world instead of the file's actual_world")
    parser.add_argument("--witness", action="store_true",
                        help="also give a witness for properties that hold")
    parser.add_argument("--time-budget", type=float, metavar="SECONDS",
                        help="give up (INCOMPLETE, exit 3) after SECONDS: checked during "
                             "reachability, every fixpoint and every counterexample")
    parser.set_defaults(func=run)


def _deadline(seconds: float | None, started: float) -> Callable[[], None] | None:
    """The check that stops the work once ``seconds`` have passed since ``started``."""
    if seconds is None:
        return None
    if not positive_finite(seconds):
        raise InputError("must be a positive number of seconds", key="--time-budget",
                         found=str(seconds))

    def check() -> None:
        if time.perf_counter() - started > seconds:
            raise BudgetExceeded("time", seconds)
    return check


def _incomplete(args: argparse.Namespace, stop: BudgetExceeded, doing: str) -> int:
    """What a run stopped by its budget before reachability ended prints; exit 3."""
    from bdi_supervisor.display import output_console

    message = f"{stop} while {doing}"
    if args.json:
        json.dump({"model": str(args.model), "status": "INCOMPLETE", "message": message},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        output_console().print(f"[bold yellow]INCOMPLETE[/] {message}", soft_wrap=True)
    return ExitCode.INCOMPLETE


def run(args: argparse.Namespace) -> int:
    from bdi_monitor.checker import Checker
    from bdi_monitor.counterexample import explain
    from bdi_monitor.logic import parse
    from bdi_monitor.models.reference import load_model

    started = time.perf_counter()
    deadline = _deadline(args.time_budget, started)
    structure = load_model(args.model)
    if args.actual is not None:
        names = [w.name for w in structure.worlds]
        if args.actual not in names:
            raise InputError("unknown world", key="--actual", found=repr(args.actual),
                             expected="one of " + ", ".join(names))
        structure.actual = names.index(args.actual)
    formulas = [parse(text, structure.propositions, key=f"properties[{i}]")
                for i, text in enumerate(args.properties)]
    loaded = time.perf_counter()
    try:
        checker = Checker(structure, check=deadline)
    except BudgetExceeded as stop:
        return _incomplete(args, stop, "computing the reachable product nodes")
    built = time.perf_counter()
    results = []
    stopped = None
    for text, formula in zip(args.properties, formulas):
        t0 = time.perf_counter()
        try:
            holds = checker.holds(formula)
            seconds = time.perf_counter() - t0
            certificate = explain(checker, formula) if (not holds or args.witness) else None
        except BudgetExceeded as stop:
            stopped = f"{stop} while checking {text}"
            break
        results.append((text, formula, holds, seconds, certificate))
    record = {
        "model": str(args.model),
        "structure": structure.name,
        "actual_world": structure.worlds[structure.actual].name,
        "worlds": len(structure.worlds),
        "directions": structure.k,
        "reachable_nodes": checker.count(),
        "bdd_variables": checker.model.var_count,
        "peak_bdd_nodes": checker.model.peak_nodes(),
        "seconds": {"load": round(loaded - started, 4),
                    "encode_and_reach": round(built - loaded, 4),
                    "total": round(time.perf_counter() - started, 4)},
        "properties": [
            {"property": text, "formula": str(formula), "holds": holds,
             "satisfying_nodes": checker.count(formula), "seconds": round(seconds, 4),
             **({("witness" if holds else "counterexample"): cert.to_json(checker)}
                if cert else {})}
            for text, formula, holds, seconds, cert in results],
        **({"status": "INCOMPLETE", "message": stopped} if stopped else {}),
    }
    all_hold = all(r[2] for r in results)
    code = (ExitCode.INCOMPLETE if stopped else ExitCode.OK if all_hold
            else ExitCode.NEGATIVE)
    if args.json:
        json.dump(record, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _show(record, structure, checker, results, stopped, len(formulas))
    return code


def _show(record: dict, structure: Structure, checker: Checker, results: list,
          stopped: str | None, properties: int) -> None:
    """The terminal output of :func:`run`: the model, a table of verdicts, the certificates."""
    from rich.table import Table

    from bdi_supervisor.display import output_console, print_table

    console = output_console()
    console.print(f"[bold]{structure.name}[/]: {len(structure.worlds)} worlds, "
                  f"{structure.k} directions, actual world "
                  f"{structure.worlds[structure.actual].name}; {record['reachable_nodes']} "
                  f"reachable product nodes, {record['bdd_variables']} BDD variables, peak "
                  f"{record['peak_bdd_nodes']} BDD nodes", soft_wrap=True)
    table = Table("property", "verdict", "nodes satisfying", "seconds")
    for entry in record["properties"]:
        table.add_row(entry["property"], "[green]YES[/]" if entry["holds"] else "[red]NO[/]",
                      f"{entry['satisfying_nodes']} / {record['reachable_nodes']}",
                      f"{entry['seconds']:.4f}")
    print_table(table, console)
    for text, _, holds, _, cert in results:
        if cert is None:
            continue
        title = "witness" if holds else "counterexample"
        console.print(f"\n[bold]{title}[/] for {text}:", soft_wrap=True)
        print(printable(cert.render(checker)), flush=True)
    if stopped:
        console.print(f"[bold yellow]INCOMPLETE[/] {stopped}; "
                      f"{len(results)} of {properties} properties checked", soft_wrap=True)
