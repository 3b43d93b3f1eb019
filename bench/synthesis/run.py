"""Synthesis benchmark: ours against slugs (when a ``slugs`` executable is on PATH) or omega,
or against our own solve over every state.

    python bench/synthesis/run.py [--missions A,B] [--configs oS,eFP] [--reference] [--quick]
                                  [--exclude TEXT] [--repeat N] [--timeout S] [--results FILE]
                                  [--fresh] [--slugs PATH] [--summary] [--table-only]
                                  [--peer slugs|omega|all-states]

Specs: every shipped mission (``config/missions``) in every configuration (``o``ne-hot /
``e``numerated × ``S``ystem-goal / ``F``air-outcome × pending ``P`` or not: ``oS oSP oF oFP eS
eSP eF eFP``), selectable with ``--missions`` and ``--configs``; ``--reference`` adds the
reference slugs examples; ``--quick`` is ``--configs oSP --reference``.

**With slugs** (``slugs`` on PATH, or ``--slugs PATH``; build it yourself from its sources,
nothing here ships or builds it): per spec, ``--repeat`` rounds, each running in turn our
``bdi-supervisor solve SPEC --json --no-strategy``, ``slugs SPEC.slugsin``, our ``solve SPEC
--json`` and ``slugs --explicitStrategy --jsonOutput SPEC.slugsin``, each in a fresh process
(alternating, so that a loaded machine slows both alike). Printed per spec: the medians of the
whole-process wall time of realizability and of realizability + explicit strategy, ours
in-process (encoding + fixpoint [+ extraction], from our record; slugs' start-up is negligible,
so its whole-process time stands for its in-process time too), the ratios ours/slugs, the
verdicts and strategy state counts of both (they must agree), and the peak RSS of each process.
Runs past ``--timeout`` seconds count as ``>T`` and are not repeated.

**Without slugs** it says so and compares with omega in-process (realizability only, as the
tests' oracle does).

**``--peer all-states``**: per spec, ``--repeat`` rounds of our ``solve SPEC --json --strategy``
(the fixpoints inside the reachable states, the default) and ``solve SPEC --json --all-states
--strategy`` (over every state), alternating in fresh processes: whole-process and in-process
medians with the strategy, the ratio, the reachable states, and whether the two strategy files
are byte for byte the same (they must be, as the verdicts must agree).

``--results FILE`` (default ``out/bench/synthesis.jsonl``) keeps one JSON line per finished
spec; a rerun skips the specs already there (delete the file, or pass ``--fresh``, to measure
again), so a long run can be stopped and resumed. The table is printed from the file at the end;
``--table-only`` prints it without measuring the specs not yet there, ``--summary`` adds the
compact table of the specs that take slugs at least 0.1 s (the README's) with the ones where
ours is above 1.0×.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "test"))  # reference_data: where the reference inputs are

from processes import run_process  # noqa: E402
from support.reference_data import REFERENCE  # noqa: E402

from bdi_supervisor.mission import load_mission  # noqa: E402
from bdi_supervisor.spec.io import format_spec, load_spec  # noqa: E402
from bdi_supervisor.specgen.generate import generate_spec  # noqa: E402

ENCODINGS = {"o": "one-hot", "e": "enumerated"}
LIVENESS = {"S": "system-goal", "F": "fair-outcome"}
CONFIGS = [e + lv + p for e in "oe" for lv in "SF" for p in ("", "P")]
MODES = ("ours", "slugs", "ours+x", "slugs+x")


def specs(missions: list[str] | None, configs: list[str], reference: bool):
    """(name, spec) of the selected shipped missions × configurations (and reference specs)."""
    for path in sorted((ROOT / "config" / "missions").glob("*.yaml")):
        if missions and path.stem not in missions:
            continue
        mission = load_mission(path)
        for config in configs:
            spec = generate_spec(mission, encoding=ENCODINGS[config[0]],
                                 liveness=LIVENESS[config[1]], pending=config.endswith("P"))
            yield f"{path.stem}/{config}", spec
    if reference and REFERENCE.is_dir():
        for path in sorted(REFERENCE.rglob("*")):
            if path.suffix in (".structuredslugs",
                               ".slugsin") and "well_separation" not in str(path):
                yield path.stem, load_spec(path)


# ---------------------------------------------------------------- one measured process


def ours(spec_path: Path, extract: bool, timeout: float, flags: tuple[str, ...] = ()) -> dict:
    """One ``solve SPEC --json`` process (``flags`` added): its times, verdict, states and
    reachable states."""
    command = [sys.executable, "-m", "bdi_supervisor", "solve", str(spec_path), "--json", *flags]
    if not extract:
        command.append("--no-strategy")
    run = run_process(command, timeout)
    record = None
    if run["wall"] is not None:
        text = run["output"]
        try:
            record = json.loads(text[text.index("{"):])
        except ValueError:
            raise SystemExit(f"{' '.join(command)}: no JSON record\n{text[-2000:]}") from None
    metrics = (record or {}).get("metrics", {})
    inside = metrics.get("encoding_seconds", 0) + metrics.get("realizability_seconds", 0)
    if extract:
        inside += metrics.get("extraction_seconds", 0)
    return {**_public(run), "in_process": inside if record else None,
            "realizable": record.get("realizable") if record else None,
            "states": metrics.get("strategy_states") if extract and record else None,
            "reachable_states": metrics.get("reachable_states")}


def slugs(executable: str, slugsin: Path, extract: bool, timeout: float) -> dict:
    command = [executable]
    if extract:
        command += ["--explicitStrategy", "--jsonOutput"]
    command.append(str(slugsin))
    strategy = slugsin.with_suffix(".strategy.json")
    if extract:
        command.append(str(strategy))
    run = run_process(command, timeout)
    text = run["output"].lower()
    verdict = None
    if "unrealizable" in text:
        verdict = False
    elif "realizable" in text:
        verdict = True
    elif extract and run["code"] == 0 and strategy.exists():
        verdict = True  # with an output file slugs prints the strategy there, no verdict line
    states = None
    if run["wall"] is None:  # killed at the timeout: its output may be cut off anywhere
        verdict = None
    elif extract and verdict and strategy.exists():
        states = len(json.loads(strategy.read_text())["nodes"])
    strategy.unlink(missing_ok=True)
    return {**_public(run), "in_process": run["wall"], "realizable": verdict, "states": states}


def _public(run: dict) -> dict:
    return {k: run[k] for k in ("wall", "cpu", "rss_mib")}


# ---------------------------------------------------------------- per spec


def measure_with_slugs(name: str, spec, executable: str, repeat: int, timeout: float) -> dict:
    runs: dict[str, list[dict]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as folder:
        structured = Path(folder) / "spec.structuredslugs"
        slugsin = Path(folder) / "spec.slugsin"
        structured.write_text(format_spec(spec, "structuredslugs"))
        slugsin.write_text(format_spec(spec, "slugsin"))
        jobs = {"ours": lambda: ours(structured, False, timeout),
                "slugs": lambda: slugs(executable, slugsin, False, timeout),
                "ours+x": lambda: ours(structured, True, timeout),
                "slugs+x": lambda: slugs(executable, slugsin, True, timeout)}
        for _ in range(repeat):
            for mode, job in jobs.items():
                if runs[mode] and runs[mode][-1]["wall"] is None:
                    continue  # timed out once: not again
                runs[mode].append(job())
    return {"spec": name, "peer": "slugs", "runs": runs}


def measure_with_all_states(name: str, spec, repeat: int, timeout: float) -> dict:
    """Ours (inside the reachable states) against ours over every state, alternating; each
    round compares the two strategy files."""
    runs: dict[str, list[dict]] = {"ours": [], "all-states": []}
    with tempfile.TemporaryDirectory() as folder:
        structured = Path(folder) / "spec.structuredslugs"
        structured.write_text(format_spec(spec, "structuredslugs"))
        files = {mode: Path(folder) / f"{mode}.json" for mode in runs}
        for _ in range(repeat):
            for mode, flags in (("ours", ()), ("all-states", ("--all-states",))):
                if runs[mode] and runs[mode][-1]["wall"] is None:
                    continue  # timed out once: not again
                files[mode].unlink(missing_ok=True)
                runs[mode].append(ours(structured, True, timeout,
                                       (*flags, "--strategy", str(files[mode]))))
            if all(f.exists() for f in files.values()):
                runs["ours"][-1]["same_strategy"] = (files["ours"].read_bytes()
                                                     == files["all-states"].read_bytes())
    return {"spec": name, "peer": "all-states", "runs": runs}


def measure_with_omega(name: str, spec, repeat: int) -> dict:
    from bdi_supervisor.options import SynthesisOptions
    from bdi_supervisor.synthesis.omega_bridge import omega_realizable
    from bdi_supervisor.synthesis.synthesize import synthesize

    runs: dict[str, list[dict]] = {"ours": [], "omega": []}
    for _ in range(repeat):
        start = time.perf_counter()
        result = synthesize(spec, SynthesisOptions(extract=False, diagnose=False))
        runs["ours"].append({"wall": time.perf_counter() - start,
                             "realizable": bool(result.realizable)})
        start = time.perf_counter()
        verdict = omega_realizable(spec)
        runs["omega"].append({"wall": time.perf_counter() - start, "realizable": verdict})
    return {"spec": name, "peer": "omega", "runs": runs}


# ---------------------------------------------------------------- table


def _median(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    if not values or any(r["wall"] is None for r in runs):
        return None
    return statistics.median(values)


def _peak_rss(runs: dict[str, list[dict]]) -> str:
    """Peak RSS (MiB) of ours and of slugs over all their runs of a spec, "ours/slugs"."""
    peak = {mode: max((x["rss_mib"] for x in runs[mode]), default=0) for mode in MODES}
    return f"{max(peak['ours'], peak['ours+x']):.0f}/{max(peak['slugs'], peak['slugs+x']):.0f}"


def _seconds(value: float | None, timeout: float) -> str:
    return f">{timeout:.0f}" if value is None else f"{value:.3f}"


def _ratio(a: float | None, b: float | None, peer: str = "slugs") -> str:
    if a is None and b is None:
        return "–"
    if a is None:
        return f"{peer} only"
    if b is None:
        return f"<1 ({peer} >T)"
    return f"{a / b:.2f}"


def slugs_table(rows: list[dict], timeout: float) -> tuple[list[str], int]:
    lines = [
        "| spec | realizable | states ours/slugs | ours s | ours in-proc s | slugs s | "
        "proc ratio | in-proc ratio | ours+x s | ours+x in-proc s | slugs+x s | proc ratio +x | "
        "in-proc ratio +x | peak RSS MiB ours/slugs |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    disagreements = 0
    for row in rows:
        r = row["runs"]
        verdicts = {m: next((x["realizable"] for x in r[m] if x["realizable"] is not None), None)
                    for m in MODES}
        known = {v for v in verdicts.values() if v is not None}
        states = {m: next((x["states"] for x in r[m] if x.get("states") is not None), None)
                  for m in ("ours+x", "slugs+x")}
        agree = len(known) <= 1 and (None in states.values()
                                     or states["ours+x"] == states["slugs+x"])
        disagreements += not agree
        m = {mode: (_median(r[mode], "wall"), _median(r[mode], "in_process")) for mode in MODES}
        verdict = "?" if not known else str(known.pop()) if len(known) == 1 else "MISMATCH"
        lines.append("| " + " | ".join([
            row["spec"], verdict + ("" if agree else " (DISAGREE)"),
            f"{states['ours+x']}/{states['slugs+x']}",
            _seconds(m["ours"][0], timeout), _seconds(m["ours"][1], timeout),
            _seconds(m["slugs"][0], timeout),
            _ratio(m["ours"][0], m["slugs"][0]), _ratio(m["ours"][1], m["slugs"][0]),
            _seconds(m["ours+x"][0], timeout), _seconds(m["ours+x"][1], timeout),
            _seconds(m["slugs+x"][0], timeout),
            _ratio(m["ours+x"][0], m["slugs+x"][0]), _ratio(m["ours+x"][1], m["slugs+x"][0]),
            _peak_rss(r),
        ]) + " |")
    return lines, disagreements


def slugs_summary(rows: list[dict], timeout: float, floor: float = 0.1) -> list[str]:
    """The specs that take slugs at least ``floor`` seconds (whole process, realizability or with
    the strategy): ours and slugs side by side, the ratios, and how many ours wins."""
    lines = [
        f"Specs where slugs takes ≥ {floor} s (whole-process medians, seconds; "
        "ratio = ours/slugs):",
        "",
        "| spec | slugs | ours | ratio | slugs +x | ours +x | ratio +x | peak RSS MiB ours/slugs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    counted = within = within_x = 0
    worst: list[tuple[float, str]] = []
    undecided: list[str] = []  # ours past the timeout
    for row in rows:
        r = row["runs"]
        walls = {mode: _median(r[mode], "wall") for mode in MODES}
        slow = [walls[m] for m in ("slugs", "slugs+x")]
        if all(w is not None and w < floor for w in slow):
            continue
        counted += 1
        ratios = []
        for ours_mode, peer_mode in (("ours", "slugs"), ("ours+x", "slugs+x")):
            a, b = walls[ours_mode], walls[peer_mode]
            ratios.append(None if a is None else 0.0 if b is None else a / b)
        within += ratios[0] is not None and ratios[0] <= 1.0
        within_x += ratios[1] is not None and ratios[1] <= 1.0
        worst += [(x, row["spec"]) for x in ratios if x is not None and x > 1.0]
        if None in ratios:
            undecided.append(row["spec"])
        lines.append("| " + " | ".join([
            row["spec"], _seconds(walls["slugs"], timeout), _seconds(walls["ours"], timeout),
            _ratio(walls["ours"], walls["slugs"]), _seconds(walls["slugs+x"], timeout),
            _seconds(walls["ours+x"], timeout), _ratio(walls["ours+x"], walls["slugs+x"]),
            _peak_rss(r),
        ]) + " |")
    above = sorted({spec for _, spec in worst})
    lines += ["", f"{counted} such specs: ours ≤ 1.0× slugs on {within} for realizability and on "
                  f"{within_x} with the strategy; above 1.0×: {', '.join(above) or 'none'}"
                  + (f"; ours past the timeout: {', '.join(undecided)}" if undecided else "")]
    return lines


def all_states_table(rows: list[dict], timeout: float) -> tuple[list[str], int]:
    """Ours against ours over every state: verdict, strategy states, reachable states, medians
    with the strategy (whole process and in-process), ratios, same strategy files."""
    lines = ["| spec | realizable | states | reachable states | ours s | ours in-proc s | "
             "all states s | all states in-proc s | ratio | in-proc ratio | same strategy |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    disagreements = 0
    for row in rows:
        r = row["runs"]
        verdicts = {x["realizable"] for m in r for x in r[m] if x["realizable"] is not None}
        same = [x["same_strategy"] for x in r["ours"] if "same_strategy" in x]
        agree = len(verdicts) <= 1 and all(same)
        disagreements += not agree
        m = {mode: (_median(r[mode], "wall"), _median(r[mode], "in_process")) for mode in r}
        lines.append("| " + " | ".join([
            row["spec"], ("?" if not verdicts else str(next(iter(verdicts))) if len(verdicts) == 1
                          else "MISMATCH"),
            str(r["ours"][-1]["states"]), str(r["ours"][-1]["reachable_states"]),
            _seconds(m["ours"][0], timeout), _seconds(m["ours"][1], timeout),
            _seconds(m["all-states"][0], timeout), _seconds(m["all-states"][1], timeout),
            _ratio(m["ours"][0], m["all-states"][0], "all states"),
            _ratio(m["ours"][1], m["all-states"][1], "all states"),
            ("yes" if same and all(same) else "NO" if same else "–"),
        ]) + " |")
    return lines, disagreements


def omega_table(rows: list[dict]) -> tuple[list[str], int]:
    lines = ["| spec | realizable | ours s | omega s | ours/omega |", "|---|---|---|---|---|"]
    disagreements = 0
    for row in rows:
        r = row["runs"]
        ours_s, omega_s = _median(r["ours"], "wall"), _median(r["omega"], "wall")
        agree = r["ours"][-1]["realizable"] == r["omega"][-1]["realizable"]
        disagreements += not agree
        lines.append(f"| {row['spec']} | {r['ours'][-1]['realizable']}"
                     f"{'' if agree else ' (MISMATCH)'} | {ours_s:.4f} | {omega_s:.4f} | "
                     f"{ours_s / omega_s:.2f} |")
    return lines, disagreements


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--missions", help="comma-separated mission file stems (default: all)")
    parser.add_argument("--configs", default=",".join(CONFIGS),
                        help=f"comma-separated configurations (default: {','.join(CONFIGS)})")
    parser.add_argument("--reference", action="store_true", help="add the reference slugs specs")
    parser.add_argument("--quick", action="store_true",
                        help="one-hot System-Goal + pending only, plus the reference specs")
    parser.add_argument("--exclude", action="append", default=[], metavar="TEXT",
                        help="skip specs whose name contains TEXT (repeatable)")
    parser.add_argument("--markdown", action="store_true",
                        help="accepted for compatibility: the table is always Markdown")
    parser.add_argument("--summary", action="store_true",
                        help="with slugs: also the compact table of the specs that take slugs "
                             "≥ 0.1 s, and which of them ours does not win")
    parser.add_argument("--table-only", action="store_true",
                        help="print the tables from --results without measuring anything new")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per spec (default 3)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds before a run counts as >T (default 300)")
    parser.add_argument("--slugs", help="the slugs executable (default: slugs on PATH)")
    parser.add_argument("--peer", choices=("slugs", "omega", "all-states"),
                        help="what ours runs against (default: slugs when found, else omega)")
    parser.add_argument("--results", default=str(ROOT / "out" / "bench" / "synthesis.jsonl"),
                        help="JSON lines file of finished specs (resumable)")
    parser.add_argument("--fresh", action="store_true", help="forget earlier results first")
    args = parser.parse_args()
    configs = ["oSP"] if args.quick else [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; expected {CONFIGS}")
    missions = [m for m in (args.missions or "").split(",") if m] or None
    executable = args.slugs or shutil.which("slugs")
    peer = args.peer or ("slugs" if executable else "omega")
    if peer == "slugs" and executable is None:
        if args.peer:
            parser.error("--peer slugs: no slugs executable (on PATH or --slugs)")
        print("slugs not on PATH: comparing with omega in-process (realizability only)",
              file=sys.stderr)
        peer = "omega"
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        results.unlink(missing_ok=True)
    done = {}
    if results.exists():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            done[(row["spec"], row["peer"])] = row
    rows = []
    for name, spec in specs(missions, configs, args.reference or args.quick):
        if any(text in name for text in args.exclude):
            continue
        row = done.get((name, peer))
        if row is None and args.table_only:
            continue
        if row is None:
            print(f"{name} …", file=sys.stderr, flush=True)
            row = (measure_with_slugs(name, spec, executable, args.repeat, args.timeout)
                   if peer == "slugs" else
                   measure_with_all_states(name, spec, args.repeat, args.timeout)
                   if peer == "all-states" else measure_with_omega(name, spec, args.repeat))
            with results.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
        rows.append(row)
    tables = {"slugs": lambda: slugs_table(rows, args.timeout), "omega": lambda: omega_table(rows),
              "all-states": lambda: all_states_table(rows, args.timeout)}
    lines, disagreements = tables[peer]()
    print("\n".join(lines))
    if args.summary and peer == "slugs":
        print("\n" + "\n".join(slugs_summary(rows, args.timeout)))
    print(f"\n{len(rows)} specs, {disagreements} disagreements; results in {results}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
