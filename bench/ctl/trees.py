"""The grid benchmark's checker in two checkouts, side by side (before / after a change).

    git archive 434e865 | tar -x -C /tmp/old
    python bench/ctl/trees.py /tmp/old . --cases 32x4,64x4,256x4,32x8,64x8 [--repeat 3]

For every case NxWORLDS: both trees' ``grid_structure`` → ``SymbolicModel`` → ``Checker`` on phi1
and phi2, in fresh processes alternating between the trees, with wall time and peak RSS from
``wait4``; prints medians, the speed-up, and exits 1 if verdicts or product nodes differ.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PROPERTIES, markdown, measured

CHILD = """
import json, sys, time
from bdi_monitor.checker import Checker
from bdi_monitor.logic import parse
from bdi_monitor.models.grid import grid_structure
from bdi_monitor.symbolic import SymbolicModel
n, m = int(sys.argv[1]), int(sys.argv[2])
t0 = time.perf_counter()
model = SymbolicModel(grid_structure(n, worlds=m))
checker = Checker(model)
verdicts = [checker.holds(parse(p)) for p in json.loads(sys.argv[3])]
print(json.dumps({"nodes": checker.count(), "total": time.perf_counter() - t0,
                  "verdicts": verdicts}))
"""


def run(tree: str, n: int, worlds: int, timeout: float) -> dict | None:
    """One run of ``tree``'s checker (its folder first on the path and as the working
    directory, so its ``bdi_monitor`` is the one imported)."""
    root = Path(tree).resolve()
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(root)
    try:
        result = measured([sys.executable, "-c", CHILD, str(n), str(worlds),
                           json.dumps(PROPERTIES)], timeout, cwd=root)
    finally:
        if env_path is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_path
    if result["killed"] or result["rc"] != 0:
        return None
    record = json.loads(result["stdout"].strip().splitlines()[-1])
    record["rss"] = result["rss"]
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="checkout before the change (a directory)")
    parser.add_argument("after", help="checkout after the change (a directory)")
    parser.add_argument("--cases", default="32x4,64x4,128x4,256x4,32x8,64x8,128x8",
                        help="comma-separated NxWORLDS")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    header = ["n", "worlds", "product nodes", "before s", "before RSS MiB", "after s",
              "after RSS MiB", "speed-up"]
    rows = []
    for case in args.cases.split(","):
        n, worlds = (int(part) for part in case.split("x"))
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for rep in range(args.repeat):
            for name in (("before", "after") if rep % 2 == 0 else ("after", "before")):
                record = run(getattr(args, name), n, worlds, args.timeout)
                if record is not None:
                    runs[name].append(record)
        if not runs["before"] or not runs["after"]:
            rows.append([str(n), str(worlds), "-", *(["timeout"] * 5)])
            continue
        first = {name: records[0] for name, records in runs.items()}
        if (first["before"]["verdicts"], first["before"]["nodes"]) != \
                (first["after"]["verdicts"], first["after"]["nodes"]):
            print(f"checkouts disagree at {case}: {first}", file=sys.stderr)
            return 1
        median = {name: (statistics.median(r["total"] for r in records),
                         statistics.median(r["rss"] for r in records))
                  for name, records in runs.items()}
        rows.append([str(n), str(worlds), str(first["after"]["nodes"]),
                     f"{median['before'][0]:.2f}", f"{median['before'][1]:.0f}",
                     f"{median['after'][0]:.2f}", f"{median['after'][1]:.0f}",
                     f"{median['before'][0] / median['after'][0]:.0f}×"])
        print(" | ".join(rows[-1]), flush=True)
    print(markdown(header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
