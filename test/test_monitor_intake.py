"""The monitor node's per-message work without ROS (``bdi_monitor.ros.intake``) on the real core:
it publishes exactly when a verdict value or the stream's health changes, and the verdicts it
publishes are those ``Monitor.feed`` returns for the same records."""

from __future__ import annotations

import pytest
from support.monitor_support import fresh_monitor, prepared

from bdi_monitor.ros.intake import Intake
from bdi_supervisor.ros import wire
from bdi_supervisor.runtime.session import RunOptions, run_supervisor

RUNS = [("logistics_p0", None), ("logistics_p0", "pick=failure,pick=failure"),
        ("logistics_p0", "goto_item=failure"), ("beer_robot", "open_door=failure"),
        ("beer_robot", "grab_beer=failure")]


def records(name: str, force: str | None, runs: int = 2) -> list[dict]:
    """``runs`` forced runs of ``name`` one after the other (run ids kept apart)."""
    mission, prep = prepared(name)
    stream: list[dict] = []
    for n in range(runs):
        found: list[dict] = []
        run_supervisor(mission, prep.machine, prep.reduced,
                       options=RunOptions(sim="forced", force=force), callbacks=[found.append])
        stream += [{**r, "run_id": f"{r['run_id']}-{n}"} for r in found]
    return stream


def _content(verdicts) -> list[tuple]:
    return [(v.property, v.value, v.message, v.evidence) for v in verdicts]


@pytest.mark.parametrize("name, force", RUNS)
def test_intake_publishes_exactly_when_a_value_changes_and_what_feed_returns(name, force):
    stream = records(name, force)
    intake, reference = Intake(fresh_monitor(name)), fresh_monitor(name)
    before = None
    for record in stream:
        publish = intake.take(wire.encode_record(record), 0)
        expected = reference.feed(record)
        values = tuple(v.value for v in expected)
        assert publish == (values != before), record["seq"]
        assert _content(intake.verdicts()) == _content(expected)
        before = values
    assert intake.stream.healthy() and intake.core_errors == 0


def test_intake_publishes_when_the_stream_turns_unhealthy_and_builds_verdicts_when_asked():
    stream = records("logistics_p0", "pick=failure", runs=1)
    monitor, reference = fresh_monitor("logistics_p0"), fresh_monitor("logistics_p0")
    intake = Intake(monitor)
    assert intake.verdicts() == []  # no record yet: nothing to publish
    assert intake.take(wire.encode_record(stream[0]), 0)
    assert intake.take("{not json", 0)             # the stream's health changed
    assert not intake.take("{still not json", 0)   # unhealthy already, no value moved
    assert intake.stream.malformed == {"not_json": 2}
    for record in stream[1:]:
        intake.take(wire.encode_record(record), 0)
    assert monitor._verdict_list == []  # no Verdict built per message
    expected = [reference.feed(record) for record in stream][-1]
    assert _content(intake.verdicts()) == _content(expected)


def test_verdict_latency_is_that_of_the_record_that_last_moved_them():
    """Verdicts asked only now and then carry the latency of the last record that changed
    their values, position or reason, as when they were built at every record."""
    stream = records("logistics_p0", "goto_item=failure", runs=1)
    monitor = fresh_monitor("logistics_p0")
    key, moved_latency = None, None
    for i, record in enumerate(stream):
        monitor.advance(record)
        now = (monitor.q, monitor.reason, monitor.lost, monitor.current)
        if now != key:
            key, moved_latency = now, monitor.last_latency_ns
        if i % 3 == 2:
            assert {v.latency_ns for v in monitor.verdicts()} == {moved_latency}


class _Raising:
    """A core that fails on every record."""

    def advance(self, record, stamp_ns):
        raise RuntimeError("core bug")

    def verdicts(self):
        raise AssertionError("not asked: no record was taken")


def test_a_core_that_raises_is_counted_and_told():
    told = []
    intake = Intake(_Raising(), lambda record, error: told.append((record["seq"], str(error))))
    record = records("beer_robot", None, runs=1)[0]
    assert not intake.take(wire.encode_record(record), 0)
    assert intake.core_errors == 1 and told == [(0, "core bug")]
    assert intake.verdicts() == []
