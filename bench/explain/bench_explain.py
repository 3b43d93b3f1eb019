"""Cost of explaining an unrealizable spec against synthesizing it, on every shipped unrealizable
mission configuration and every unrealizable reference spec.

Run from the repository root::

    python bench/explain/bench_explain.py                 # every case, as processes too
    python bench/explain/bench_explain.py --clock cpu     # CPU seconds (for a loaded machine)
    python bench/explain/bench_explain.py --missions two_rivers --no-commands

The cases: every cell of the pinned verdict table (``test/support/expected_verdicts.py``: shipped
mission × encoding × S/SP/F/FP) whose spec is unrealizable, and the unrealizable slugs examples
of the reference inputs (``../shared/reference`` or ``$BDI_REFERENCE_DIR``). For each, in the same
run and on the same spec, it times ``synthesize`` (encoding, realizability, diagnosis: the
verdict a designer gets without the explanation) and ``explain`` (the same solve, the core, the
needed assumptions within their default number of checks, the counter-strategy up to its
default state bound and the counter-run; without the executor's replay), each the median of
``--repeat`` runs, and prints the ratio explain / synthesize. It also times the two commands a
designer runs, as processes (start-up included): ``bdi-supervisor solve SPEC --no-strategy`` on
the spec (for a mission, the spec ``bdi-supervisor spec`` writes) against ``bdi-supervisor
explain`` on the same mission configuration or spec. A ratio over 10x is flagged with "!".
``--clock cpu`` times CPU seconds (the process's own, or its children's for the commands)
instead of wall time, which a machine shared with other work inflates unevenly.
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "test"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bdi_supervisor.common import Realizability  # noqa: E402
from bdi_supervisor.explain.explanation import ExplainOptions, explain  # noqa: E402
from bdi_supervisor.mission import load_mission  # noqa: E402
from bdi_supervisor.options import SynthesisOptions  # noqa: E402
from bdi_supervisor.pipeline import mission_namer  # noqa: E402
from bdi_supervisor.spec.io import load_spec  # noqa: E402
from bdi_supervisor.specgen.generate import generate_spec  # noqa: E402
from bdi_supervisor.synthesis.synthesize import synthesize  # noqa: E402

FLAGGED = 10.0  # ratios above this are marked "!"
REFERENCE = ("slugs_examples/unrealizable1.slugsin",
             "slugs_examples/specification_debugging_examples/"
             "abstract_counterstrategy_example.structuredslugs",
             "slugs_examples/specification_debugging_examples/"
             "section_3_2_errorneous_spec.structuredslugs")


@dataclass
class Case:
    """One unrealizable spec: its label, configuration, spec, solver options and namer, and the
    arguments that explain it on the command line."""

    label: str
    config: str
    spec: object
    solver: SynthesisOptions
    namer: object = None
    explain_args: tuple[str, ...] = ()
    spec_args: tuple[str, ...] | None = None  # for a mission: how ``spec`` writes its file


def mission_cases(only: list[str] | None) -> list[Case]:
    """Every shipped mission configuration the verdict table pins as unrealizable."""
    from support.expected_verdicts import CONFIGS, ENCODINGS, EXPECTED, GROUPS, overrides

    found = []
    for group, cells in EXPECTED.items():
        name = GROUPS[group][0]
        if only is not None and name not in only:
            continue
        for encoding in ENCODINGS:
            for config, cell in zip(CONFIGS, cells[encoding]):
                if cell.synthesis != Realizability.UNREALIZABLE:
                    continue
                options = overrides(encoding, config)
                mission = load_mission(name)
                args = (name, "--encoding", encoding, "--liveness", options["liveness"],
                        "--pending" if options["pending"] else "--no-pending")
                # the generated spec is already in the mission's declaration order
                solver = replace(mission.synthesis, **options, order="as-written")
                found.append(Case(name, f"{encoding}-{config}",
                                  generate_spec(mission, **options), solver,
                                  mission_namer(mission), args, args))
    return found


def reference_cases() -> list[Case]:
    from support.reference_data import PRESENT
    from support.reference_data import REFERENCE as FOLDER

    return [Case(Path(relative).name, "", load_spec(FOLDER / relative), SynthesisOptions(),
                 explain_args=(str(FOLDER / relative),))
            for relative in (REFERENCE if PRESENT else ())]


def median_seconds(work: Callable[[], object], repeat: int, clock: str) -> float:
    """Median seconds of ``work()``: wall time, or this process's CPU time."""
    timer = time.process_time if clock == "cpu" else time.perf_counter
    times = []
    for _ in range(repeat):
        started = timer()
        work()
        times.append(timer() - started)
    return statistics.median(times)


