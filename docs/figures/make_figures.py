"""Regenerate the pictures of the docs from the shipped missions.

    python docs/figures/make_figures.py          # needs Graphviz's dot and matplotlib (reports)

Each picture is what a command of the suite draws (``synthesize --draw``, ``explain --draw``),
copied here as SVG, except the monitor timeline, which this script plots from ``run --json``:

- ``two_rivers_traps.svg``: the raw Fair-Outcome + pending strategy of Two-Rivers, its
  goal-unreachable traps filled red and the way there in bold red;
- ``vending_reduced.svg`` and ``vending_behavior.svg``: the reduced supervisor of the extended
  vending machine and its FlexBE behavior as FlexBE's editor shows it;
- ``goat_stays_counter_strategy.svg``: the environment's counter-strategy of the unrealizable
  ``two_rivers_goat_stays``, with its core;
- ``beer_monitor_timeline.png``: the CTL-BDI monitor's verdicts over a beer-robot run in which
  bringing the beer fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: picture here ← (the command's arguments, the file it draws in its output folder)
DRAWN = {
    "two_rivers_traps.svg": (["synthesize", "two_rivers", "--liveness", "fair-outcome",
                              "--pending", "--draw"], "two_rivers/one-hot-FP/strategy_raw.svg"),
    "vending_reduced.svg": (["synthesize", "vending_extended", "--draw"],
                            "vending_extended/one-hot-SP/strategy_reduced.svg"),
    "vending_behavior.svg": (["synthesize", "vending_extended", "--draw"],
                             "vending_extended/one-hot-SP/behavior_machine.svg"),
}
#: the monitor timeline's run: bringing the beer fails
BEER_RUN = ["run", "beer_robot", "--json", "--force", "bring_beer=failure"]
COLORS = {"true": "#66bb6a", "false": "#ef5350", "inconclusive": "#bdbdbd"}


def suite(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``bdi-supervisor ARGS`` with this interpreter, in ``cwd``."""
    return subprocess.run([sys.executable, "-m", "bdi_supervisor", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def drawn(work: Path) -> None:
    """The pictures the commands draw, copied here."""
    for name, (args, picture) in DRAWN.items():
        suite(*args, "--out", str(work), cwd=work)  # exit 1 for the traps: a negative verdict
        shutil.copyfile(work / picture, HERE / name)
        print(f"wrote {HERE / name}")
    base = work / "goat_stays"
    suite("explain", "two_rivers_goat_stays", "--draw", str(base), cwd=work)
    shutil.copyfile(base.with_suffix(".svg"), HERE / "goat_stays_counter_strategy.svg")
    print(f"wrote {HERE / 'goat_stays_counter_strategy.svg'}")


def timeline(record: dict, path: Path) -> Path:
    """The monitor's verdict per property over the run's steps (``run --json``'s record):
    one row per property, coloured by its verdict from the launch check on."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    monitor = record["monitor"]
    run = record["result"]["steps"]
    steps = len(run)
    names = [row["property"] for row in monitor["launch"]]
    figure, axis = plt.subplots(figsize=(8, 0.45 * len(names) + 1.6))
    for row, name in enumerate(names):
        changes = [c for c in monitor["changes"] if c["property"] == name]
        value = changes[0]["old"] if changes else next(
            r["value"] for r in monitor["launch"] if r["property"] == name)
        start = 0.0
        for change in changes:
            at = change["step"] + 1.0  # after the outcome of that step
            axis.broken_barh([(start, at - start)], (row - 0.35, 0.7),
                             color=COLORS.get(value, "#90caf9"))
            start, value = at, change["new"]
        axis.broken_barh([(start, steps - start)], (row - 0.35, 0.7),
                         color=COLORS.get(value, "#90caf9"))
    axis.set_yticks(range(len(names)), names, fontsize=8)
    axis.set_xlim(0, steps)
    axis.set_xticks([k + 0.5 for k in range(steps)],
                    [f"{s['capability']}\n{s['outcome']}" for s in run], fontsize=7)
    axis.set_xlabel("the run's steps: capability and outcome")
    axis.set_title(f"{record['mission']}: CTL-BDI verdicts during the run", fontsize=10)
    axis.legend(handles=[Patch(color=c, label=v) for v, c in COLORS.items()], fontsize=8,
                loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
    return path


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        drawn(work)
        done = suite(*BEER_RUN, cwd=work)
        print(f"wrote {timeline(json.loads(done.stdout), HERE / 'beer_monitor_timeline.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
