"""Per-message verdict latency and throughput of the live monitor on the logistics model.

Run from the repository root::

    python bench/monitor/run.py                 # 20 000 messages, 10 properties
    python bench/monitor/run.py --messages 100000 --recheck 5 --json

The stream is the BDI-state records of forced-outcome runs of ``logistics_p0`` (nominal, and with
navigation, pick and place failures), replayed as separate runs until ``--messages`` records have
been fed. Rows, each timed per message (wall and CPU time of the thread):

- **node path** (the main row): what the ROS monitor node does per message, from the JSON text
  the supervisor node publishes (``wire.encode_record``) to the ten verdict values and whether to
  publish them (``bdi_monitor.ros.intake.Intake.take``, the node's own code: decode and check the
  header, advance the core, compare the values), garbage collector on. The JSON decoder is
  msgspec's where it is installed (``bench`` extra), else the standard library's: the bench
  says which;
- **dict path**: ``Monitor.feed`` on already parsed records, garbage collector paused (validate
  the record, map it to a direction, advance the automaton state, read the verdicts);
- **peer: RTAMT** (installed with the ``bench`` extra; skipped with a note otherwise): the ten
  properties as past-time STL (``bench/monitor/rtamt_peer.py``) on the parsed records, one
  discrete-time online update per specification and message; its verdicts must agree with ours
  (``true`` ⟺ robustness > 0) or the bench exits 1;
- two peers on the same records: *membership* evaluates every property at the current node of
  every consistent world by a BDD cofactor walk (true-sets cached, no precomputed table);
  *re-check* recomputes every true-set from scratch per message (a few messages only).

The node path, the dict path and RTAMT alternate chunk by chunk (``--chunk``) in one run, so
their ratios hold on a loaded machine.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rich.console import Console
from rich.table import Table
from rtamt_peer import available

import bdi_supervisor.domains  # noqa: F401  (registers the simulators with the runtime)
from bdi_monitor.monitor import Monitor, monitor_for_mission
from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import prepare
from bdi_supervisor.ros import wire
from bdi_supervisor.runtime.session import RunOptions, run_supervisor

ROOT = Path(__file__).resolve().parents[2]
MISSION = ROOT / "config" / "missions" / "logistics_p0.yaml"
NODE_ROW = "node path: JSON text → verdicts (GC on)"
STDLIB_ROW = "node path, decoded by the json module (GC on)"
DICT_ROW = "dict path: Monitor.feed on parsed records (GC off)"
RTAMT_ROW = "peer: RTAMT, 10 past-time STL specs on parsed records (GC on)"
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


def node_path(monitor: Monitor):
    """What the ROS monitor node does per message (its own code, without rclpy)."""
    from bdi_monitor.ros.intake import Intake

    take = Intake(monitor).take
    return lambda text: take(text, 0)


def standard_json(step):
    """``step`` with the wire decoding by the standard library's json module."""
    fast = wire.fast_decoder()

    def slow_step(text: str) -> None:
        wire._FAST = None
        try:
            step(text)
        finally:
            wire._FAST = fast

    return slow_step


def decoder() -> str:
    """The JSON decoder the wire uses here."""
    from importlib.metadata import version

    return (f"msgspec {version('msgspec')}" if wire.fast_decoder() is not None
            else "json (standard library; pip install msgspec for the fast path)")


def alternated(evaluators: dict, items: dict, chunk: int) -> dict[str, tuple[list, list]]:
    """Run every evaluator over its items chunk by chunk, the evaluators in turn (the order
    rotating), so load drifts hit all alike; per message wall and CPU nanoseconds."""
    wall_clock, cpu_clock = time.perf_counter_ns, time.thread_time_ns
    out = {name: ([], []) for name in evaluators}
    names = list(evaluators)
    count = len(next(iter(items.values())))
    for turn, start in enumerate(range(0, count, chunk)):
        order = names[turn % len(names):] + names[:turn % len(names)]
        for name in order:
            step, gc_off = evaluators[name]
            walls, cpus = out[name]
            if gc_off:
                gc.disable()
            try:
                for item in items[name][start:start + chunk]:
                    w0, c0 = wall_clock(), cpu_clock()
                    step(item)
                    cpus.append(cpu_clock() - c0)
                    walls.append(wall_clock() - w0)
            finally:
                gc.enable()
    return out


