"""Terminal presentation of synthesis: a live status line while solving, a result table after."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table

from bdi_supervisor.common import AuditVerdict, Realizability
from bdi_supervisor.display import counted, output_console, print_table, say, valuation
from bdi_supervisor.synthesis.result import SynthesisResult

_STYLE = {Realizability.REALIZABLE: "bold green", Realizability.UNREALIZABLE: "bold red"}


#: what a pipeline stage or a solver phase is doing, as the status line shows it
PHASES = {"spec": "spec generation", "well_separation": "well-separation",
          "synthesis": "synthesis", "encoding": "encoding",
          "realizability": "realizability fixpoint", "diagnosis": "unrealizability diagnosis",
          "extraction": "strategy extraction", "explain": "explanation",
          "audit": "audit and reduction", "realize": "realization"}
#: seconds before the status appears (quick runs print only their result)
STATUS_DELAY = 1.0


class SynthesisStatus:
    """A live status line fed by the pipeline's and the solver's progress events.

    It shows the phase, the outer pass, goal and Y level (of as many as the goal had in the
    last pass), the ``cpre`` steps and the live BDD nodes from the first ``cpre`` step on, and
    the elapsed time (ticking between events; of about ``expected`` seconds when the last run
    of the same configuration took that long). It stays on one line at any width: the least
    telling parts go first where the terminal is narrow. It appears only once the work has
    taken :data:`STATUS_DELAY` seconds and is transient (gone when the work ends).
    """

    def __init__(self, name: str, console: Console, delay: float = STATUS_DELAY,
                 expected: float | None = None) -> None:
        self.name = name
        self.console = console
        self.expected = expected
        self.phase = "starting"
        self.fields: dict = {}
        self.started = time.monotonic()
        self.spinner = Spinner("dots")
        self._live: Live | None = None
        self._lock = threading.Lock()
        self._stopped = False
        self._timer = threading.Timer(delay, self._start)
        self._timer.daemon = True

    def __call__(self, event: dict) -> None:
        step = event.get("stage") or event.get("phase")
        if step is not None:  # a pipeline stage or a solver phase begins
            self.phase = PHASES.get(step, step)
            if step != "extraction":  # extraction keeps the fixpoint's last counts
                self.fields = {}
        elif "working" in event:  # a cpre step of the realizability fixpoint begins
            self.fields = event["working"]
        elif "pass" in event:  # a Y level of the realizability fixpoint ended
            self.fields = event

    def text(self, width: int | None = None) -> str:
        """The status line (without the spinner), at most ``width`` characters wide."""
        f = self.fields
        elapsed = time.monotonic() - self.started
        clock = f"{elapsed:.1f} s" + (f" of ~{self.expected:.0f} s" if self.expected else "")
        # (part, rank): where the line is too wide the highest ranks go first
        parts = [(self.name, 3), (self.phase, 0)]
        if "pass" in f:
            of = f"/~{f['last_levels']}" if f.get("last_levels") else ""
            parts += [(f"pass {f['pass']}", 1), (f"goal {f['goal'] + 1}/{f['goals']}", 4),
                      (f"Y level {f['level'] + 1}{of}", 1),
                      (f"{compact(f['x_iterations'])} cpre steps", 5)]
        if f.get("live_nodes") is not None:
            parts.append((f"{compact(f['live_nodes'])} live nodes", 2))
        parts.append((clock, 0))
        for rank in (5, 4, 3, 2, 1):
            if width is None or len(" · ".join(p for p, _ in parts)) <= width:
                break
            parts = [(p, r) for p, r in parts if r != rank]
        line = " · ".join(p for p, _ in parts)
        return line if width is None or len(line) <= width else line[:max(width - 1, 0)] + "…"

    def __rich__(self) -> Spinner:
        self.spinner.update(text=self.text(self.console.width - 3))
        return self.spinner

    def __enter__(self) -> SynthesisStatus:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._stopped = True
            self._timer.cancel()
            if self._live is not None:
                self._live.stop()

    def _start(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._live = Live(self, console=self.console, refresh_per_second=4, transient=True)
            self._live.start()


def compact(number: int) -> str:
    """A count people read at a glance: ``9,876``, ``123.5k``, ``98.8M``."""
    if number < 10_000:
        return f"{number:,}"
    if number < 1_000_000:
        return f"{number / 1000:.1f}k"
    return f"{number / 1_000_000:.1f}M"


@contextlib.contextmanager
def solving_status(name: str, quiet: bool = False, expected: float | None = None) -> Iterator:
    """A :class:`SynthesisStatus` on stderr (its progress callback), or None when ``quiet`` or
    when stderr is not a terminal; ``expected``: seconds the last run took, if known."""
    console = output_console(stderr=True)
    if quiet or not console.is_terminal:
        yield None
        return
    with SynthesisStatus(name, console, expected=expected) as status:
        yield status


def last_run_seconds(folder: Path) -> float | None:
    """The seconds the stages of the run saved in ``folder`` took (its ``summary.json``), when
    there is one: an estimate of this run's. Anything unreadable is no estimate."""
    try:
        with open(folder / "summary.json", encoding="utf-8") as stream:
            summary = json.loads(stream.read(1 << 20))
        seconds = sum(float(stage["seconds"]) for stage in summary["stages"])
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return seconds if seconds > STATUS_DELAY else None


