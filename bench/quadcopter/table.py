"""Quadcopter gate course: synthesis, audit, reduction and realization in every configuration.

    python bench/quadcopter/table.py [--mission config/missions/quadcopter_crazyflie.yaml]
        [--budget 300] [--configs one-hot:S,enumerated:S,...] [--json out.json]

For each encoding (one-hot, enumerated) and liveness treatment (S, SP, F, FP): propositions in /
out, realizability seconds, peak BDD nodes, raw / reduced / realized states and the audit verdicts
(raw, reduced) with their defect kinds. A configuration that exceeds ``--budget`` seconds of
synthesis is reported as INCOMPLETE. Each configuration runs in its own process (a fresh CUDD
manager, so peak node counts do not carry over). Prints the markdown table of docs/quadcopter.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from bdi_supervisor.common import Realizability  # noqa: E402
from bdi_supervisor.mission import load_mission  # noqa: E402

LIVENESS = {"S": ("system-goal", False), "SP": ("system-goal", True),
            "F": ("fair-outcome", False), "FP": ("fair-outcome", True)}
ALL = [f"{e}:{lv}" for e in ("one-hot", "enumerated") for lv in LIVENESS]


def measure(mission, encoding: str, label: str, budget: float) -> dict:
    """One configuration through the pipeline (spec → well-separation → synthesis → audit raw →
    reduce → audit reduced → realize); a failed raw audit still reduces, so the row has counts."""
    from bdi_supervisor import pipeline

    liveness, pending = LIVENESS[label]
    audit_section = {**mission.section("audit"), "proceed_on_fail": True}
    mission = replace(mission, sections={**mission.sections, "audit": audit_section})
    started = time.perf_counter()
    run = pipeline.run(mission, overrides={"encoding": encoding, "liveness": liveness,
                                           "pending": pending, "time_budget": budget})
    stages = {s.name: s for s in run.stages}
    spec = stages["spec"].record
    synthesis = stages["synthesis"].record
    metrics = synthesis.get("metrics") or {}
    row = {"encoding": encoding, "config": label, "status": synthesis.get("status"),
           "inputs": spec["inputs"], "outputs": spec["outputs"],
           "input_bits": spec["input_bits"], "output_bits": spec["output_bits"],
           "well_separation": stages["well_separation"].status,
           "realizability_s": metrics.get("realizability_seconds"),
           "extraction_s": metrics.get("extraction_seconds"),
           "total_s": time.perf_counter() - started,
           "peak_nodes": metrics.get("peak_nodes")}
    if "audit" not in stages:
        return row
    audit = stages["audit"].record
    realize = stages.get("realize")
    row.update(raw=audit["raw_states"], reduced=audit["reduced_states"],
               realized=realize.record.get("capability_states") if realize else None,
               audit=audit["raw_verdict"], audit_defects=audit["raw_defects"],
               audit_warnings=audit["raw_warnings"], audit_reduced=audit["reduced_verdict"])
    return row


def _isolated(mission: str, item: str, budget: float) -> dict:
    """:func:`measure` in a child process; a child past the budget (plus slack) is INCOMPLETE."""
    encoding, label = item.split(":")
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, __file__, "--mission", mission, "--one", item,
                               "--budget", str(budget)], capture_output=True, text=True,
                              timeout=budget * 2 + 120)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0 or not done.stdout.strip():
        row = {"encoding": encoding, "config": label, "status": Realizability.INCOMPLETE,
               "total_s": time.perf_counter() - started,
               "error": done.stderr[-500:] if done is not None else "timeout"}
        from bdi_supervisor.specgen.generate import generate_spec

        m = load_mission(mission)
        liveness, pending = LIVENESS[label]
        counts = generate_spec(replace(m, synthesis=replace(
            m.synthesis, encoding=encoding, liveness=liveness, pending=pending))).counts()
        row.update(inputs=counts["inputs"], outputs=counts["outputs"],
                   input_bits=counts["input_bits"], output_bits=counts["output_bits"])
        return row
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown(rows: list[dict]) -> str:
    head = ("| encoding | config | props in / out (bits) | realizability s | peak BDD nodes | "
            "well-separation | raw / reduced / realized | audit raw | audit reduced |\n"
            "|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        props = f"{r['inputs']} / {r['outputs']} ({r['input_bits']} / {r['output_bits']})"
        if "raw" not in r:
            spent = (f"{r['realizability_s']:.2f}" if r.get("realizability_s")
                     else f"> {r['total_s']:.0f}")
            lines.append(f"| {r['encoding']} | {r['config']} | {props} | {r['status']} "
                         f"({spent} s) | – | {r.get('well_separation', '–')} | – | – | – |")
            continue
        defects = ", ".join(r["audit_defects"]) or ""
        warnings = ", ".join(r["audit_warnings"])
        verdict = r["audit"] + (f" ({defects})" if defects else "") + (
            f"; warnings: {warnings}" if warnings else "")
        lines.append(f"| {r['encoding']} | {r['config']} | {props} | "
                     f"{r['realizability_s']:.2f} | {r['peak_nodes']:,} | "
                     f"{r['well_separation']} | {r['raw']} / {r['reduced']} / "
                     f"{r['realized'] or '–'} | {verdict} | "
                     f"{r['audit_reduced']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mission",
                        default=str(ROOT / "config/missions/quadcopter_crazyflie.yaml"))
    parser.add_argument("--budget", type=float, default=300.0,
                        help="synthesis time budget per configuration (s)")
    parser.add_argument("--configs", default=",".join(ALL))
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--one", metavar="ENCODING:CONFIG", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        encoding, label = args.one.split(":")
        print(json.dumps(measure(load_mission(args.mission), encoding, label, args.budget),
                         default=str))
        return 0
    console = Console(stderr=True)
    rows = []
    for item in args.configs.split(","):
        encoding, label = item.split(":")
        with console.status(f"{encoding} {label}: synthesizing (budget {args.budget:g} s)"):
            row = _isolated(args.mission, item, args.budget)
        console.print(f"{encoding:10s} {label:2s} {row['status']:12s} {row['total_s']:7.1f} s "
                      f"states {row.get('raw', '-')}/{row.get('reduced', '-')}/"
                      f"{row.get('realized', '-')} audit {row.get('audit', '-')} "
                      f"{row.get('audit_defects', '')}")
        rows.append(row)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
