"""Synthesis benchmark: ours vs omega (and slugs when a ``slugs`` executable is on PATH).

    python bench/synthesis/run.py [--repeat N] [--quick] [--markdown]

Specs: every shipped mission in every configuration (encoding × liveness × pending) and the
reference slugs examples. Per spec the solvers run alternately ``--repeat`` times; the table
shows the median wall time of realizability (encoding + fixpoint, no explicit strategy) per
solver and the ratios ours/slugs and ours/omega. Verdicts must agree (a mismatch is printed).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "test"))  # reference_data: where the reference inputs are

from reference_data import PRESENT, reference_files  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bdi_supervisor.mission import load_mission  # noqa: E402
from bdi_supervisor.spec.generate import generate_spec  # noqa: E402
from bdi_supervisor.spec.io import format_spec, load_spec  # noqa: E402
from bdi_supervisor.synthesis.omega_bridge import omega_realizable  # noqa: E402
from bdi_supervisor.synthesis.result import SynthesisOptions  # noqa: E402
from bdi_supervisor.synthesis.synthesize import synthesize  # noqa: E402

CONFIGS = [(e, lv, p) for e in ("one-hot", "enumerated") for lv in ("system-goal", "fair-outcome")
           for p in (True, False)]


def specs(quick: bool):
    for path in sorted((ROOT / "config" / "missions").glob("*.yaml")):
        mission = load_mission(path)
        for encoding, liveness, pending in CONFIGS[:1] if quick else CONFIGS:
            spec = generate_spec(mission, encoding=encoding, liveness=liveness, pending=pending)
            label = f"{encoding[0]}{'S' if liveness == 'system-goal' else 'F'}{'P' if pending else ''}"
            yield f"{mission.name}/{label}", spec
    if PRESENT:
        for path in sorted(reference_files("**/*.structuredslugs") + reference_files("**/*.slugsin")):
            if "well_separation" not in path.parts:
                yield path.stem, load_spec(path)


def ours(spec) -> tuple[bool, float]:
    start = time.perf_counter()
    result = synthesize(spec, SynthesisOptions(extract=False, diagnose=False))
    return bool(result.realizable), time.perf_counter() - start


def omega(spec) -> tuple[bool, float]:
    start = time.perf_counter()
    verdict = omega_realizable(spec)
    return verdict, time.perf_counter() - start


def slugs_runner(executable: str):
    def run(spec) -> tuple[bool, float]:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "spec.slugsin"
            path.write_text(format_spec(spec, "slugsin"))
            start = time.perf_counter()
            done = subprocess.run([executable, str(path)], capture_output=True, text=True)
            elapsed = time.perf_counter() - start
        text = done.stdout + done.stderr
        return "unrealizable" not in text.lower() and "realizable" in text.lower(), elapsed
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one configuration per mission")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--exclude", action="append", default=[], metavar="TEXT",
                        help="skip specs whose name contains TEXT (repeatable)")
    args = parser.parse_args()
    solvers = {"ours": ours, "omega": omega}
    if shutil.which("slugs"):
        solvers["slugs"] = slugs_runner(shutil.which("slugs"))
    rows = []
    console = Console(stderr=True)
    for name, spec in specs(args.quick):
        if any(text in name for text in args.exclude):
            continue
        times = {s: [] for s in solvers}
        verdicts = {}
        for _ in range(args.repeat):
            for solver, fn in solvers.items():  # alternate solvers within each round
                verdict, seconds = fn(spec)
                verdicts[solver] = verdict
                times[solver].append(seconds)
        medians = {s: statistics.median(t) for s, t in times.items()}
        agree = len(set(verdicts.values())) == 1
        rows.append((name, verdicts["ours"], agree, medians))
        console.print(f"{name}: {medians}", highlight=False)
    columns = ["spec", "realizable", "ours s", "omega s"] + (["slugs s"] if "slugs" in solvers else [])
    columns += ["ours/omega"] + (["ours/slugs"] if "slugs" in solvers else [])

    def cells(row):
        name, verdict, agree, m = row
        out = [name, str(verdict) + ("" if agree else " (MISMATCH)"),
               f"{m['ours']:.4f}", f"{m['omega']:.4f}"]
        if "slugs" in m:
            out.append(f"{m['slugs']:.4f}")
        out.append(f"{m['ours'] / m['omega']:.2f}")
        if "slugs" in m:
            out.append(f"{m['ours'] / m['slugs']:.2f}")
        return out

    if args.markdown:
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for row in rows:
            print("| " + " | ".join(cells(row)) + " |")
    else:
        table = Table(*columns)
        for row in rows:
            table.add_row(*cells(row))
        Console().print(table)
    ratios = [r[3]["ours"] / r[3]["omega"] for r in rows]
    print(f"median ours/omega: {statistics.median(ratios):.3f}; "
          f"max: {max(ratios):.3f}; verdict mismatches: {sum(not r[2] for r in rows)}")
    if "slugs" not in solvers:
        print("slugs not on PATH: no ours/slugs ratios")
    return 0 if all(r[2] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
