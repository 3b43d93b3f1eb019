"""One record stream for a FlexBE run the executor follows (``bdi_supervisor.ros.flexbe_stream``,
plain Python): the executor's records and FlexBE's reports in any interleaving give one run for
the monitor (start first, gap-free ``seq``, one ``end`` last) that ends as the module says."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bdi_monitor.ros.stream import StreamStats
from bdi_supervisor.handover import RunState
from bdi_supervisor.ros import wire
from bdi_supervisor.ros.flexbe_run import ERROR, FINISHED, STARTED, FlexbeRun, Report
from bdi_supervisor.ros.flexbe_stream import FollowedRun
from bdi_supervisor.runtime.bdi_state import make_record, validate

BEHAVIOR = 77


def executor_records(end_status: str, sm_outcome: str | None) -> list[dict]:
    """What an executor emits: start, one activation and its outcome, end."""
    def record(seq, event, status="running", sm=None):
        return make_record(run_id="executor", seq=seq, event=event, t_wall=0.0, t_run=0.0,
                           mission="m", seed=0, strategy_state={"machine_state": "0_a"},
                           intention=None, beliefs={"a_c": {"value": True, "set_by": "initial"}},
                           desires=[], last_outcome=None, status=status, sm_outcome=sm)
    return [record(0, "start"), record(1, "activate"),
            record(2, "outcome", end_status, sm_outcome),
            record(3, "end", end_status, sm_outcome)]


def flexbe_inputs(run: FlexbeRun, outcome: str | None, code: int = FINISHED):
    """FlexBE's side as callables: the start (selection sent), STARTED, the final report."""
    args = (outcome,) if outcome is not None else ()
    return [lambda: [run.start("pkg.mod")],
            lambda: run.report(Report(STARTED, BEHAVIOR)),
            lambda: run.report(Report(code, BEHAVIOR, args))]


def play(order: list[str], end_status: str, sm_outcome: str | None, flexbe_outcome: str | None,
         code: int = FINISHED, error: str | None = None):
    """Feed both sides in ``order`` (``x``: next executor record, ``f``: next FlexBE input);
    the executor is started after STARTED, a preempt is answered by FINISHED preempted."""
    published = []
    run = FlexbeRun("m", BEHAVIOR, "0_a")
    stream = FollowedRun(run, published.append)
    mine, theirs = executor_records(end_status, sm_outcome), flexbe_inputs(run, flexbe_outcome,
                                                                            code)
    stream.flexbe_records(theirs.pop(0)())  # the selection is sent before anything else
    stream.flexbe_records(theirs.pop(0)())  # STARTED: the executor starts
    stream.expect_executor()
    for side in order:
        if side == "x" and mine:
            stream.executor_record(mine.pop(0))
            if error and not mine:
                stream.fail(error)
        elif side == "f" and theirs and (stream.wants_preempt or flexbe_outcome != "preempted"):
            stream.flexbe_records(theirs.pop(0)())
    while mine:
        stream.executor_record(mine.pop(0))
    if error:
        stream.fail(error)
    while theirs:
        stream.flexbe_records(theirs.pop(0)())
    return stream, published


def check_stream(published: list[dict]) -> None:
    for record in published:
        validate(record)
        assert record["runner"] == "flexbe"
    assert [r["seq"] for r in published] == list(range(len(published)))
    assert published[0]["event"] == "start" and published[-1]["event"] == "end"
    assert [r["event"] for r in published].count("end") == 1
    stats = StreamStats()
    for record in published:
        assert stats.accept(wire.encode_record(record)) is not None
    assert stats.gaps == 0 and stats.runs == 1


orders = st.lists(st.sampled_from("xf"), max_size=10)


@given(order=orders)
def test_a_container_outcome_both_agree_on_ends_as_the_executor_ended(order):
    stream, published = play(order, "goal_reached", "finished", "finished")
    check_stream(published)
    assert stream.done and stream.state == RunState.GOAL_REACHED
    assert published[-1]["status"] == "goal_reached" and published[-1]["beliefs"]
    assert published[-1]["flexbe_status"]["args"] == ["finished"]


@given(order=orders)
def test_goals_that_hold_without_a_container_outcome_end_with_the_preempt_asked_for(order):
    stream, published = play(order, "goal_reached", None, "preempted")
    check_stream(published)
    assert stream.state == RunState.GOAL_REACHED and stream.detail == "mission goals hold"


@given(order=orders)
def test_flexbe_ending_elsewhere_than_the_machine_is_an_error_naming_both(order):
    stream, published = play(order, "goal_reached", "finished", "failed")
    check_stream(published)
    assert stream.state == RunState.ERROR and "expected FlexBE to finish with finished" in \
        stream.detail
    assert published[-1]["status"] == "failed"


@given(order=orders)
def test_an_executor_that_left_the_behavior_ends_the_run_with_its_reason(order):
    stream, published = play(order, "stopped", None, "preempted", error="left the machine")
    check_stream(published)
    assert stream.state == RunState.ERROR and stream.detail == "left the machine"


def test_flexbe_ending_first_ends_the_run_as_flexbe_reported():
    stream, published = play(["f"], "stopped", None, None, code=ERROR)
    check_stream(published)
    assert stream.state == RunState.ERROR and "FlexBE onboard reported ERROR" in stream.detail


def test_status_reports_before_the_executors_start_follow_it():
    published = []
    run = FlexbeRun("m", BEHAVIOR, "0_a")
    stream = FollowedRun(run, published.append)
    stream.flexbe_records([run.start("pkg.mod")])
    stream.flexbe_records(run.report(Report(STARTED, BEHAVIOR)))
    stream.expect_executor()
    assert published == []
    stream.executor_record(executor_records("goal_reached", "finished")[0])
    assert [r["event"] for r in published] == ["start", "status"]
    assert published[1]["flexbe_status"]["name"] == "STARTED"


@pytest.mark.parametrize("acknowledged", [False, True])
def test_a_run_the_executor_never_followed_has_flexbes_own_records(acknowledged):
    """Never acknowledged (or refused): start, the reports, end, as FlexbeRun has them."""
    published = []
    run = FlexbeRun("m", BEHAVIOR, "0_a")
    stream = FollowedRun(run, published.append)
    stream.flexbe_records([run.start("pkg.mod")])
    reports = [Report(ERROR, BEHAVIOR)] if acknowledged else []
    for report in reports:
        stream.flexbe_records(run.report(report))
    if not acknowledged:
        stream.flexbe_records(run.end(RunState.ERROR, "no subscriber"))
    check_stream(published)
    assert stream.done and stream.state == RunState.ERROR
    assert [r["event"] for r in published] == ["start", *(["status"] * len(reports)), "end"]


def test_every_interleaving_of_a_short_run_is_one_gap_free_run():
    for order in itertools.product("xf", repeat=6):
        _, published = play(list(order), "failed", "failed", "failed")
        check_stream(published)
