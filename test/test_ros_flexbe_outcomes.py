"""How a FlexBE run ends, as plain functions (no rclpy, no flexbe_msgs): what each engine line
(2.x, 3.x, 4.x) sends when a behavior ends (test/support/flexbe_lines.py) mapped to the run's
state and exit code, and the liveness watch on onboard (heartbeat, publishers, logged state
exceptions). Only the mission's goal outcome is ever ``goal_reached``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.flexbe_lines import ENDINGS, LINES

from bdi_supervisor.common import FAILURE_SM_OUTCOMES, ExitCode
from bdi_supervisor.handover import RunState
from bdi_supervisor.ros import flexbe_watch
from bdi_supervisor.ros.flexbe_run import (
    READY,
    STARTED,
    ContainerOutcomes,
    FlexbeRun,
    Report,
    outcome_state,
)
from bdi_supervisor.ros.flexbe_watch import OnboardWatch, state_exception

BEHAVIOR = 42
#: the vending behavior's container outcomes (its mission's sm_outcomes plus the assumptions'
#: ``failed``)
VENDING = ContainerOutcomes.of(["finished", "failed"])

#: ending → (run state, exit code with exit_when_done), the same on every engine line
EXPECTED = {
    "goal outcome": (RunState.GOAL_REACHED, ExitCode.OK),
    "failure outcome": (RunState.FAILED, ExitCode.FAILURE_OUTCOME),
    "preempted": (RunState.STOPPED, ExitCode.STOPPED),
    "state raised": (RunState.ERROR, ExitCode.ENGINE_ERROR),
    "behavior raised": (RunState.ERROR, ExitCode.ENGINE_ERROR),
    "not started": (RunState.ERROR, ExitCode.ENGINE_ERROR),
}


def play(ending: str, line: int, outcomes: ContainerOutcomes = VENDING) -> FlexbeRun:
    """Feed a run what onboard of ``line`` sends for ``ending``, as the supervisor node does:
    BEStatus reports to the run, ERROR log texts through :func:`state_exception`."""
    run = FlexbeRun("vending", BEHAVIOR, "0_gr", outcomes=outcomes)
    run.start("vending_flexbe_behaviors.vending_sm")
    sent = ENDINGS[ending][line]
    if ending != "not started":
        run.report(Report(STARTED, BEHAVIOR))
    for text in sent.logs:
        why = state_exception(flexbe_watch.LOG_ERROR, text)
        if why is not None:
            run.end(RunState.ERROR, why)
    for code, args in sent.reports:
        run.report(Report(code, 0 if code == READY else BEHAVIOR, args))
    return run


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_each_engine_line_ending_maps_to_its_run_state_and_exit_code(ending, line):
    run = play(ending, line)
    state, code = EXPECTED[ending]
    assert run.state == state, run.detail
    assert run.state.exit_code == code
    if state != RunState.GOAL_REACHED:
        assert "goal" not in run.detail or "not its goal" in run.detail


@pytest.mark.parametrize("line", LINES)
def test_an_exception_in_a_state_is_never_the_goal(line):
    """The regression of FlexBE 4.0.3's ``FINISHED ['None']`` reported as goal_reached, and of
    2.x's silent retry: both end the run with an engine error naming what happened."""
    run = play("state raised", line)
    assert run.state == RunState.ERROR
    assert "Failed to execute state" in run.detail, run.detail  # the log comes first
    if line > 2:  # the FINISHED report alone (a log message lost) is an error too
        assert outcome_state(ENDINGS["state raised"][line].reports[0][1][0], VENDING) == (
            RunState.ERROR, "FlexBE behavior ended without an outcome (None): a state raised an "
                            "exception or onboard shut down; see onboard's log")


@pytest.mark.parametrize("line", LINES)
def test_a_behavior_without_container_outcomes_never_reaches_the_goal(line):
    """coffee's request has no SM outcomes: its behavior only ends by a stop or an error."""
    empty = ContainerOutcomes.of([])
    assert play("goal outcome", line, empty).state == RunState.ERROR
    assert "no container outcomes" in play("goal outcome", line, empty).detail
    assert play("preempted", line, empty).state == RunState.STOPPED


