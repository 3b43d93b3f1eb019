"""CTL-BDI model checking benchmark: the grid beer robot, growing n, 4 and 8 worlds.

    python bench/ctl/run.py [--sizes 64 256 1024] [--worlds 4 8] [--repeat 3]
                            [--tools ours,numpy,tables] [--budget 300] [--timeout 600]
                            [--cli 64] [--load 512 2048] [--markdown FILE] [--json FILE]

Every measurement runs in a fresh process (its wall time and peak RSS come from ``wait4``);
the tools of one size alternate within each repetition and the tables show medians, so the
ratios compare runs made side by side. Tools:

- ``ours``: the symbolic checker on the grid's rules (``grid_structure`` → ``Checker``):
  build (generator + relations), reachable set, phi1 + phi2;
- ``tables``: the same checker with the relations built from the explicit tables
  (:class:`bdi_monitor.encoding.TableEncoding`, the path of a structure file);
- ``numpy``: the explicit-state peer (``bench/ctl/explicit_numpy.py``): the product enumerated
  into numpy arrays and checked by plain fixpoint iteration; its ratio counts exploration and
  checking, not reading the generator's rows into arrays (shown apart as "tables s");
- ``pmc``: pyModelChecking on the explicit tagged-edge product (``bdi_monitor/pmc_bridge.py``);
- ``nusmv``: NuSMV 2.5.4 on the same product as an SMV model with an order file like ours
  (``bench/ctl/nusmv_peer.py``; monolithic relation, its fastest here; model written
  beforehand, untimed), run when its executable is
  given (``--nusmv PATH``) or on PATH, skipped with a note otherwise. It is compared as a whole
  process with ours as a whole process (``process s``: Python start-up and imports included).

All tools must agree on the verdicts and (except pmc, whose product has tagged copies) on the
number of product nodes (NuSMV prints counts above 10⁶ to 6 significant digits: compared so),
or the bench stops with exit 1. A tool is skipped at larger sizes
once it timed out or its growth predicts more than ``--budget`` seconds. ``--cli N`` adds the
whole ``bdi-monitor check`` process at size N (4 worlds) on a model reference, a JSON file and
a YAML file (written by ``bdi-monitor grid`` beforehand, untimed); ``--cli 0`` skips it.
``--load 512 2048`` (the default) times the grid generator as ``bdi-monitor check`` reports it
(``seconds.load``, 8 worlds) at each size and prints its ratio to the first; ``--load`` alone
skips it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

PROPERTIES = ("AG(bel br -> EF bb)", "AG(bel br -> AF bb)")
TOOLS = ("ours", "tables", "numpy", "pmc", "nusmv")
PEERS = {"tables": "from tables", "numpy": "numpy explicit", "pmc": "pyModelChecking",
         "nusmv": "NuSMV"}
#: how a tool's time grows with n, to skip sizes predicted over the budget (BFS over about 2n
#: steps of small BDDs for NuSMV, n² states for the explicit peers)
GROWTH = {"nusmv": 1.5}


# -- one measurement (child process) -----------------------------------------------------------

def _child(tool: str, n: int, worlds: int) -> dict:
    from bdi_monitor.logic import parse
    from bdi_monitor.models.grid import grid_structure

    formulas = [parse(p) for p in PROPERTIES]
    t0 = time.perf_counter()
    structure = grid_structure(n, worlds)
    if tool in ("ours", "tables"):
        from bdi_monitor.checker import Checker
        from bdi_monitor.encoding import TableEncoding
        from bdi_monitor.symbolic import SymbolicModel

        encoding = TableEncoding(structure) if tool == "tables" else None
        model = SymbolicModel(structure, encoding=encoding)
        t1 = time.perf_counter()
        checker = Checker(model)
        t2 = time.perf_counter()
        verdicts = [checker.holds(f) for f in formulas]
        t3 = time.perf_counter()
        return {"nodes": checker.count(), "vars": model.var_count, "peak": model.peak_nodes(),
                "build": t1 - t0, "reach": t2 - t1, "check": t3 - t2, "total": t3 - t0,
                "verdicts": verdicts}
    if tool == "numpy":
        from explicit_numpy import ExplicitChecker, explore, read_tables

        tables = read_tables(structure)
        t1 = time.perf_counter()
        product = explore(tables)
        t2 = time.perf_counter()
        checker = ExplicitChecker(tables, product)
        verdicts = [checker.holds(f) for f in formulas]
        t3 = time.perf_counter()
        return {"nodes": len(product), "tables": t1 - t0, "reach": t2 - t1, "check": t3 - t2,
                "total": t3 - t1, "verdicts": verdicts}
    if tool == "pmc":
        from bdi_monitor.pmc_bridge import holds, tagged_kripke

        kripke = tagged_kripke(structure)
        t1 = time.perf_counter()
        verdicts = [holds(kripke, f) for f in formulas]
        t2 = time.perf_counter()
        return {"nodes": None, "build": t1 - t0, "check": t2 - t1, "total": t2 - t0,
                "verdicts": verdicts}
    raise SystemExit(f"unknown tool {tool}")


# -- process measurement -----------------------------------------------------------------------

def measured(command: list[str], timeout: float, cwd: Path = ROOT) -> dict:
    """Run ``command`` in ``cwd``; its exit code, wall seconds, peak RSS (MiB) and stdout."""
    import os
    import subprocess
    import tempfile
    import threading

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=cwd)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        timer.cancel()
        wall = time.perf_counter() - t0
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"rc": process.returncode, "wall": wall, "rss": usage.ru_maxrss / 1024,
                "stdout": out.read().decode(), "stderr": err.read().decode()[-2000:],
                "killed": wall >= timeout}


def run_nusmv(nusmv: str, n: int, worlds: int, timeout: float) -> dict | None:
    """NuSMV on the grid's SMV model (written untimed); the whole process is its time."""
    import tempfile

    import nusmv_peer

    with tempfile.TemporaryDirectory(prefix="bench-nusmv-") as folder:
        smv, order = nusmv_peer.write(Path(folder), n, worlds)
        result = measured(nusmv_peer.command(nusmv, smv, order), timeout)
    if result["killed"] or result["rc"] != 0:
        if not result["killed"]:
            print(f"NuSMV n={n} worlds={worlds} failed:\n{result['stderr']}", file=sys.stderr)
        return None
    parsed = nusmv_peer.parse_output(result["stdout"])
    return {**parsed, "total": result["wall"], "wall": result["wall"], "rss": result["rss"]}


