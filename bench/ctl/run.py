"""CTL-BDI model checking benchmark: the grid beer robot, growing n.

    python bench/ctl/run.py [--sizes 8 16 32 64 128] [--budget 60] [--peer-timeout 150]

For every grid size: product nodes, BDD variables, peak live BDD nodes, and the seconds for
building the structure, encoding it, computing the reachable set and checking phi1 and phi2
with the symbolic checker; then pyModelChecking on the explicit tagged-edge product
(bdi_monitor/pmc_bridge.py), in a subprocess with a timeout, and the ratio of its time to ours.
Sizes stop growing before one predicted (from the growth so far) to need more than --budget
seconds; the peer stops after its first timeout. Verdicts of the two must agree.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bdi_monitor.checker import Checker
from bdi_monitor.logic import parse
from bdi_monitor.models.beer import PHI1, PHI2
from bdi_monitor.models.grid import grid_structure
from bdi_monitor.symbolic import SymbolicModel

PROPERTIES = (PHI1, PHI2)


def ours(n: int, obstacles: str) -> dict:
    t0 = time.perf_counter()
    structure = grid_structure(n, obstacles=obstacles)
    t1 = time.perf_counter()
    model = SymbolicModel(structure)
    t2 = time.perf_counter()
    checker = Checker(model)
    t3 = time.perf_counter()
    verdicts = [checker.holds(parse(p)) for p in PROPERTIES]
    t4 = time.perf_counter()
    return {"n": n, "nodes": checker.count(), "vars": model.var_count,
            "peak": model.peak_nodes(), "generate": t1 - t0, "encode": t2 - t1,
            "reach": t3 - t2, "check": t4 - t3, "total": t4 - t0, "verdicts": verdicts}


def _peer(n: int, obstacles: str, queue: multiprocessing.Queue) -> None:
    from bdi_monitor.pmc_bridge import holds, tagged_kripke

    t0 = time.perf_counter()
    kripke = tagged_kripke(grid_structure(n, obstacles=obstacles))
    t1 = time.perf_counter()
    verdicts = [holds(kripke, parse(p)) for p in PROPERTIES]
    t2 = time.perf_counter()
    queue.put({"build": t1 - t0, "check": t2 - t1, "total": t2 - t0, "verdicts": verdicts,
               "states": len(kripke.nodes())})


def peer(n: int, obstacles: str, timeout: float) -> dict | None:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    process = multiprocessing.Process(target=_peer, args=(n, obstacles, queue), daemon=True)
    process.start()
    process.join(timeout)
    if process.is_alive():
        process.kill()
        process.join()
        return None
    return queue.get() if not queue.empty() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4, 8, 16, 32, 64, 128, 256, 512])
    parser.add_argument("--budget", type=float, default=60.0,
                        help="stop before a size predicted (from the growth so far) to take longer (s)")
    parser.add_argument("--peer-timeout", type=float, default=150.0)
    parser.add_argument("--obstacles", default="none")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 170))
    rows = []
    peer_alive = True
    table = Table("n", "product nodes", "BDD vars", "peak BDD nodes", "generate s", "encode s",
                  "reach s", "check s", "total s", "pyModelChecking s", "ratio", "verdicts")
    for n in args.sizes:
        with console.status(f"n = {n}: symbolic checker"):
            row = ours(n, args.obstacles)
        result = None
        if peer_alive:
            with console.status(f"n = {n}: pyModelChecking (timeout {args.peer_timeout:.0f} s)"):
                result = peer(n, args.obstacles, args.peer_timeout)
            peer_alive = result is not None
        row["peer"] = result
        if result and result["verdicts"] != row["verdicts"]:
            console.print(f"[red]verdicts differ at n = {n}: {row['verdicts']} vs "
                          f"{result['verdicts']}[/]")
            return 1
        verdicts = "/".join("T" if v else "F" for v in row["verdicts"])
        table.add_row(str(n), str(row["nodes"]), str(row["vars"]), str(row["peak"]),
                      f"{row['generate']:.2f}", f"{row['encode']:.2f}", f"{row['reach']:.2f}",
                      f"{row['check']:.2f}", f"{row['total']:.2f}",
                      f"{result['total']:.2f}" if result else "timeout" if n else "-",
                      f"{result['total'] / row['total']:.1f}×" if result else "-", verdicts)
        rows.append(row)
        console.print(f"n = {n}: {row['nodes']} nodes, {row['total']:.2f} s"
                      + (f", pyModelChecking {result['total']:.2f} s" if result else ""))
        growth = rows[-1]["total"] / rows[-2]["total"] if len(rows) > 1 else 4.0
        if row["total"] * max(growth, 1.0) > args.budget:
            break
    console.print(table)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
