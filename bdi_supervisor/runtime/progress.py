"""How a run looks to people: a live progress view (rich) and the printed timeline."""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from bdi_supervisor.display import fit_columns, output_console, plain, print_table
from bdi_supervisor.runtime.executor import RunResult

_STYLE = {"completed": "green", "failure": "red"}


def _params(parameters: dict[str, Any]) -> str:
    return ", ".join(f"{k}={plain(v)}" for k, v in parameters.items()
                     if k not in ("outcomes", "hint"))


class ProgressView:
    """A BDI-record callback that keeps a live panel: current state, capability, last outcomes."""

    def __init__(self, console: Console | None = None, history: int = 8) -> None:
        self.console = console or output_console(stderr=True)
        self.history: deque[dict[str, Any]] = deque(maxlen=history)
        self.current: dict[str, Any] | None = None
        self.live = Live(self._render(), console=self.console, refresh_per_second=8,
                         transient=True)

    def __enter__(self) -> ProgressView:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(*exc)

    def __call__(self, record: dict[str, Any]) -> None:
        if record["event"] == "activate":
            self.current = record
        elif record["event"] == "outcome" and record["last_outcome"]:
            self.history.append(record["last_outcome"])
        self.live.update(self._render())

    def _render(self) -> Group:
        head = Text("starting…")
        if self.current is not None:
            intention = self.current["intention"]
            head = Text.assemble(
                ("▶ ", "bold"), (self.current["strategy_state"]["machine_state"], "bold cyan"),
                "  ", (intention["capability"], "bold"), f"({_params(intention['parameters'])})",
                f"  attempt {intention['attempt']}")
        table = Table(box=None, show_header=True, header_style="dim")
        for column in ("step", "state", "outcome", "next", "reason"):
            table.add_column(column)
        for item in self.history:
            forced = f" [{item.get('layer')}]" if item.get("forced") else ""  # as the timeline
            table.add_row(str(item["step"]), item["state"],
                          Text(item["outcome"] + forced, _STYLE.get(item["outcome"], "yellow")),
                          str(item["next"]), item.get("reason") or "")
        if self.history:
            fit_columns(table, self.console.width, drop=("next", "state"))
        return Group(head, table)


#: the timeline's columns a narrow terminal leaves out first: timing first, outcome last
TIMELINE_DROP = ("s", "parameters", "capability", "→ next", "state", "reason", "outcome")


def timeline_table(result: RunResult, title: str = "") -> Table:
    """The run's steps as a table (recoveries highlighted, forced outcomes marked)."""
    table = Table(title=title or None, header_style="bold")
    for column in ("#", "state", "capability", "parameters", "outcome", "→ next", "reason", "s"):
        table.add_column(column, no_wrap=column in ("#", "state", "s"))
    for step in result.steps:
        outcome = step.outcome
        label = outcome.outcome + (f" [{outcome.layer}]" if outcome.forced else "")
        table.add_row(str(step.step), step.state, step.capability, _params(step.parameters),
                      Text(label, _STYLE.get(outcome.outcome, "yellow")), plain(step.next),
                      plain(outcome.reason or None), f"{step.duration:.2f}")
    return table


class StepLines:
    """A BDI-record callback that prints each step as it ends, one line each (an operator
    session: the answers and what they led to, as they come)."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or output_console()

    def __call__(self, record: dict[str, Any]) -> None:
        item = record.get("last_outcome") if record.get("event") == "outcome" else None
        if not item:
            return
        layer = f" [{item.get('layer')}]" if item.get("forced") else ""
        reason = f"  ({item['reason']})" if item.get("reason") else ""
        self.console.print(Text.assemble(
            f"#{item['step']} {item['state']}: ",
            (f"{item['outcome']}{layer}", _STYLE.get(item["outcome"], "yellow")),
            f" → {plain(item.get('next'))}{reason}"))


def print_result(result: RunResult, console: Console | None = None, title: str = "",
                 timeline: bool = True) -> None:
    """The timeline (a plain-text table when piped; left out with ``timeline`` off) and a
    status line."""
    console = console or output_console()
    if timeline:
        print_table(timeline_table(result, title), console, drop=TIMELINE_DROP)
    style = "green" if result.goal_reached else "red"
    recoveries = len(result.recoveries())
    ending = f"  outcome: {result.sm_outcome}" if result.sm_outcome is not None else ""
    console.print(Text.assemble(
        ("status: ", "bold"), (result.status, f"bold {style}"),
        f"{ending}  steps: {len(result.steps)}  recoveries: {recoveries}",
        f"  ({result.reason})" if result.reason else ""))