def test_only_the_success_outcome_is_the_goal():
    """beer_robot's [finished, aborted] and a mission with a second non-failure outcome: the
    first non-failure outcome is the goal (as the spec's goal rule says), the others are
    designed endings that are not the goal."""
    outcomes = ContainerOutcomes.of(["finished", "aborted"])
    assert outcome_state("finished", outcomes)[0] == RunState.GOAL_REACHED
    assert outcome_state("aborted", outcomes)[0] == RunState.FAILED
    partial = ContainerOutcomes.of(["failed", "done", "partly_done"])
    assert partial.goal == "done" and partial.others == ("failed", "partly_done")
    assert outcome_state("partly_done", partial)[0] == RunState.FAILED


@settings(max_examples=300, deadline=None)
@given(outcomes=st.lists(st.sampled_from(["finished", "done", "failed", "aborted", "failure",
                                          "canceled", "x", "preempted"]), unique=True),
       reported=st.one_of(st.none(), st.sampled_from(["finished", "done", "failed", "aborted",
                                                      "x", "None", "", "preempted", "?"])))
def test_goal_reached_exactly_for_the_first_non_failure_outcome(outcomes, reported):
    """Oracle: the request rule (the success outcome is the first SM outcome that is not a
    failure outcome); None, unknown outcomes and containers without that outcome are never
    the goal; every outcome the behavior does not have, but a stop, is an error."""
    state, _ = outcome_state(reported, ContainerOutcomes.of(outcomes))
    first = next((o for o in outcomes if o not in FAILURE_SM_OUTCOMES), None)
    assert (state == RunState.GOAL_REACHED) == (reported is not None and reported == first)
    if reported not in outcomes and reported != "preempted":
        assert state == RunState.ERROR
    if reported in outcomes and reported != first:
        assert state == RunState.FAILED


def test_state_exception_reads_flexbe_log_errors_only():
    for text in (ENDINGS["state raised"][line].logs[0] for line in LINES):
        assert state_exception(flexbe_watch.LOG_ERROR, text).startswith(
            "FlexBE onboard: Failed to execute state")
    assert state_exception(1, "Failed to execute state 'x'") is None  # a warning
    assert state_exception(flexbe_watch.LOG_ERROR, "Could not connect to action") is None


def test_the_watch_ends_a_run_whose_onboard_fell_silent():
    watch = OnboardWatch(started=10.0, heartbeat_timeout=3.0)
    assert watch.check(11.0, publishers=1) is None
    watch.beat(11.5)
    assert watch.check(14.4, publishers=1) is None
    why = watch.check(14.6, publishers=1)
    assert "no heartbeat on flexbe/heartbeat for 3.1 s" in why


def test_the_watch_needs_a_first_heartbeat_and_notices_a_left_publisher():
    silent = OnboardWatch(started=0.0, heartbeat_timeout=2.0)
    assert silent.check(1.9, publishers=1) is None
    assert "no heartbeat on flexbe/heartbeat within 2 s" in silent.check(2.0, publishers=1)
    left = OnboardWatch(started=0.0)
    left.beat(0.5)
    assert left.check(1.0, publishers=1) is None
    assert "nothing publishes flexbe/status" in left.check(1.1, publishers=0)
    never = OnboardWatch(started=0.0)  # no publisher seen yet: only the heartbeat counts
    never.beat(0.5)
    assert never.check(1.0, publishers=0) is None
    with pytest.raises(ValueError):
        OnboardWatch(started=0.0, heartbeat_timeout=0.0)


@settings(max_examples=200, deadline=None)
@given(timeout=st.floats(0.5, 10), beats=st.lists(st.floats(0, 60), max_size=20),
       now=st.floats(0, 80))
def test_the_watch_fires_exactly_when_the_last_heartbeat_is_too_old(timeout, beats, now):
    watch = OnboardWatch(started=0.0, heartbeat_timeout=timeout)
    for beat in sorted(b for b in beats if b <= now):
        watch.beat(beat)
    last = max((b for b in beats if b <= now), default=0.0)
    assert (watch.check(now, publishers=1) is not None) == (now - last >= timeout)