def command_seconds(argv: list[str], repeat: int, clock: str) -> float:
    """Median seconds of ``bdi-supervisor ARGV`` as a process (wall, or its CPU time)."""
    command = [sys.executable, "-m", "bdi_supervisor", *argv]
    times = []
    for _ in range(repeat):
        before, started = _children_cpu(), time.perf_counter()
        subprocess.run(command, capture_output=True, check=False, cwd=ROOT)
        times.append(_children_cpu() - before if clock == "cpu"
                     else time.perf_counter() - started)
    return statistics.median(times)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(case: Case, args: argparse.Namespace, scratch: Path) -> dict:
    """The timings and ratios of one case."""
    solver = replace(case.solver, extract=False, time_budget=args.time_budget)
    options = ExplainOptions(solver, assumptions=not args.no_assumptions)
    base = median_seconds(lambda: synthesize(case.spec, solver), args.repeat, args.clock)
    record = explain(case.spec, options, case.namer)
    cost = median_seconds(lambda: explain(case.spec, options, case.namer), args.repeat,
                          args.clock)
    counts = case.spec.counts()
    row = {"guarantees": counts["sys_init"] + counts["sys_safety"] + counts["sys_liveness"],
           "core": len(record.core), "checks": record.checks, "status": str(record.status),
           "synthesize": base, "explain": cost, "ratio": cost / base}
    del record  # its BDDs go before their manager
    if not args.no_commands:
        spec_file = case.explain_args[0]
        if case.spec_args is not None:  # a mission: solve the spec it generates
            spec_file = str(scratch / f"{case.label}-{case.config}.structuredslugs")
            subprocess.run([sys.executable, "-m", "bdi_supervisor", "spec", *case.spec_args,
                            "-o", spec_file], check=True, capture_output=True, cwd=ROOT)
        extra = ["--no-assumptions"] if args.no_assumptions else []
        row["solve_cmd"] = command_seconds(["solve", spec_file, "--no-strategy", "--json"],
                                           args.repeat, args.clock)
        row["explain_cmd"] = command_seconds(["explain", *case.explain_args, "--json", *extra],
                                             args.repeat, args.clock)
        row["cmd_ratio"] = row["explain_cmd"] / row["solve_cmd"]
    return row


def _ratio(value: float) -> str:
    return f"{value:.1f}x" + (" !" if value > FLAGGED else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (median)")
    parser.add_argument("--missions", nargs="*", metavar="MISSION",
                        help="only these shipped missions (no reference specs)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time wall seconds (default) or CPU seconds")
    parser.add_argument("--no-commands", action="store_true",
                        help="skip the timing of the commands as processes")
    parser.add_argument("--no-assumptions", action="store_true",
                        help="explain without the needed-assumption analysis")
    parser.add_argument("--time-budget", type=float, default=None, metavar="SECONDS")
    args = parser.parse_args(argv)
    cases = mission_cases(args.missions)
    if args.missions is None:
        cases += reference_cases()
    columns = ["spec", "config", "guarantees", "core", "checks", "synthesize s", "explain s",
               "ratio"]
    if not args.no_commands:
        columns += ["solve cmd s", "explain cmd s", "cmd ratio"]
    table = Table(*columns, "status", title=f"explain / synthesize ({args.clock} seconds, "
                  f"medians of {args.repeat}; '!' over {FLAGGED:.0f}x)")
    rows = []
    scratch = Path(tempfile.mkdtemp(prefix="bench_explain_"))
    for case in cases:
        row = measure(case, args, scratch)
        rows.append((case, row))
        cells = [case.label, case.config, str(row["guarantees"]), str(row["core"]),
                 str(row["checks"]), f"{row['synthesize']:.3f}", f"{row['explain']:.3f}",
                 _ratio(row["ratio"])]
        if not args.no_commands:
            cells += [f"{row['solve_cmd']:.2f}", f"{row['explain_cmd']:.2f}",
                      _ratio(row["cmd_ratio"])]
        table.add_row(*cells, row["status"])
    Console(soft_wrap=True, width=200).print(table)
    for name, key in (("in-process", "ratio"), ("commands", "cmd_ratio")):
        values = [row[key] for _, row in rows if key in row]
        if not values:
            continue
        mean = math.exp(sum(math.log(v) for v in values) / len(values))
        over = [f"{case.label} {case.config}".strip() for case, row in rows
                if row.get(key, 0) > FLAGGED]
        print(f"{name}: geometric mean {mean:.1f}x, worst {max(values):.1f}x; over {FLAGGED:.0f}x: "
              + (", ".join(over) if over else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