def run_tool(tool: str, n: int, worlds: int, timeout: float, nusmv: str | None = None
             ) -> dict | None:
    if tool == "nusmv":
        return run_nusmv(nusmv, n, worlds, timeout)
    result = measured([sys.executable, __file__, "--child", tool, str(n), str(worlds)],
                      timeout)
    if result["killed"] or result["rc"] != 0:
        if not result["killed"]:
            print(f"{tool} n={n} worlds={worlds} failed:\n{result['stderr']}", file=sys.stderr)
        return None
    record = json.loads(result["stdout"].strip().splitlines()[-1])
    record.update(rss=result["rss"], wall=result["wall"])
    return record


def _same_counts(nodes: dict[str, int]) -> bool:
    """Every tool counted the same product nodes (NuSMV's count to its 6 printed digits)."""
    exact = {count for tool, count in nodes.items() if tool != "nusmv"}
    if len(exact) > 1:
        return False
    if "nusmv" not in nodes or not exact:
        return True
    ours, theirs = next(iter(exact)), nodes["nusmv"]
    return ours == theirs or float(f"{ours:g}") == theirs


def _median_record(records: list[dict]) -> dict:
    import statistics

    merged = dict(records[0])
    for key in ("build", "reach", "check", "total", "tables", "rss", "wall"):
        values = [r[key] for r in records if r.get(key) is not None]
        if values:
            merged[key] = statistics.median(values)
    return merged


# -- tables ------------------------------------------------------------------------------------

def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def _thousands(value: int | None) -> str:
    return "-" if value is None else f"{value:,}".replace(",", " ")


