"""Terminal presentation of synthesis: a live status line while solving, a result table after."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from rich.console import Console
from rich.table import Table

from bdi_supervisor.synthesis.result import REALIZABLE, UNREALIZABLE, SynthesisResult

_STYLE = {REALIZABLE: "bold green", UNREALIZABLE: "bold red"}


@contextlib.contextmanager
def solving_status(name: str, quiet: bool = False) -> Iterator:
    """A rich status spinner on stderr fed by the solver's progress callback."""
    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield None
        return
    started = time.monotonic()
    with console.status(f"solving {name}…") as status:
        def progress(event: dict) -> None:
            elapsed = time.monotonic() - started
            if event.get("stage") == "extract":
                status.update(f"{name}: extracting the explicit strategy… ({elapsed:.1f} s)")
                return
            status.update(
                f"{name}: outer pass {event['pass']}, goal {event['goal'] + 1}/{event['goals']}, "
                f"Y level {event['level']}, {event['x_iterations']} cpre steps ({elapsed:.1f} s)")

        yield progress


def print_result(result: SynthesisResult, console: Console | None = None) -> None:
    """Verdict, failure or strategy size, and the metrics table."""
    console = console or Console()
    style = _STYLE.get(result.status, "bold yellow")
    console.print(f"[{style}]{result.status}[/] {result.spec_name}")
    if result.failure:
        failure = result.failure
        console.print(f"  failure level: [bold]{failure.level}[/] — {failure.message}")
        if failure.goal_origin:
            console.print(f"  guarantee: {failure.goal_origin}")
        if failure.env_initial is not None:
            console.print(f"  losing initial input: {failure.env_initial}")
    if result.incomplete_reason:
        console.print(f"  {result.incomplete_reason}")
    m = result.metrics
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows = [
        ("inputs / bits", f"{m.inputs} / {m.input_bits}"),
        ("outputs / bits", f"{m.outputs} / {m.output_bits}"),
        ("formulas (ei si et st el sl)", " ".join(str(m.formulas.get(k, 0)) for k in (
            "env_init", "sys_init", "env_safety", "sys_safety", "env_liveness", "sys_liveness"))),
        ("BDD variables", str(m.bdd_variables)),
        ("peak / live nodes", f"{m.peak_nodes} / {m.live_nodes}"),
        ("fixpoint passes / Y levels / cpre", f"{m.z_passes} / {m.y_levels} / {m.x_iterations}"),
        ("realizability s", f"{m.realizability_seconds:.4f}"),
        ("extraction s", f"{m.extraction_seconds:.4f}"),
    ]
    if result.strategy is not None:
        rows.append(("strategy states / transitions",
                     f"{m.strategy_states} / {m.strategy_transitions}"))
    for row in rows:
        table.add_row(*row)
    console.print(table)
