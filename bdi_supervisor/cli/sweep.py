"""``bdi-supervisor sweep SWEEP.yaml [--scheduler ADDRESS] [--workers N] [--out DIR] [--report]``.

Runs the sweep's missing trials (results appended to ``DIR/results.jsonl``; rerunning after an
interruption runs only the trials without a row) and, with ``--report``, writes
``DIR/<name>.csv`` / ``.md`` / ``.png`` (and ``.parquet`` with pyarrow). ``--report-only``
writes the reports from the results already there. Exit 0 when every trial ran without error,
1 when some trial errored, 2 on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bdi_supervisor.common import ExitCode
from bdi_supervisor.helptext import examples


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sweep", help="run a grid of synthesis trials and report them",
        description="Run a sweep (missions × encoding × liveness × pending × seeds × reordering × "
                    "repeats), resuming where an earlier run stopped, on a local process pool or "
                    "a Dask cluster; optionally write CSV/Markdown/PNG reports.")
    parser.epilog = examples(
        'bdi-supervisor sweep ci_small --report        # -> out/sweeps/ci_small/',
        'bdi-supervisor sweep ci_small --report-only',
        'bdi-supervisor sweep my_sweep.yaml --scheduler tcp://127.0.0.1:8786')
    parser.add_argument("sweep", metavar="SWEEP.yaml",
                        help="sweep file, or the name of a shipped sweep (ci_small, …)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask distributed scheduler (tcp://host:8786); default: local pool")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local processes (default: CPUs - 1)")
    parser.add_argument("--out", metavar="DIR",
                        help="results folder (default: out/sweeps/<sweep name>)")
    parser.add_argument("--report", action="store_true", help="write reports after the run")
    parser.add_argument("--report-only", action="store_true",
                        help="write reports from existing results, run nothing")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _say_what_reports_need(console) -> None:
    """Name the extra to install when the PNG plot was not written (the Parquet copy of the CSV
    table is written where pyarrow happens to be installed, and never missed)."""
    import importlib.util

    from bdi_supervisor.runtime.extras import Extra

    if importlib.util.find_spec("matplotlib") is None:
        extra = Extra("reports", ("matplotlib", "pyarrow"), "sweep plots and Parquet tables")
        console.print(f"the .png plot not written: matplotlib not installed; {extra.install}",
                      style="yellow", markup=False)


def _rows(results: Path, sweep, console) -> list[dict]:
    """The rows of this sweep's trials in ``results``; lines that are no trial row are counted
    on the console, and a file without a row of this sweep is bad input (nothing to report)."""
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.sweep.store import read_results, unique_rows

    found = read_results(results)
    if found.skipped:
        console.print(f"{results}: {found.skipped} lines are no trial row (torn, not JSON or "
                      "without a text key); skipped", style="yellow", markup=False)
    rows = unique_rows(found.rows, {t.key for t in sweep.trials})
    if not rows:
        raise InputError(f"no results of sweep {sweep.name!r} to report"
                         + ("" if results.exists() else " (no results file)"),
                         file=str(results), expected="to run the sweep first (without "
                                                     "--report-only), or its --out folder")
    return rows


def run(args: argparse.Namespace) -> int:
    from bdi_supervisor.display import output_console
    from bdi_supervisor.errors import InputError
    from bdi_supervisor.outpaths import check_output_dir
    from bdi_supervisor.shipped import resolve
    from bdi_supervisor.sweep.backends import make_backend
    from bdi_supervisor.sweep.grid import load_sweep
    from bdi_supervisor.sweep.report import write_reports
    from bdi_supervisor.sweep.runner import RESULTS_FILE, run_sweep

    sweep = load_sweep(resolve("sweeps", args.sweep))
    if args.workers is not None and args.workers < 1:
        raise InputError("must be at least 1", key="--workers", found=str(args.workers),
                         expected="a positive number of workers")
    out = Path(args.out) if args.out else Path("out") / "sweeps" / sweep.name
    reports = [f"{sweep.name}.{ext}" for ext in ("csv", "md", "png", "parquet")]
    check_output_dir(out, "results folder",
                     files=(RESULTS_FILE, *reports, f"{sweep.name}_verdicts.md"))
    console = output_console(stderr=True)
    errors = 0
    if not args.report_only:
        backend = make_backend(args.scheduler, args.workers)
        try:
            outcome = run_sweep(sweep, out, backend,
                                show_progress=not args.quiet and console.is_terminal,
                                console=console)
        finally:
            backend.close()
        errors = outcome.errors
        console.print(f"{outcome.ran} trials run, {outcome.skipped} already done, "
                      f"{outcome.errors} errors → {outcome.results}")
    if args.report or args.report_only:
        rows = _rows(out / RESULTS_FILE, sweep, console)
        for path in write_reports(rows, out, sweep.name, sweep.compare, sweep.trials):
            console.print(f"wrote {path}")
        _say_what_reports_need(console)
    return ExitCode.NEGATIVE if errors else ExitCode.OK
