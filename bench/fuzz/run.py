"""Long fuzz run: random mutations of every input class through the CLIs, and valid commands in
broken environments, outcomes by class.

    python bench/fuzz/run.py [--cases 2000] [--seed 1] [--classes catalog mission ...]
                             [--hang-seconds 60] [--keep DIR] [--json FILE]

The cases are those of the CI fuzz suite, drawn at random: mutated catalogs, missions,
structuredslugs and slugsin specs, CTL-BDI properties and models, BDI-state lines, each run by its
commands in this process (test/support/fuzz_cases.py); and every command of both tools as a process
of its own with closed standard streams, stdout on /dev/full, a full disk (the file size limit at a
random byte), a pipe its reader closes at a random byte, an ASCII encoding, or SIGTERM at a random
moment (test/support/fuzz_streams.py). Prints one row per class: cases tried, exit outcomes (ok,
negative verdict, bad input, incomplete, cut by the pipe, terminated) and the problems the issue
forbids: tracebacks, hangs (no end within --hang-seconds), escapes (a file written or changed
outside the output folder), half-written outputs, bad-input errors that name no file. Exit 1 if any
problem was seen; the failing cases are listed so each can be replayed with fuzz_cases.run_case or
fuzz_streams.run_stream_case.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "test"))

from support import fuzz_cases, fuzz_streams  # noqa: E402

OUTCOMES = ("ok", "negative", "bad_input", "incomplete", "cut", "terminated")
PROBLEMS = ("traceback", "hang", "escape", "half_written", "unnamed", "other")


def problem_kind(problem: str) -> str:
    for prefix, kind in (("traceback", "traceback"), ("no end within", "hang"),
                         ("written outside", "escape"), ("half-written", "half_written"),
                         ("error names no file", "unnamed")):
        if problem.startswith(prefix):
            return kind
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000, help="cases in all (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--classes", nargs="+", help="input classes (default: all)")
    parser.add_argument("--hang-seconds", type=int, default=fuzz_cases.HANG_SECONDS)
    parser.add_argument("--keep", metavar="DIR", help="keep the case folders here")
    parser.add_argument("--json", metavar="FILE", help="also write the counts and failures")
    args = parser.parse_args(argv)
    kinds = args.classes or [*fuzz_cases.classes(), *fuzz_streams.STREAM_CLASSES]
    rng = random.Random(args.seed)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bdi-fuzz-"))
    root.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Counter] = defaultdict(Counter)
    seconds: dict[str, list[float]] = defaultdict(list)
    failures = []
    console = Console(stderr=True)
    started = time.perf_counter()
    progress = Progress(TextColumn("[bold]fuzz"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[last]}"), TimeElapsedColumn(), console=console)
    try:
        with progress:
            task = progress.add_task("fuzz", total=args.cases, last="")
            for number in range(args.cases):
                kind = kinds[number % len(kinds)]
                seed, command = rng.randrange(16), rng.randrange(16)
                ops = fuzz_cases.random_operations(rng)
                folder = root / f"{number:06d}"
                if kind in fuzz_streams.STREAM_CLASSES:
                    ops = rng.random()  # where the fault falls
                    result = fuzz_streams.run_stream_case(kind, command, ops, folder,
                                                          hang_seconds=args.hang_seconds)
                else:
                    result = fuzz_cases.run_case(kind, seed, ops, command, folder,
                                                 hang_seconds=args.hang_seconds)
                counts[kind][result.outcome] += 1
                seconds[kind].append(result.seconds)
                for problem in {problem_kind(p) for p in result.problems} - {result.outcome}:
                    counts[kind][problem] += 1  # a traceback or hang is already the outcome
                if result.problems:
                    failures.append({"class": kind, "seed": seed, "command": result.command,
                                     "ops": ops, "problems": result.problems})
                elif not args.keep:
                    shutil.rmtree(folder, ignore_errors=True)
                progress.update(task, advance=1, last=f"{kind} {result.command} "
                                                      f"{result.outcome}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    elapsed = time.perf_counter() - started
    table = Table(title=f"fuzz: {args.cases} cases, seed {args.seed}, {elapsed:.0f} s")
    for column in ("class", "cases", *OUTCOMES, *PROBLEMS, "median s", "max s"):
        table.add_column(column, justify="left" if column == "class" else "right")
    total = Counter()
    for kind in kinds:
        row = counts[kind]
        cases = len(seconds[kind])
        total.update(row)
        total["cases"] += cases
        table.add_row(kind, str(cases), *(str(row[o]) for o in OUTCOMES),
                      *(f"[red]{row[p]}[/]" if row[p] else "0" for p in PROBLEMS),
                      f"{statistics.median(seconds[kind]):.2f}" if cases else "-",
                      f"{max(seconds[kind]):.2f}" if cases else "-")
    table.add_row("all", str(total["cases"]), *(str(total[o]) for o in OUTCOMES),
                  *(str(total[p]) for p in PROBLEMS), "", "", style="bold")
    Console(width=180).print(table)
    for failure in failures[:20]:
        Console().print(failure)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "cases": args.cases, "seed": args.seed, "seconds": round(elapsed, 1),
            "by_class": {k: dict(v) for k, v in counts.items()}, "failures": failures},
            indent=1, default=str))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
