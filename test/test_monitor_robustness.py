"""The monitor never raises on a message: a malformed line of any depth or size
is counted and skipped, the next good record is followed as before; ``bdi-monitor replay``
streams the log and its ``--json`` summarises the verdict changes of a long log."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli_harness import run_cli
from support.monitor_support import MISSIONS, folder, fresh_monitor, prepared

from bdi_monitor.live import LISTED_CHANGES
from bdi_supervisor.limits import MAX_RECORD_BYTES
from bdi_supervisor.runtime.session import RunOptions, run_supervisor

BAD_LINES = {
    "not_json": "{bad",
    "not_utf8": b'{"schema": "caf\xe9"}',
    "deep_300": "[" * 300 + "]" * 300,
    "deep_100k": "[" * 100_000 + "]" * 100_000,
    "deep_object": '{"a": ' * 5000 + "1" + "}" * 5000,
    "too_long": '{"pad": "' + "x" * (MAX_RECORD_BYTES + 10) + '"}',
    "unread": None,
    "huge_int": '{"schema": "bdi_supervisor/bdi_state", "version": 1, "run_id": "r", "seq": '
                + "9" * 5000 + ', "event": "start"}',
}


def _records(force: str | None = "open_door=failure") -> list[dict]:
    mission, prep = prepared("beer_robot")
    records: list[dict] = []
    run_supervisor(mission, prep.machine, prep.reduced, options=RunOptions(force=force),
                   callbacks=[records.append])
    return records


@pytest.mark.parametrize("kind", BAD_LINES)
def test_feed_line_counts_a_malformed_line_and_goes_on(kind):
    records = _records()
    reference = fresh_monitor("beer_robot")
    for record in records:
        reference.feed(record)
    monitor = fresh_monitor("beer_robot")
    for record in records:
        monitor.feed_line(BAD_LINES[kind])
        monitor.feed_line(json.dumps(record))
    assert monitor.current == reference.current
    counts = monitor.counters()
    assert counts["malformed"] == len(records)
    assert counts["accepted"] == reference.counters()["accepted"]


def test_odd_fields_are_counted_not_raised():
    monitor = fresh_monitor("beer_robot")
    start = _records()[0]
    odd = [{**start, "strategy_state": {"machine_state": {"a": [1, 2]}}},
           {**start, "seq": 1, "event": "outcome", "last_outcome": {"state": ["x"] * 10**5}},
           {**start, "seq": 2, "event": "outcome", "last_outcome": {"state": "s" * 10**6,
                                                                   "outcome": {"o": 1}}},
           {**start, "run_id": "r" * 10**6}, 3.5, [], "text", None]
    for record in odd:
        verdicts = monitor.feed(record)
        assert all(len(v.message) < 1000 for v in verdicts)
    assert monitor.counters()["received"] == len(odd)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(["schema", "version", "run_id", "seq",
                                                       "event", "last_outcome", "state",
                                                       "outcome", "next", "strategy_state",
                                                       "machine_state", "intention"]),
                                      inner, max_size=6),
                    max_leaves=30))
def test_feed_never_raises_on_json_shaped_values(value):
    monitor = fresh_monitor("beer_robot")
    monitor.feed(value)
    monitor.feed({"schema": "bdi_supervisor/bdi_state", "version": 1, "run_id": "r", "seq": 0,
                  "event": "outcome", "last_outcome": value})
    try:
        text = json.dumps(value)
    except ValueError:  # NaN is not JSON
        return
    monitor.feed_line(text)
    assert monitor.counters()["received"] == 3


def _log(tmp_path, lines) -> str:
    path = tmp_path / "log.jsonl"
    with open(path, "wb") as handle:
        for line in lines:
            handle.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
    return str(path)


def test_replay_counts_malformed_lines_of_every_kind(tmp_path):
    records = _records()
    lines: list = [json.dumps(records[0])]
    lines += [bad for bad in BAD_LINES.values() if bad is not None]
    lines += [json.dumps(r) for r in records[1:]] + ["", "   "]
    outcome = run_cli("monitor", ["replay", _log(tmp_path, lines), "--mission",
                                  MISSIONS / "beer_robot.yaml", "--from", folder("beer_robot"),
                                  "--json"])
    assert outcome.code == 1 and not outcome.traceback, outcome.err
    counters = json.loads(outcome.out)["counters"]
    assert counters["malformed"] == len(BAD_LINES) - 1
    assert counters["accepted"] == len(records)
    assert {"malformed.too_deep", "malformed.too_long", "malformed.not_json"} <= set(counters)


def test_replay_json_summarises_many_changes(tmp_path):
    failing, nominal = _records(), _records(None)
    lines = []
    for n in range(80):  # each run flips some verdicts and back
        for record in failing if n % 2 else nominal:
            lines.append(json.dumps({**record, "run_id": f"run-{n}"}))
    outcome = run_cli("monitor", ["replay", _log(tmp_path, lines), "--mission",
                                  MISSIONS / "beer_robot.yaml", "--from", folder("beer_robot"),
                                  "--json"])
    assert not outcome.traceback, outcome.err
    record = json.loads(outcome.out)
    summary = record["change_summary"]
    assert summary["total"] > 2 * LISTED_CHANGES
    assert len(record["changes"]) == LISTED_CHANGES
    assert len(record["changes_tail"]) == LISTED_CHANGES
    assert summary["listed"] == 2 * LISTED_CHANGES
    assert sum(sum(c.values()) for c in summary["by_property"].values()) == summary["total"]
    assert record["counters"]["accepted"] == len(lines)
