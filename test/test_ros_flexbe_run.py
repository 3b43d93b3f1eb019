"""The supervisor's side of a FlexBE run as plain data (no rclpy, no flexbe_msgs): the
BehaviorSelection hand-shake (matched-subscriber wait, bounded re-send until a BEStatus
acknowledges, timeout) and every BEStatus reported in the run's diagnostics and BDI-state
records. The same code runs against the real FlexBE onboard in test_ros_flexbe_onboard.py."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bdi_monitor.ros.stream import StreamStats
from bdi_supervisor.handover import RunState
from bdi_supervisor.ros import wire
from bdi_supervisor.ros.flexbe_run import (
    ERROR,
    FINISHED,
    READY,
    STARTED,
    ContainerOutcomes,
    FlexbeRun,
    Handshake,
    Report,
)
from bdi_supervisor.runtime.bdi_state import validate

BEHAVIOR = 123456


def drive(handshake: Handshake, matched_at: float, ack_at: float | None, until: float,
          tick: float = 0.1) -> list[float]:
    """Step ``handshake`` every ``tick`` seconds; onboard matched from ``matched_at``, answering
    from ``ack_at``; return the times it sent."""
    sends, now = [], 0.0
    while now <= until:
        if ack_at is not None and now >= ack_at and sends:
            handshake.acknowledge(Report(STARTED, BEHAVIOR))
        action = handshake.step(now, now >= matched_at)
        if action == "send":
            sends.append(round(now, 6))
        elif action == "give_up":
            break
        now = round(now + tick, 6)
    return sends


def test_nothing_is_sent_before_onboard_subscribes():
    handshake = Handshake(BEHAVIOR, started=0.0, timeout=30, resend_period=5)
    sends = drive(handshake, matched_at=7.0, ack_at=7.5, until=29)
    assert sends == [7.0] and handshake.acknowledged.code == STARTED


def test_resends_until_acknowledged_then_stops():
    handshake = Handshake(BEHAVIOR, started=0.0, timeout=30, resend_period=5)
    sends = drive(handshake, matched_at=0.0, ack_at=11.0, until=29)
    assert sends == [0.0, 5.0, 10.0]


def test_gives_up_at_the_timeout_with_a_bounded_number_of_sends():
    handshake = Handshake(BEHAVIOR, started=0.0, timeout=12, resend_period=5)
    sends = drive(handshake, matched_at=0.0, ack_at=None, until=60)
    assert sends == [0.0, 5.0, 10.0] and len(sends) <= handshake.max_sends
    assert handshake.step(12.0, True) == "give_up"
    assert "did not acknowledge behavior 123456 within 12 s (3 BehaviorSelection sent" in (
        handshake.failure(True))


def test_gives_up_when_onboard_never_subscribes():
    handshake = Handshake(BEHAVIOR, started=0.0, timeout=3, resend_period=1)
    assert drive(handshake, matched_at=99, ack_at=None, until=10) == []
    assert "no subscriber on flexbe/start_behavior within 3 s" in handshake.failure(False)


@settings(max_examples=200, deadline=None)
@given(timeout=st.floats(0.5, 60), period=st.floats(0.2, 20), matched=st.floats(0, 80),
       ack=st.one_of(st.none(), st.floats(0, 80)))
def test_sends_are_bounded_spaced_and_stop_at_the_acknowledgement(timeout, period, matched,
                                                                  ack):
    handshake = Handshake(BEHAVIOR, 0.0, timeout, period)
    sends = drive(handshake, matched, ack, until=100)
    assert len(sends) <= handshake.max_sends
    assert all(b - a >= period - 1e-6 for a, b in itertools.pairwise(sends))
    assert all(matched - 1e-6 <= t < timeout for t in sends)
    if ack is not None and sends:
        assert all(t <= max(ack, sends[0]) + 1e-6 for t in sends)


def test_only_a_status_of_this_behavior_acknowledges():
    handshake = Handshake(BEHAVIOR, 0.0)
    assert not handshake.acknowledge(Report(READY, 0))
    assert not handshake.acknowledge(Report(READY, BEHAVIOR))
    assert not handshake.acknowledge(Report(STARTED, BEHAVIOR + 1))
    assert handshake.acknowledge(Report(ERROR, BEHAVIOR))  # refused: still an answer
    assert handshake.acknowledged.code == ERROR
    with pytest.raises(ValueError):
        Handshake(BEHAVIOR, 0.0, timeout=0)


def run_of(reports: list[Report]) -> tuple[FlexbeRun, list[dict]]:
    run = FlexbeRun("vending", BEHAVIOR, "0_prep_pay", ("soda",),
                    outcomes=ContainerOutcomes.of(["finished", "failed"]))
    records = [run.start("vending_flexbe_behaviors.vending_sm")]
    for report in reports:
        records += run.report(report)
    return run, records


@pytest.mark.parametrize("outcome, state", [("finished", RunState.GOAL_REACHED),
                                            ("failed", RunState.FAILED),
                                            ("preempted", RunState.STOPPED)])
def test_every_report_is_a_record_and_finished_ends_the_run(outcome, state):
    reports = [Report(READY, 0), Report(STARTED, BEHAVIOR, ("",)),
               Report(FINISHED, BEHAVIOR, (outcome,)), Report(READY, 0)]
    run, records = run_of(reports)
    assert [r["event"] for r in records] == ["start", "status", "status", "status", "end"]
    assert [r["flexbe_status"]["name"] for r in records[1:4]] == ["READY", "STARTED",
                                                                 "FINISHED"]
    assert [r["seq"] for r in records] == list(range(5))
    for record in records:
        validate(record)
        assert record["runner"] == "flexbe" and record["run_id"] == run.run_id
    assert records[0]["strategy_state"]["machine_state"] == "0_prep_pay"
    assert records[-1]["sm_outcome"] == outcome
    assert records[-1]["status"] == ("failed" if state == RunState.FAILED else state.value)
    assert run.state == state and run.outcome == outcome
    values = run.values()
    assert values["flexbe.reports"] == "3"  # the READY after the end is not the run's
    assert values["flexbe.1"] == f"STARTED (behavior {BEHAVIOR}) ['']"
    assert values["flexbe.last"].startswith("FINISHED") and values["sm_outcome"] == outcome
    # the stream carries them to the monitor as one gap-free run
    stats = StreamStats()
    assert all(stats.accept(wire.encode_record(r)) is not None for r in records)
    assert stats.healthy() and stats.runs == 1


def test_onboard_errors_and_timeouts_end_the_run_with_an_error():
    run, records = run_of([Report(ERROR, BEHAVIOR)])
    assert run.state == RunState.ERROR and "ERROR (behavior 123456)" in run.detail
    assert records[-1]["event"] == "end" and records[-1]["status"] == "failed"
    run, records = run_of([])
    records += run.end(RunState.ERROR, "no answer")
    assert run.state == RunState.ERROR and records[-1]["last_outcome"]["reason"] == "no answer"
    assert run.end(RunState.GOAL_REACHED, "late") == [] and run.state == RunState.ERROR


def test_reports_before_the_start_reach_the_diagnostics_only():
    run = FlexbeRun("vending", BEHAVIOR, "0_prep_pay")
    assert run.report(Report(READY, 0)) == []
    assert run.values()["flexbe.0"] == "READY (behavior 0)"


def test_the_monitor_core_accepts_status_records():
    """A FlexBE run's stream (start, status, end) is one gap-free run for the monitor core: the
    status records are counted, move nothing, and are not malformed."""
    from support.monitor_support import fresh_monitor

    monitor = fresh_monitor("beer_robot")
    run = FlexbeRun("beer_robot", BEHAVIOR, monitor.model.machine.initial,
                    outcomes=ContainerOutcomes.of(monitor.model.machine.outcomes))
    records = [run.start("beer_robot_flexbe_behaviors.beer_robot_sm")]
    records += run.report(Report(STARTED, BEHAVIOR))
    records += run.report(Report(FINISHED, BEHAVIOR, ("finished",)))
    for record in records:
        monitor.feed(record)
    counts = monitor.counters()
    assert counts["accepted"] == 4 and not counts.get("malformed") and not counts.get("gaps")
