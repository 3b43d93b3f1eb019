"""The sweep driver: run the trials that have no row yet, on a backend, appending each result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from bdi_supervisor.common import StageStatus
from bdi_supervisor.display import output_console
from bdi_supervisor.sweep.backends import Backend, Job
from bdi_supervisor.sweep.grid import Sweep
from bdi_supervisor.sweep.store import ResultStore
from bdi_supervisor.sweep.trial import run_trial

RESULTS_FILE = "results.jsonl"


@dataclass
class SweepOutcome:
    results: Path
    total: int
    skipped: int
    ran: int
    errors: int


def run_sweep(sweep: Sweep, out_dir: str | Path, backend: Backend, *,
              job: Job = run_trial, show_progress: bool = True,
              console: Console | None = None,
              on_row: Callable[[dict], None] | None = None) -> SweepOutcome:
    """Run every trial of ``sweep`` whose key is not yet in ``out_dir/results.jsonl``."""
    results = Path(out_dir) / RESULTS_FILE
    with ResultStore(results) as store:  # locked: a second sweep on this folder is refused
        todo = [t.params for t in sweep.trials if t.key not in store.done]
        outcome = SweepOutcome(results, len(sweep.trials), len(sweep.trials) - len(todo), 0, 0)
        progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=console or output_console(stderr=True),
            disable=not show_progress)
        with progress:
            task = progress.add_task(f"sweep {sweep.name}", total=len(sweep.trials),
                                     completed=outcome.skipped, last="")
            for _, row in backend.map_unordered(job, todo):
                store.append(row)
                outcome.ran += 1
                outcome.errors += row.get("status") == StageStatus.ERROR
                if on_row is not None:
                    on_row(row)
                progress.update(task, advance=1,
                                last=f"{row.get('mission_name', '?')} {row.get('config', '')} "
                                     f"{row.get('synthesis.status', row.get('status', ''))}")
    return outcome