def stage_lines(status: SynthesisStatus | None, console: Console):
    """A progress callback that prints each pipeline stage's line (``spec: OK (0.012 s)``) as
    the stage ends and passes every event on to ``status``."""

    def on_event(event: dict) -> None:
        record = event.get("finished")
        if record is not None:
            console.print(f"[bold]{record.name}[/]: {record.status} ({record.seconds:.3f} s)")
        elif status is not None:
            status(event)

    return on_event


def print_result(result: SynthesisResult, console: Console | None = None) -> None:
    """Verdict, failure or strategy size, and the metrics table."""
    console = console or output_console()
    style = _STYLE.get(result.status, "bold yellow")
    console.print(f"[{style}]{result.status}[/] {result.spec_name}")
    if result.failure:
        failure = result.failure
        console.print(f"  failure level: [bold]{failure.level}[/] — {failure.message}")
        if failure.goal_origin:
            console.print(f"  guarantee: {failure.goal_origin}")
        if failure.env_initial is not None:
            console.print(f"  losing initial input: {valuation(failure.env_initial)}")
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
    print_table(table, console)


def print_audit_warnings(warnings: list[dict], where: str, console: Console | None = None) -> None:
    """One line per audited strategy with warnings (kind × count), the first message, and
    where to read them all (``where``)."""
    if not warnings:
        return
    console = console or output_console()
    by_strategy: dict[str, Counter] = {}
    for warning in warnings:
        by_strategy.setdefault(warning["strategy"], Counter())[warning["kind"]] += 1
    total = len(warnings)
    console.print(f"[bold yellow]audit: {counted(total, 'warning')}[/] "
                  "(not defects: the supervisor is deployable)")
    for label, kinds in by_strategy.items():
        say(console, f"{label} strategy: "
            + ", ".join(f"{kind} ×{count}" for kind, count in kinds.items()), 2)
    say(console, f"e.g. {warnings[0]['message']}", 2)
    say(console, f"all of them: {where}", 2)


def print_audit_failure(found: list, where: str, closer: str | None,
                        console: Console | None = None) -> None:
    """Why a supervisor is not deployable: per audited strategy the defect kinds with their
    counts, one example state of each kind in the mission's terms
    (:class:`~bdi_supervisor.audit.findings.Findings`), where the record lists them all
    (``where``) and the command that pictures them (``closer``)."""
    failed = [f for f in found if f.verdict != AuditVerdict.PASS]
    if not failed:
        return
    console = console or output_console()
    for item in failed:
        kinds = ", ".join(f"{kind} ×{count}" for kind, count in item.counts.items())
        console.print(f"[bold red]audit {item.verdict}[/]: the {item.strategy} strategy is not "
                      "deployable" + (f": {kinds}" if kinds else ""))
        if item.incomplete_reason:
            say(console, item.incomplete_reason, 2)
        for example in item.examples:
            at = f" at state {example.state}" if example.state is not None else ""
            say(console, f"e.g. {example.kind}{at}: {example.message}", 2)
            if example.there:
                say(console, f"there: {example.there}", 4)
            if example.path:
                say(console, f"reached by: {example.path}", 4)
            if example.runs:
                again = " again and again, and cannot leave" if example.repeats else ""
                if example.leaves:
                    again = (" again and again while every outcome succeeds; the goal "
                             f"comes back only after {example.leaves}")
                say(console, f"it runs {example.runs}{again}", 4)
    say(console, f"listed in: {where}", 2, copyable=True)
    if closer:
        say(console, f"look closer: {closer}", 2, copyable=True)
