"""The monitor beside a run: a BDI-record callback, live change lines, tables and JSON.

Used by ``bdi-supervisor run`` (the monitor is on when the mission has ``properties``) and by
``bdi-monitor replay``.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bdi_monitor.monitor import Change, Monitor
from bdi_supervisor.display import print_table

STYLE = {"true": "green", "false": "red", "inconclusive": "yellow", "out_of_model": "magenta"}


class LiveMonitor:
    """Feeds records to ``monitor``, keeps every verdict change with the step it happened at and
    prints each change at once on ``console`` (above a live progress view, if one runs)."""

    def __init__(self, monitor: Monitor, console: Console | None = None) -> None:
        self.monitor = monitor
        self.console = console
        self.changes: list[tuple[Change, int | None]] = []
        self._step: int | None = None
        monitor.on_change = self._changed
        self.latencies_ns: list[int] = []

    def __call__(self, record: dict[str, Any]) -> None:
        last = record.get("last_outcome") if isinstance(record, dict) else None
        self._step = last.get("step") if isinstance(last, dict) else None
        self.monitor.feed(record)
        if self.monitor.last_latency_ns is not None and len(self.latencies_ns) < 100_000:
            self.latencies_ns.append(self.monitor.last_latency_ns)

    def _changed(self, change: Change) -> None:
        self.changes.append((change, self._step))
        if self.console is not None:
            self.console.print(change_line(change, self._step))

    # -- reports ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return report(self.monitor, self.changes, self.latencies_ns)

    def print_summary(self, console: Console) -> None:
        print_table(verdict_table(self.monitor, self.changes), console)
        counters = self.monitor.counters()
        anomalies = {k: v for k, v in counters.items()
                     if k not in ("received", "accepted", "runs")}
        if anomalies:
            console.print("monitor counted: " + ", ".join(f"{k} {v}"
                                                          for k, v in sorted(anomalies.items())))


def change_line(change: Change, step: int | None = None) -> Text:
    where = f"seq {change.seq}" if change.seq is not None else f"message {change.index}"
    if step is not None:
        where += f", step {step}"
    return Text.assemble(("◆ ", "bold"), (change.property, "bold"), ": ",
                         (change.old or "-", STYLE.get(change.old or "", "")), " → ",
                         (change.new, f"bold {STYLE.get(change.new, '')}"),
                         f"  at {where} ({change.reason})")


def verdict_table(monitor: Monitor, changes: list[tuple[Change, int | None]]) -> Table:
    """Per property: launch verdict (actual world), current runtime verdict, when it last
    changed and the worlds it holds in."""
    table = Table(title="CTL-BDI monitor", header_style="bold")
    for column in ("property", "formula", "launch", "now", "changed at", "holds in worlds"):
        table.add_column(column)
    launch = {v.property: v for v in monitor.launch_verdicts()}
    holds_in = {r.property.name: len(r.holds_in) for r in monitor.launch}
    worlds = len(monitor.model.structure.worlds)
    last: dict[str, tuple[Change, int | None]] = {}
    for change, step in changes:
        last[change.property] = (change, step)
    for prop, value in zip(monitor.model.properties, monitor.current):
        lv = launch[prop.name]
        changed = "-"
        if prop.name in last:
            change, step = last[prop.name]
            changed = f"seq {change.seq}" + (f" (step {step})" if step is not None else "")
        table.add_row(prop.name, prop.text,
                      Text("YES" if lv.value == "true" else "NO", STYLE[lv.value]),
                      Text(value, STYLE.get(value, "")), changed,
                      f"{holds_in[prop.name]} / {worlds}")
    return table


def report(monitor: Monitor, changes: list[tuple[Change, int | None]],
           latencies_ns: list[int] | None = None) -> dict[str, Any]:
    """The monitor's JSON record: launch verdicts, current verdicts, changes, counters."""
    record: dict[str, Any] = {
        "structure": {"worlds": [w.name for w in monitor.model.structure.worlds],
                      "actual_world": monitor.model.structure.worlds[
                          monitor.model.structure.actual].name,
                      "directions": len(monitor.model.directions),
                      "positions": len(monitor.model.positions),
                      "automaton_states": len(monitor.model.tracker)},
        "launch": [{"property": v.property, "value": v.value, "message": v.message,
                    **v.evidence} for v in monitor.launch_verdicts()],
        "verdicts": {v.property: v.value for v in monitor.verdicts()},
        "changes": [{"property": c.property, "old": c.old, "new": c.new, "seq": c.seq,
                     "step": step, "event": c.event, "reason": c.reason}
                    for c, step in changes],
        "counters": monitor.counters(),
        "state": monitor.state(),
    }
    if latencies_ns:
        ordered = sorted(latencies_ns)
        record["latency_us"] = {"median": ordered[len(ordered) // 2] / 1000,
                                "max": ordered[-1] / 1000, "records": len(ordered)}
    return record


def attach(mission, prepared, console: Console | None = None,
           enabled: bool | None = None) -> LiveMonitor | None:
    """The live monitor of a run of ``mission`` (None when ``enabled`` is False, or when it is
    None and the mission has no ``properties``)."""
    if enabled is False or (enabled is None and not mission.section("properties")):
        return None
    from bdi_monitor.monitor import monitor_for_mission

    return LiveMonitor(monitor_for_mission(mission, prepared), console)
