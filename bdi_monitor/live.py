"""The monitor beside a run: a BDI-record callback, live change lines, tables and JSON.

Used by ``bdi-supervisor run`` (the monitor is on when the mission has ``properties``) and by
``bdi-monitor replay``.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bdi_monitor.monitor import Change, Monitor, parse_line
from bdi_supervisor.common import PropertyValue
from bdi_supervisor.display import print_table

STYLE = {PropertyValue.TRUE: "green", PropertyValue.FALSE: "red",
         PropertyValue.INCONCLUSIVE: "yellow", PropertyValue.OUT_OF_MODEL: "magenta"}
#: verdict changes listed in a report from the start and from the end of a run; the others are
#: counted (a replay of a long log summarises its changes instead of listing megabytes)
LISTED_CHANGES = 100


class LiveMonitor:
    """Feeds records to ``monitor``, keeps every verdict change with the step it happened at and
    prints each change at once on ``console`` (above a live progress view, if one runs)."""

    def __init__(self, monitor: Monitor, console: Console | None = None) -> None:
        self.monitor = monitor
        self.console = console
        #: the first :data:`LISTED_CHANGES` changes with the step they happened at
        self.changes: list[tuple[Change, int | None]] = []
        #: the last :data:`LISTED_CHANGES` changes after those
        self.recent: deque[tuple[Change, int | None]] = deque(maxlen=LISTED_CHANGES)
        self.change_count = 0
        #: (property, old, new) → how often
        self.transitions: Counter[tuple[str, str | None, str]] = Counter()
        self.last_change: dict[str, tuple[Change, int | None]] = {}
        self._step: int | None = None
        monitor.on_change = self._changed
        self.latencies_ns: list[int] = []

    def __call__(self, record: dict[str, Any]) -> None:
        last = record.get("last_outcome") if isinstance(record, dict) else None
        step = last.get("step") if isinstance(last, dict) else None
        self._step = step if isinstance(step, int) and not isinstance(step, bool) else None
        self.monitor.feed(record)
        self._timed()

    def feed_line(self, line: str | bytes | None) -> None:
        """One JSON line of a log (malformed lines are counted by the monitor, see
        :func:`bdi_monitor.monitor.parse_line`)."""
        record, reason = parse_line(line)
        if reason is None:
            return self(record)
        self._step = None
        self.monitor.feed_line(line)
        self._timed()
        return None

    def close(self) -> None:
        """Stop listening to the monitor (breaks the monitor ↔ listener reference cycle, so the
        BDDs are freed in order when the command ends)."""
        if self.monitor.on_change == self._changed:
            self.monitor.on_change = None

    def _timed(self) -> None:
        if self.monitor.last_latency_ns is not None and len(self.latencies_ns) < 100_000:
            self.latencies_ns.append(self.monitor.last_latency_ns)

    def _changed(self, change: Change) -> None:
        entry = (change, self._step)
        self.change_count += 1
        self.transitions[(change.property, change.old, change.new)] += 1
        self.last_change[change.property] = entry
        (self.changes if len(self.changes) < LISTED_CHANGES else self.recent).append(entry)
        if self.console is not None:
            self.console.print(change_line(change, self._step))

    # -- reports ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        record = report(self.monitor, self.changes, self.latencies_ns)
        if self.recent:
            record["changes_tail"] = [_change_json(c, step) for c, step in self.recent]
        by_property: dict[str, dict[str, int]] = {}
        for (prop, old, new), count in sorted(self.transitions.items(), key=str):
            by_property.setdefault(prop, {})[f"{old or '-'} -> {new}"] = count
        record["change_summary"] = {"total": self.change_count,
                                    "listed": len(self.changes) + len(self.recent),
                                    "by_property": by_property}
        return record

    def print_summary(self, console: Console) -> None:
        print_table(verdict_table(self.monitor, list(self.last_change.values())), console)
        if self.change_count > len(self.changes) + len(self.recent):
            console.print(f"{self.change_count} verdict changes in all (the first and last "
                          f"{LISTED_CHANGES} were printed)")
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
                      Text("YES" if lv.value == PropertyValue.TRUE else "NO", STYLE[lv.value]),
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
        "changes": [_change_json(c, step) for c, step in changes],
        "counters": monitor.counters(),
        "state": monitor.state(),
    }
    if latencies_ns:
        ordered = sorted(latencies_ns)
        record["latency_us"] = {"median": ordered[len(ordered) // 2] / 1000,
                                "max": ordered[-1] / 1000, "records": len(ordered)}
    return record


def _change_json(change: Change, step: int | None) -> dict[str, Any]:
    return {"property": change.property, "old": change.old, "new": change.new,
            "seq": change.seq, "step": step, "event": change.event, "reason": change.reason}


def attach(mission, prepared, console: Console | None = None,
           enabled: bool | None = None) -> LiveMonitor | None:
    """The live monitor of a run of ``mission`` (None when ``enabled`` is False, or when it is
    None and the mission has no ``properties``)."""
    if enabled is False or (enabled is None and not mission.section("properties")):
        return None
    from bdi_monitor.monitor import monitor_for_mission

    return LiveMonitor(monitor_for_mission(mission, prepared), console)
