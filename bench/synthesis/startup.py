"""Start-up benchmark: ``bdi-supervisor --help``, ``bdi-monitor --help`` and ``solve SMALL
--json`` against a bare interpreter.

    python bench/synthesis/startup.py [--repeat N] [--spec SMALL.structuredslugs]

Runs ``python -c pass``, ``python -m bdi_supervisor --help``, ``python -m bdi_monitor --help``
and ``python -m bdi_supervisor solve SPEC --json`` alternately ``--repeat`` times (default 15)
in fresh interpreters and prints the median wall and CPU (user + system) time of each, its
ratio to the bare interpreter and its peak RSS. CPU time is the steadier figure on a loaded
machine. When a ``slugs`` executable is on PATH (or given with ``--slugs``), ``slugs
SPEC.slugsin`` on the same spec is measured in the same rounds, for scale. The default spec is
the coffee mission in its one-hot system-goal configuration. The children run with bytecode
caching on (a set ``PYTHONDONTWRITEBYTECODE`` would make every run compile every module) after
one warm-up round.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from processes import child_env, run_process  # noqa: E402

from bdi_supervisor.spec.io import format_spec, load_spec  # noqa: E402


def _measure(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one run of ``command``
    (which must succeed)."""
    run = run_process(command)
    if run["code"] not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{run['output']}")
    return run["wall"], run["cpu"], run["rss_mib"]


def _small_spec(folder: Path) -> Path:
    path = folder / "coffee.structuredslugs"
    subprocess.run([sys.executable, "-m", "bdi_supervisor", "spec",
                    str(ROOT / "config" / "missions" / "coffee.yaml"), "--encoding", "one-hot",
                    "--liveness", "system-goal", "--no-pending", "-o", str(path)],
                   env=child_env(), check=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--spec", help="the small spec to solve (default: coffee one-hot S)")
    parser.add_argument("--slugs", help="the slugs executable (default: slugs on PATH)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(args.spec) if args.spec else _small_spec(Path(folder))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "bdi-supervisor --help": [sys.executable, "-m", "bdi_supervisor", "--help"],
            "bdi-monitor --help": [sys.executable, "-m", "bdi_monitor", "--help"],
            "bdi-supervisor solve --json": [sys.executable, "-m", "bdi_supervisor", "solve",
                                            str(spec), "--json"],
        }
        slugs = args.slugs or shutil.which("slugs")
        if slugs:
            slugsin = Path(folder) / "small.slugsin"
            slugsin.write_text(format_spec(load_spec(spec), "slugsin"))
            commands["slugs (peer)"] = [slugs, str(slugsin)]
        for command in commands.values():  # warm-up: bytecode caches written
            _measure(command)
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                runs[name].append(_measure(command))
    base_wall, base_cpu = (statistics.median(r[i] for r in runs["python -c pass"])
                           for i in (0, 1))
    print(f"| command | wall ms (median of {args.repeat}) | × bare | CPU ms | × bare | "
          "peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    for name, measured in runs.items():
        wall, cpu = (statistics.median(r[i] for r in measured) for i in (0, 1))
        rss = max(r[2] for r in measured)
        print(f"| `{name}` | {wall * 1000:.0f} | {wall / base_wall:.2f} | {cpu * 1000:.0f} | "
              f"{cpu / base_cpu:.2f} | {rss:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
