"""Cost of the well-separation analysis against synthesis on the same specs.

Run from the repository root::

    python bench/separation/bench_separation.py              # shipped missions, all configs
    python bench/separation/bench_separation.py --repeat 5 --missions coffee_extended

For each mission × encoding × configuration (S, SP, F, FP) it times, in the same run and on the
same generated spec, (a) ``well_separation`` without core, (b) with the 1-minimal core, and (c)
``synthesize`` (realizability and strategy extraction), each the median of ``--repeat`` runs,
and prints the ratios (a)/(c) and (b)/(c). Creating a CUDD manager costs about 40 ms here and
both sides pay it once (the core reuses the analysis' manager), so on these small specs the
totals are close; the "fixpoints" columns compare the solving alone: well-separation's
reachability + safety game + justice game against synthesis' realizability fixpoint. The last
lines are geometric means.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rich.console import Console
from rich.table import Table

from bdi_supervisor.mission import load_mission
from bdi_supervisor.separation import SeparationOptions, well_separation
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.synthesize import synthesize

MISSIONS = ("coffee", "coffee_extended", "vending", "vending_extended")
CONFIGS = {"S": ("system-goal", False), "SP": ("system-goal", True),
           "F": ("fair-outcome", False), "FP": ("fair-outcome", True)}
ROOT = Path(__file__).resolve().parents[2]
VERDICT = {"WELL_SEPARATED": "WS", "NON_WELL_SEPARATED": "non-WS",
           "ANALYSIS_INCOMPLETE": "incomplete"}


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missions", nargs="+", default=list(MISSIONS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    table = Table(title="well-separation vs synthesis (median seconds)")
    for column in ("mission", "enc", "cfg", "verdict", "ws", "ws+core", "synthesis",
                   "ws/synth", "ws+core/synth", "ws fixpoints", "synth fixpoint", "fix ratio"):
        table.add_column(column, justify="left" if column in ("mission", "enc", "cfg", "verdict")
                         else "right")
    ratios, fix_ratios = [], []
    for name in args.missions:
        mission = load_mission(ROOT / "config" / "missions" / f"{name}.yaml")
        for encoding in ("one-hot", "enumerated"):
            for label, (liveness, pending) in CONFIGS.items():
                spec = generate_spec(mission, encoding=encoding, liveness=liveness, pending=pending)
                ws, record = median_time(lambda spec=spec: well_separation(spec), args.repeat)
                core, _ = median_time(
                    lambda spec=spec: well_separation(spec, SeparationOptions(core=True)),
                    args.repeat)
                synth, result = median_time(lambda spec=spec: synthesize(spec), args.repeat)
                ratios.append(ws / synth)
                fix = sum(record.timing[k] for k in ("reachability", "safety_winning",
                                                     "liveness_winning"))
                solve = result.metrics.realizability_seconds
                fix_ratios.append(fix / solve)
                table.add_row(name, encoding, label, VERDICT[record.status],
                              f"{ws:.4f}", f"{core:.4f}", f"{synth:.4f}", f"{ws / synth:.2f}",
                              f"{core / synth:.2f}", f"{fix:.5f}", f"{solve:.5f}",
                              f"{fix / solve:.2f}")
    console = Console(width=150)
    console.print(table)
    for what, values in (("total", ratios), ("fixpoints", fix_ratios)):
        mean = math.exp(sum(math.log(r) for r in values) / len(values))
        console.print(f"well-separation / synthesis ({what}), geometric mean over "
                      f"{len(values)} specs: {mean:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
