"""Start-up benchmark: ``bdi-supervisor --help`` and ``solve SMALL --json`` against a bare interpreter.

    python bench/synthesis/startup.py [--repeat N] [--spec SMALL.structuredslugs]

Runs ``python -c pass``, ``python -m bdi_supervisor --help`` and ``python -m bdi_supervisor
solve SPEC --json`` alternately ``--repeat`` times (default 15) in fresh interpreters and prints
the median wall and CPU (user + system) time of each and its ratio to the bare interpreter.
CPU time is the steadier figure on a loaded machine. The default spec is the coffee mission in
its one-hot system-goal configuration. The children run with bytecode caching on (a set
``PYTHONDONTWRITEBYTECODE`` would make every run compile every module) after one warm-up round.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    return env


def _measure(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _small_spec(folder: Path) -> Path:
    path = folder / "coffee.structuredslugs"
    subprocess.run([sys.executable, "-m", "bdi_supervisor", "spec",
                    str(ROOT / "config" / "missions" / "coffee.yaml"), "--encoding", "one-hot",
                    "--liveness", "system-goal", "--no-pending", "-o", str(path)],
                   env=_child_env(), check=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--spec", help="the small spec to solve (default: coffee one-hot S)")
    args = parser.parse_args()
    env = _child_env()
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(args.spec) if args.spec else _small_spec(Path(folder))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "bdi-supervisor --help": [sys.executable, "-m", "bdi_supervisor", "--help"],
            "bdi-supervisor solve --json": [sys.executable, "-m", "bdi_supervisor", "solve",
                                            str(spec), "--json"],
        }
        for command in commands.values():  # warm-up: bytecode caches written
            _measure(command, env)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                wall, cpu = _measure(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    base_wall = statistics.median(walls["python -c pass"])
    base_cpu = statistics.median(cpus["python -c pass"])
    print(f"| command | wall ms (median of {args.repeat}) | × bare | CPU ms | × bare |")
    print("|---|---|---|---|---|")
    for name in commands:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"| `{name}` | {wall * 1000:.0f} | {wall / base_wall:.2f} | {cpu * 1000:.0f} | "
              f"{cpu / base_cpu:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