def growth_rows(results: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The symbolic checker on the grid's rules, phase by phase."""
    header = ["n", "worlds", "product nodes", "BDD vars", "peak BDD nodes", "build s", "reach s",
              "check s", "total s", "process s", "RSS MiB", "verdicts"]
    rows = []
    for r in results:
        ours = r.get("ours")
        if not ours:
            continue
        rows.append([str(r["n"]), str(r["worlds"]), _thousands(ours["nodes"]), str(ours["vars"]),
                     _thousands(ours["peak"]), _fmt(ours["build"]), _fmt(ours["reach"]),
                     _fmt(ours["check"]), _fmt(ours["total"]), _fmt(ours["wall"]),
                     _fmt(ours["rss"], 0), _verdicts(r.get("verdicts"))])
    return header, rows


def comparison_rows(results: list[dict], tools: list[str]) -> tuple[list[str], list[list[str]]]:
    """Every in-process tool's seconds and peak RSS; ratio = peer / ours."""
    header = ["n", "worlds", "ours s", "RSS MiB"]
    peers = [t for t in tools if t not in ("ours", "nusmv")]
    for tool in peers:
        header += [f"{PEERS[tool]} s", "RSS MiB", "ratio"]
    rows = []
    for r in results:
        ours = r.get("ours")
        row = [str(r["n"]), str(r["worlds"]), _fmt(ours["total"]) if ours else "-",
               _fmt(ours["rss"], 0) if ours else "-"]
        for tool in peers:
            peer = r.get(tool)
            if peer is None:
                row += [r.get("skipped", {}).get(tool, "-"), "-", "-"]
                continue
            row += [_fmt(peer["total"]), _fmt(peer["rss"], 0),
                    f"{peer['total'] / ours['total']:.1f}×" if ours else "-"]
        rows.append(row)
    return header, rows


def nusmv_rows(results: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Ours and NuSMV as whole processes (start-up included); ratio = NuSMV / ours."""
    header = ["n", "worlds", "product nodes", "ours process s", "RSS MiB", "NuSMV s", "RSS MiB",
              "NuSMV / ours", "RSS ours / NuSMV"]
    rows = []
    for r in results:
        ours, peer = r.get("ours"), r.get("nusmv")
        if not ours:
            continue
        if peer is None:
            rows.append([str(r["n"]), str(r["worlds"]), _thousands(ours["nodes"]),
                         _fmt(ours["wall"]), _fmt(ours["rss"], 0),
                         r.get("skipped", {}).get("nusmv", "-"), "-", "-", "-"])
            continue
        rows.append([str(r["n"]), str(r["worlds"]), _thousands(ours["nodes"]),
                     _fmt(ours["wall"]), _fmt(ours["rss"], 0), _fmt(peer["wall"]),
                     _fmt(peer["rss"], 0), f"{peer['wall'] / ours['wall']:.2f}×",
                     f"{ours['rss'] / peer['rss']:.2f}"])
    return header, rows


def _verdicts(verdicts: list[bool] | None) -> str:
    return "/".join("T" if v else "F" for v in verdicts) if verdicts else "-"


def numpy_rows(results: list[dict]) -> tuple[list[str], list[list[str]]]:
    header = ["n", "worlds", "product nodes", "tables s", "explore s", "fixpoints s",
              "explore + fixpoints s", "RSS MiB", "ours total s", "ratio"]
    rows = []
    for r in results:
        peer, ours = r.get("numpy"), r.get("ours")
        if peer is None:
            continue
        rows.append([str(r["n"]), str(r["worlds"]), _thousands(peer["nodes"]),
                     _fmt(peer["tables"]), _fmt(peer["reach"]), _fmt(peer["check"]),
                     _fmt(peer["total"]), _fmt(peer["rss"], 0),
                     _fmt(ours["total"]) if ours else "-",
                     f"{peer['total'] / ours['total']:.1f}×" if ours else "-"])
    return header, rows


def markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def show(console, title: str, header: list[str], rows: list[list[str]]) -> None:
    from rich.table import Table

    table = Table(*header, title=title)
    for row in rows:
        table.add_row(*row)
    console.print(table)


# -- the bench ---------------------------------------------------------------------------------

def bench_sizes(args: argparse.Namespace, tools: list[str], console) -> list[dict] | None:
    results = []
    for worlds in args.worlds:
        last: dict[str, tuple[int, float]] = {}
        dead: set[str] = set()
        for n in args.sizes:
            entry: dict = {"n": n, "worlds": worlds, "skipped": {}}
            active = []
            for tool in tools:
                if tool in dead:
                    entry["skipped"][tool] = "skipped"
                    continue
                if tool in last:
                    n0, seconds = last[tool]
                    predicted = seconds * (n / n0) ** GROWTH.get(tool, 2) if n > n0 else seconds
                    if predicted > args.budget:
                        entry["skipped"][tool] = f"> {args.budget:.0f} s"
                        dead.add(tool)
                        continue
                active.append(tool)
            runs: dict[str, list[dict]] = {t: [] for t in active}
            for rep in range(args.repeat):
                order = active if rep % 2 == 0 else active[::-1]
                for tool in order:
                    if tool in dead:
                        continue
                    with console.status(f"n = {n}, {worlds} worlds: {tool} "
                                        f"(run {rep + 1}/{args.repeat})"):
                        record = run_tool(tool, n, worlds, args.timeout, args.nusmv)
                    if record is None:
                        entry["skipped"][tool] = "timeout"
                        dead.add(tool)
                        continue
                    runs[tool].append(record)
            for tool, records in runs.items():
                if records and tool not in dead:
                    entry[tool] = _median_record(records)
                    last[tool] = (n, entry[tool]["wall"])
            verdicts = {tool: entry[tool]["verdicts"] for tool in runs if tool in entry}
            nodes = {tool: entry[tool]["nodes"] for tool in runs
                     if tool in entry and entry[tool]["nodes"] is not None}
            if len({tuple(v) for v in verdicts.values()}) > 1 or not _same_counts(nodes):
                console.print(f"[red]tools disagree at n = {n}, {worlds} worlds: verdicts "
                              f"{verdicts}, product nodes {nodes}[/]")
                return None
            entry["verdicts"] = next(iter(verdicts.values()), None)
            results.append(entry)
            summary = ", ".join(f"{t} {entry[t]['total']:.2f} s" for t in runs if t in entry)
            console.print(f"n = {n}, {worlds} worlds: {summary or 'nothing ran'}")
    return results


def bench_cli(n: int, repeat: int, timeout: float, console) -> list[dict]:
    """Whole ``bdi-monitor check`` processes: reference vs JSON file vs YAML file."""
    import subprocess
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="bench-ctl-"))
    variants = {"reference": f"grid:n={n}"}
    for suffix in ("json", "yaml"):
        path = folder / f"grid{n}.{suffix}"
        with console.status(f"writing {path.name} (untimed)"):
            subprocess.run([sys.executable, "-m", "bdi_monitor", "grid", "--size", str(n), "-o",
                            str(path)], cwd=ROOT, check=True, capture_output=True)
        variants[f"{suffix} file ({path.stat().st_size / 2**20:.1f} MB)"] = str(path)
    runs: dict[str, list[dict]] = {name: [] for name in variants}
    for rep in range(repeat):
        names = list(variants) if rep % 2 == 0 else list(variants)[::-1]
        for name in names:
            with console.status(f"bdi-monitor check {name} (run {rep + 1}/{repeat})"):
                result = measured([sys.executable, "-m", "bdi_monitor", "check", variants[name],
                                   *PROPERTIES, "--json"], timeout)
            if result["killed"]:
                continue
            record = json.loads(result["stdout"])
            runs[name].append({"wall": result["wall"], "rss": result["rss"],
                               "load": record["seconds"]["load"],
                               "verdicts": [p["holds"] for p in record["properties"]],
                               "nodes": record["reachable_nodes"]})
    rows = []
    for name, records in runs.items():
        if records:
            rows.append({"model": name, "n": n, **_median_record(records)})
        else:
            rows.append({"model": name, "n": n, "wall": None, "rss": None, "load": None,
                         "verdicts": None, "nodes": None})
    return rows


def bench_load(sizes: list[int], worlds: int, repeat: int, timeout: float, console
               ) -> list[dict]:
    """The grid generator's share of ``bdi-monitor check grid:n=N,worlds=W`` (its ``load``
    seconds, in fresh processes, sizes alternating), median per size."""
    import statistics

    runs: dict[int, list[float]] = {n: [] for n in sizes}
    for rep in range(repeat):
        for n in (sizes if rep % 2 == 0 else sizes[::-1]):
            with console.status(f"bdi-monitor check grid:n={n},worlds={worlds} "
                                f"(run {rep + 1}/{repeat})"):
                result = measured([sys.executable, "-m", "bdi_monitor", "check",
                                   f"grid:n={n},worlds={worlds}", PROPERTIES[0], "--json"],
                                  timeout)
            if not result["killed"] and result["rc"] in (0, 1):
                runs[n].append(json.loads(result["stdout"])["seconds"]["load"])
    return [{"n": n, "worlds": worlds, "load": statistics.median(v) if v else None}
            for n, v in runs.items()]


def load_rows(loads: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Load seconds per size; ratio = load(n) / load(smallest n)."""
    base = loads[0]["load"]
    header = ["n", "worlds", "load s", f"load / load(n={loads[0]['n']})"]
    rows = [[str(r["n"]), str(r["worlds"]), _fmt(r["load"], 3),
             f"{r['load'] / base:.2f}" if r["load"] and base else "-"] for r in loads]
    return header, rows


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":  # a measured run: nothing else imported
        print(json.dumps(_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
        return 0
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[16, 32, 64, 128, 256, 512, 1024])
    parser.add_argument("--worlds", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--repeat", type=int, default=1, help="runs per tool and size (median)")
    parser.add_argument("--tools", default="ours,tables,numpy,nusmv",
                        help=f"comma-separated, from {', '.join(TOOLS)} (ours is always run)")
    parser.add_argument("--budget", type=float, default=300.0,
                        help="skip a tool at sizes its growth predicts to take longer (s)")
    parser.add_argument("--timeout", type=float, default=600.0, help="per run (s)")
    parser.add_argument("--cli", type=int, default=64, metavar="N",
                        help="whole-process CLI comparison at size N (0: skip)")
    parser.add_argument("--load", type=int, nargs="*", default=[512, 2048], metavar="N",
                        help="the grid generator's load seconds at these sizes (8 worlds), "
                             "ratio to the first; none: skip")
    parser.add_argument("--nusmv", metavar="PATH",
                        help="the NuSMV executable for the nusmv peer (default: NuSMV on PATH)")
    parser.add_argument("--markdown", help="also write the tables as Markdown to this file")
    parser.add_argument("--json", help="also write the raw records to this file")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tool, n, worlds = args.child
        print(json.dumps(_child(tool, int(n), int(worlds))))
        return 0
    from rich.console import Console

    tools = ["ours"] + [t for t in args.tools.split(",") if t and t != "ours"]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        parser.error(f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(TOOLS)}")
    console = Console(width=max(Console().width, 180))
    if "nusmv" in tools:
        from nusmv_peer import find_nusmv

        args.nusmv = find_nusmv(args.nusmv)
        if args.nusmv is None:
            console.print("NuSMV not found (give --nusmv PATH or put NuSMV on PATH): "
                          "the NuSMV peer is skipped")
            tools.remove("nusmv")
    results = bench_sizes(args, tools, console)
    if results is None:
        return 1
    sections = []
    header, rows = growth_rows(results)
    show(console, "symbolic checker, grid beer robot, phi1 + phi2 (medians)", header, rows)
    sections.append(markdown(header, rows))
    if "nusmv" in tools:
        header, rows = nusmv_rows(results)
        show(console, "NuSMV, same product and order (whole processes; ratio = NuSMV / ours)",
             header, rows)
        sections.append(markdown(header, rows))
    if [t for t in tools if t not in ("ours", "nusmv")]:
        header, rows = comparison_rows(results, tools)
        show(console, "peers, same product and verdicts (in-process s; ratio = peer / ours)",
             header, rows)
        sections.append(markdown(header, rows))
    if "numpy" in tools:
        header, rows = numpy_rows(results)
        show(console, "numpy explicit-state peer", header, rows)
        sections.append(markdown(header, rows))
    cli = bench_cli(args.cli, args.repeat, args.timeout, console) if args.cli else []
    if cli:
        header = ["model", "n", "process s", "of which load s", "RSS MiB", "verdicts"]
        rows = [[c["model"], str(c["n"]), _fmt(c["wall"]), _fmt(c["load"]), _fmt(c["rss"], 0),
                 _verdicts(c["verdicts"]) if c["verdicts"] else "timeout"] for c in cli]
        show(console, "bdi-monitor check, whole process (4 worlds)", header, rows)
        sections.append(markdown(header, rows))
        if len({tuple(c["verdicts"]) for c in cli if c["verdicts"]}) > 1:
            console.print("[red]CLI verdicts differ[/]")
            return 1
    loads = bench_load(args.load, 8, args.repeat, args.timeout, console) if args.load else []
    if loads:
        header, rows = load_rows(loads)
        show(console, "grid generator: bdi-monitor check grid:n=N,worlds=8, load (medians)",
             header, rows)
        sections.append(markdown(header, rows))
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join(sections) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"sizes": results, "cli": cli, "load": loads},
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
