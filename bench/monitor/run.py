"""Per-message verdict latency and throughput of the live monitor on the logistics model.

Run from the repository root::

    python bench/monitor/run.py                 # 20 000 messages, 10 properties
    python bench/monitor/run.py --messages 100000 --recheck 5

The stream is the BDI-state records of forced-outcome runs of ``logistics_p0`` (nominal, and with
navigation, pick and place failures), replayed as separate runs until ``--messages`` records have
been fed. Measured per record, with the garbage collector paused: ``Monitor.feed`` (validate the
record, map it to a direction, advance the automaton state, look the ten verdicts up in the
precomputed table, build the ten ``Verdict`` objects). Two peers, measured in the same run on the
same records: *membership* evaluates every property at the current node of every consistent
world by a BDD cofactor walk (true-sets cached, no precomputed table); *re-check* recomputes every
true-set from scratch per message (model checking per message; a few messages only).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rich.console import Console
from rich.table import Table

import bdi_supervisor.domains  # noqa: F401  (registers the simulators with the runtime)
from bdi_monitor.monitor import Monitor, monitor_for_mission
from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import prepare
from bdi_supervisor.runtime.session import RunOptions, run_supervisor

ROOT = Path(__file__).resolve().parents[2]
MISSION = ROOT / "config" / "missions" / "logistics_p0.yaml"
FORCES = (None, "goto_item=failure", "pick=failure,pick=failure", "goto_table=failure",
          "place_soda=failure", "goto_dumpster=failure,pick=failure")


def records(mission, prepared, count: int) -> list[dict]:
    runs = []
    for force in FORCES:
        found: list[dict] = []
        run_supervisor(mission, prepared.machine, prepared.reduced,
                       options=RunOptions(sim="forced", force=force), callbacks=[found.append])
        runs.append(found)
    stream: list[dict] = []
    n = 0
    while len(stream) < count:
        for record in runs[n % len(runs)]:
            stream.append({**record, "run_id": f"{record['run_id']}-{n}"})
        n += 1
    return stream[:count]


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _timed(stream: list[dict], step) -> list[int]:
    """Nanoseconds of ``step(record)`` per record, with the garbage collector off."""
    clock = time.perf_counter_ns
    out = []
    gc.disable()
    try:
        for record in stream:
            t0 = clock()
            step(record)
            out.append(clock() - t0)
    finally:
        gc.enable()
    return out


def time_feed(monitor: Monitor, stream: list[dict]) -> list[int]:
    return _timed(stream, monitor.feed)


def time_membership(monitor: Monitor, stream: list[dict]) -> list[int]:
    """Peer: the same walk, but every verdict by BDD membership at the current nodes."""
    model, checkers = monitor.model, monitor.checker.checkers
    formulas = [p.formula for p in model.properties]
    sats = [[c.sat(f) for f in formulas] for c in checkers]

    def step(record: dict) -> None:
        monitor.feed(record)
        _, consistent = model.tracker[monitor.q]
        for i in range(len(formulas)):
            holding = {j for j in consistent
                       if checkers[j].model.contains(model.node(monitor.q, j), sats[j][i])}
            _ = ("true" if holding == consistent else "false" if not holding
                 else "inconclusive")

    return _timed(stream, step)


def time_recheck(monitor: Monitor, stream: list[dict]) -> list[int]:
    """Peer: re-check every property from scratch at every message."""
    model, checkers = monitor.model, monitor.checker.checkers
    out = []
    for record in stream:
        t0 = time.perf_counter_ns()
        monitor.feed(record)
        _, consistent = model.tracker[monitor.q]
        for checker in checkers:
            checker.forget()
        for prop in model.properties:
            {j for j in consistent if checkers[j].holds(prop.formula, model.node(monitor.q, j))}
        out.append(time.perf_counter_ns() - t0)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--recheck", type=int, default=3,
                        help="messages for the re-check peer (seconds each)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    console = Console(stderr=True)
    mission = load_mission(MISSION)
    prepared = prepare(mission)
    t0 = time.perf_counter()
    base = monitor_for_mission(mission, prepared)
    launch_s = time.perf_counter() - t0
    model = base.model
    console.print(f"logistics_p0: {len(model.structure.worlds)} worlds, "
                  f"{len(model.directions)} directions, {len(model.positions)} positions, "
                  f"{len(model.tracker)} automaton states, {len(model.properties)} properties; "
                  f"launch check + tables {launch_s:.2f} s")
    stream = records(mission, prepared, args.messages)

    def fresh() -> Monitor:
        return Monitor(base.model, base.checker, base.launch, base.tables)

    time_feed(fresh(), stream[:2000])  # warm-up
    monitor = fresh()
    wall = time.perf_counter()
    feed = time_feed(monitor, stream)
    wall = time.perf_counter() - wall
    member = time_membership(fresh(), stream)
    recheck = time_recheck(fresh(), stream[:args.recheck])
    assert monitor.counters().get("out_of_model", 0) == 0, monitor.counters()

    rows = [("monitor (table lookup)", feed), ("peer: BDD membership", member),
            ("peer: re-check per message", recheck)]
    median = statistics.median(feed)
    result = {"messages": len(stream), "properties": len(model.properties),
              "launch_s": round(launch_s, 3), "throughput_per_s": round(len(stream) / wall),
              "rows": {name: {"median_us": statistics.median(v) / 1000,
                              "p99_us": percentile(v, 0.99) / 1000, "messages": len(v),
                              "ratio_median": statistics.median(v) / median}
                       for name, v in rows}}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    table = Table(title=f"per-message verdicts, {len(model.properties)} properties, "
                        f"{len(stream)} messages", header_style="bold")
    for column in ("evaluator", "messages", "median µs", "p99 µs", "× monitor (median)"):
        table.add_column(column, justify="right")
    for name, entry in result["rows"].items():
        table.add_row(name, str(entry["messages"]), f"{entry['median_us']:.1f}",
                      f"{entry['p99_us']:.1f}", f"{entry['ratio_median']:.1f}")
    out = Console()
    out.print(table)
    p99 = result["rows"]["monitor (table lookup)"]["p99_us"]
    out.print(f"throughput {result['throughput_per_s']:,} messages/s (all properties per "
              f"message); monitor p99 {p99:.1f} µs per message")
    return 0


if __name__ == "__main__":
    sys.exit(main())
