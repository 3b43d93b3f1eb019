"""A request in a worker process (its answer is the in-process answer; a cancel stops it inside
a stage; a dying worker is a FAILURE answer), and the gate that lets one request run at a time
in accepting order. Plain Python, no ROS."""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from bdi_supervisor.service.answer import Settings, answer
from bdi_supervisor.service.codes import Code
from bdi_supervisor.service.gate import GoalGate
from bdi_supervisor.service.request import SynthesisRequest
from bdi_supervisor.service.worker import Job

VENDING = SynthesisRequest(("prep_pay_a",), ("soda",), ("finished",), "vending", "VendingSM")
#: a synthesis of minutes (the quadcopter's one-hot Fair-Outcome + pending spec over all states)
SLOW = SynthesisRequest(("arm_a",), ("disarm",), ("finished", "aborted"), "quadcopter", "Q",
                        synthesis_options="{encoding: one-hot, liveness: fair-outcome, "
                                          "pending: true, reachable: false}")


def drain(job: Job, on_news=None):
    """(progress records, answer) of a job; ``on_news(progress)`` after each record."""
    progress = []
    for event in job.events():
        if event is None:
            continue
        if event.answer is not None:
            return progress, event.answer
        progress.append(event.progress)
        if on_news is not None:
            on_news(progress)
    raise AssertionError("no answer")


def test_the_worker_answers_as_the_service_does(tmp_path):
    progress, result = drain(Job(VENDING, Settings(out_dir=str(tmp_path / "out"))))
    expected = answer(VENDING, Settings(out_dir=str(tmp_path / "again")))
    assert result.code == Code.SUCCESS
    assert result.states == expected.states
    assert result.messages[:-1] == expected.messages[:-1]  # all but the run folder
    fractions = [p.progress for p in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert [p.status for p in progress][:3] == ["spec", "well_separation", "synthesis"]
    assert progress[-1].status == "complete"
    assert (tmp_path / "out" / "VendingSM" / "one-hot-SP" / "behavior").is_dir()


def test_bad_requests_come_back_as_answers_too():
    _, result = drain(Job(dataclasses.replace(VENDING, system_name="nosuch"), Settings()))
    assert result.code == Code.NO_SYSTEM_CONFIG


def test_a_cancel_stops_a_running_stage(tmp_path):
    """Cancelled inside the spec encoding of a synthesis of minutes: the worker stops within
    seconds, answers PREEMPTED and writes no run folder."""
    stage = "synthesis: encoding"
    job = Job(SLOW, Settings(out_dir=str(tmp_path / "out"), default_timeout=None))
    asked: list[float] = []

    def cancel_in_stage(progress):
        if progress[-1].status == stage and not asked:
            time.sleep(0.5)  # well inside the stage
            asked.append(time.monotonic())
            job.cancel()

    progress, result = drain(job, cancel_in_stage)
    stopped = time.monotonic() - asked[0]
    assert result.code == Code.PREEMPTED and result.states == []
    assert progress[-1].status == stage
    assert stopped < 8.0, stopped  # the stage alone runs for minutes
    assert job.process.returncode == 130
    assert not (tmp_path / "out").exists()


def test_a_cancel_before_the_first_stage():
    job = Job(SLOW, Settings(default_timeout=None))
    job.cancel()
    progress, result = drain(job)
    assert result.code == Code.PREEMPTED and len(progress) <= 3


def test_a_worker_that_dies_is_a_failure_answer():
    job = Job(SLOW, Settings(default_timeout=None))

    def kill(progress):
        if progress[-1].status == "synthesis: encoding":
            os.kill(job.process.pid, signal.SIGKILL)

    _, result = drain(job, kill)
    assert result.code == Code.FAILURE
    assert result.messages[0] == ("the synthesis worker ended with exit code -9 without an "
                                  "answer")


# ---------------------------------------------------------------- the gate


def test_goals_run_one_at_a_time_in_accepting_order():
    gate = GoalGate(waiting=3)
    assert all(gate.reserve() for _ in range(4)) and not gate.reserve()
    tickets = [gate.ticket() for _ in range(4)]
    running, order, lock = [], [], threading.Lock()

    def goal(ticket: int) -> None:
        assert gate.wait_turn(ticket, lambda: False)
        with lock:
            running.append(ticket)
            assert len(running) == 1, running  # never two at once
            order.append(ticket)
        time.sleep(random.uniform(0, 0.02))
        with lock:
            running.remove(ticket)
        gate.done(ticket)

    threads = [threading.Thread(target=goal, args=(t,)) for t in reversed(tickets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert order == tickets and gate.held == 0 and gate.reserve()


def test_a_waiting_goal_that_gives_up_is_skipped():
    gate = GoalGate(waiting=2)
    for _ in range(3):
        gate.reserve()
    first, second, third = (gate.ticket() for _ in range(3))
    assert gate.wait_turn(first, lambda: False)
    assert not gate.wait_turn(second, lambda: True)  # cancelled while waiting
    gate.done(second)
    gate.done(first)
    assert gate.wait_turn(third, lambda: False, poll=0.01)
    gate.close()
    assert not gate.reserve()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3), st.lists(st.sampled_from(["reserve", "finish", "give_up"]),
                                   max_size=30))
def test_the_gate_against_a_queue_model(waiting, operations):
    """Sequential runs against a plain FIFO model: the same goals are accepted, the head of the
    line is the one whose turn it is, and no more than ``1 + waiting`` are held."""
    gate, line = GoalGate(waiting), []
    for operation in operations:
        if operation == "reserve":
            accepted = gate.reserve()
            assert accepted == (len(line) < 1 + waiting)
            if accepted:
                line.append(gate.ticket())
        elif line and operation == "finish":
            assert gate.wait_turn(line[0], lambda: False, poll=0.001)
            gate.done(line.pop(0))
        elif len(line) > 1 and operation == "give_up":
            ticket = line.pop(-1)
            assert not gate.wait_turn(ticket, lambda: True, poll=0.001)
            gate.done(ticket)
        assert gate.held == len(line) <= 1 + waiting
        if line:
            assert gate.wait_turn(line[0], lambda: True, poll=0.001)
