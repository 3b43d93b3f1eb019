"""Cost of explaining an unrealizable spec against synthesizing it.

Run from the repository root::

    python bench/explain/bench_explain.py         # shipped and reference unrealizable specs
    python bench/explain/bench_explain.py --repeat 7 --no-assumptions

For every shipped unrealizable mission (a mission whose default configuration is unrealizable)
and every unrealizable reference spec (``../shared/reference`` or ``$BDI_REFERENCE_DIR``; the
ones slugs' examples name so), it times, in the same run and on the same spec, ``synthesize``
(encoding, realizability, diagnosis: the verdict a designer gets today) and ``explain`` (the
same solve, the core, the needed assumptions, the counter-strategy up to its default state
bound and the counter-run; for a mission without the executor's replay), each the median of
``--repeat`` runs, and prints the ratio explain / synthesize. It also times the two commands a
designer runs, as processes (start-up included): ``bdi-supervisor solve SPEC --no-strategy``
on the spec (for a mission, the spec ``bdi-supervisor spec`` writes) against ``bdi-supervisor
explain`` on the same spec or mission. The target is at most 10x. On specs that solve in a
millisecond the in-process ratio is set by the fixed cost of each realizability question
(building a game variant, a few hundred microseconds) rather than by the fixpoints. The
budgets are checked as in synthesis (``--time-budget`` gives an INCOMPLETE explanation).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "test"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bdi_supervisor.explain.explanation import ExplainOptions, explain  # noqa: E402
from bdi_supervisor.mission import load_mission  # noqa: E402
from bdi_supervisor.pipeline import mission_namer  # noqa: E402
from bdi_supervisor.shipped import names  # noqa: E402
from bdi_supervisor.spec.io import load_spec  # noqa: E402
from bdi_supervisor.specgen.generate import generate_spec  # noqa: E402
from bdi_supervisor.synthesis.synthesize import synthesize  # noqa: E402

REFERENCE = ("slugs_examples/unrealizable1.slugsin",
             "slugs_examples/specification_debugging_examples/"
             "abstract_counterstrategy_example.structuredslugs",
             "slugs_examples/specification_debugging_examples/"
             "section_3_2_errorneous_spec.structuredslugs")


def command_seconds(argv: list[str], repeat: int) -> float:
    """Median wall time of ``bdi-supervisor ARGV`` as a process."""
    command = [sys.executable, "-m", "bdi_supervisor", *argv]
    return median_seconds(lambda: subprocess.run(command, capture_output=True, check=False,
                                                 cwd=ROOT), repeat)


def cases(missions: list[str] | None) -> list[tuple[str, object, object, object]]:
    """(label, spec, solver options, namer) of every unrealizable case."""
    found = []
    for name in missions or names("missions"):
        mission = load_mission(name)
        spec = generate_spec(mission)
        # the generated spec is already in the mission's declaration order
        solver = dataclasses.replace(mission.synthesis, order="as-written")
        if synthesize(spec, _quick(solver)).realizable is False:
            found.append((name, spec, solver, mission_namer(mission), name))
    if missions is None:
        from support.reference_data import PRESENT
        from support.reference_data import REFERENCE as FOLDER

        for relative in REFERENCE if PRESENT else ():
            spec = load_spec(FOLDER / relative)
            found.append((Path(relative).name, spec, None, None, str(FOLDER / relative)))
    return found


def _quick(solver):
    from dataclasses import replace

    from bdi_supervisor.options import SynthesisOptions

    return replace(solver or SynthesisOptions(), extract=False)


def median_seconds(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--missions", nargs="*", help="only these missions (no reference specs)")
    parser.add_argument("--no-assumptions", action="store_true",
                        help="explain without the needed-assumption analysis")
    parser.add_argument("--time-budget", type=float, default=None)
    args = parser.parse_args(argv)
    table = Table("spec", "guarantees", "core", "checks", "synthesize s", "explain s", "ratio",
                  "solve cmd s", "explain cmd s", "cmd ratio", "status",
                  title="explain / synthesize (medians)")
    ratios, command_ratios = [], []
    scratch = Path(tempfile.mkdtemp(prefix="bench_explain_"))
    for label, spec, solver, namer, target in cases(args.missions):
        solver = dataclasses.replace(_quick(solver), time_budget=args.time_budget)
        options = ExplainOptions(solver=solver, assumptions=not args.no_assumptions)
        base = median_seconds(lambda s=spec, o=solver: synthesize(s, o), args.repeat)
        record = explain(spec, options, namer)
        cost = median_seconds(lambda s=spec, o=options, n=namer: explain(s, o, n), args.repeat)
        counts = spec.counts()
        guarantees = counts["sys_init"] + counts["sys_safety"] + counts["sys_liveness"]
        ratio = cost / base
        ratios.append(ratio)
        spec_file = target
        if namer is not None:  # a mission: solve the spec it generates
            spec_file = str(scratch / f"{label}.structuredslugs")
            subprocess.run([sys.executable, "-m", "bdi_supervisor", "spec", target, "-o",
                            spec_file], check=True, capture_output=True, cwd=ROOT)
        solve_cmd = command_seconds(["solve", spec_file, "--no-strategy", "--json"], args.repeat)
        explain_cmd = command_seconds(["explain", target, "--json"], args.repeat)
        command_ratios.append(explain_cmd / solve_cmd)
        table.add_row(label, str(guarantees), str(len(record.core)), str(record.checks),
                      f"{base:.4f}", f"{cost:.4f}", f"{ratio:.1f}x", f"{solve_cmd:.2f}",
                      f"{explain_cmd:.2f}", f"{explain_cmd / solve_cmd:.1f}x",
                      str(record.status))
        del record  # its BDDs go before their manager
    Console(soft_wrap=True, width=200).print(table)
    for name, values in (("in-process", ratios), ("commands", command_ratios)):
        if values:
            mean = math.exp(sum(math.log(r) for r in values) / len(values))
            print(f"{name}: geometric mean {mean:.1f}x, worst {max(values):.1f}x "
                  "(target: at most 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