def agreement(base: Monitor, stream: list[dict]) -> tuple[int, int]:
    """(verdicts agreeing with RTAMT's, verdicts compared): ``true`` ⟺ robustness > 0."""
    from rtamt_peer import RtamtMonitor

    ours, peer = base, RtamtMonitor()
    agree = total = 0
    for record in stream:
        robustness = peer.feed(record)
        for verdict in ours.feed(record):
            total += 1
            agree += (verdict.value == "true") == (robustness[verdict.property] > 0)
    return agree, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--recheck", type=int, default=3,
                        help="messages for the re-check peer (seconds each)")
    parser.add_argument("--chunk", type=int, default=1000,
                        help="messages per turn when the evaluators alternate")
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
    texts = [wire.encode_record(record) for record in stream]

    def fresh() -> Monitor:
        return Monitor(base.model, base.checker, base.launch, base.tables)

    rtamt_version = available()
    node, direct = fresh(), fresh()
    evaluators = {NODE_ROW: (node_path(node), False), DICT_ROW: (direct.feed, True)}
    items = {NODE_ROW: texts, DICT_ROW: stream}
    if wire.fast_decoder() is not None:
        evaluators[STDLIB_ROW] = (standard_json(node_path(fresh())), False)
        items[STDLIB_ROW] = texts
    if rtamt_version:
        from rtamt_peer import RtamtMonitor

        evaluators[RTAMT_ROW] = (RtamtMonitor().feed, False)
        items[RTAMT_ROW] = stream
    else:
        console.print("RTAMT is not installed (pip install -e '.[bench]'): its peer is skipped")
    alternated({n: (node_path(fresh()), False) for n in (NODE_ROW,)}, {NODE_ROW: texts[:2000]},
               args.chunk)  # warm-up
    wall = time.perf_counter()
    timed = alternated(evaluators, items, args.chunk)
    wall = time.perf_counter() - wall
    member = time_membership(fresh(), stream)
    recheck = time_recheck(fresh(), stream[:args.recheck])
    assert node.counters().get("out_of_model", 0) == 0, node.counters()
    agree = agreement(fresh(), stream) if rtamt_version else None

    rows = [(name, walls, cpus) for name, (walls, cpus) in timed.items()]
    rows += [("peer: BDD membership (GC off)", member, None),
             ("peer: re-check per message", recheck, None)]
    main_median = statistics.median(timed[NODE_ROW][0])
    result = {"messages": len(stream), "properties": len(model.properties),
              "launch_s": round(launch_s, 3), "decoder": decoder(), "rtamt": rtamt_version,
              "rtamt_agreement": agree,
              "throughput_per_s": round(len(stream) / (sum(timed[NODE_ROW][0]) / 1e9)),
              "rows": {name: {"median_us": statistics.median(v) / 1000,
                              "p99_us": percentile(v, 0.99) / 1000,
                              "cpu_median_us": statistics.median(c) / 1000 if c else None,
                              "cpu_p99_us": percentile(c, 0.99) / 1000 if c else None,
                              "messages": len(v),
                              "ratio_median": statistics.median(v) / main_median}
                       for name, v, c in rows}}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0 if agree is None or agree[0] == agree[1] else 1
    table = Table(title=f"per-message verdicts, {len(model.properties)} properties, "
                        f"{len(stream)} messages (µs; ratio = row / node path, same run)",
                  header_style="bold")
    for column in ("evaluator", "messages", "median", "p99", "CPU median", "CPU p99",
                   "× node path"):
        table.add_column(column, justify="right")
    for name, entry in result["rows"].items():
        cpu = [entry["cpu_median_us"], entry["cpu_p99_us"]]
        table.add_row(name, str(entry["messages"]), f"{entry['median_us']:.1f}",
                      f"{entry['p99_us']:.1f}",
                      *[("-" if c is None else f"{c:.1f}") for c in cpu],
                      f"{entry['ratio_median']:.2f}")
    out = Console()
    out.print(table)
    p99 = result["rows"][NODE_ROW]["p99_us"]
    out.print(f"node path: {result['throughput_per_s']:,} messages/s (all properties per "
              f"message); p99 {p99:.1f} µs per message; JSON decoder: {result['decoder']}")
    if agree is not None:
        out.print(f"RTAMT {rtamt_version}: verdicts agree on {agree[0]:,} of {agree[1]:,}; "
                  f"RTAMT / node path (median): "
                  f"{result['rows'][RTAMT_ROW]['ratio_median']:.1f}×")
    return 0 if agree is None or agree[0] == agree[1] else 1


if __name__ == "__main__":
    sys.exit(main())
