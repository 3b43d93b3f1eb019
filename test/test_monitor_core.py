"""The live monitor core: verdicts that flip at exactly the message that causes them, FlexBE
telemetry, robustness (malformed, duplicate, out-of-order, gaps, unknown states, storms)."""

from __future__ import annotations

import copy
import json
import tracemalloc

import pytest
from support.monitor_support import fresh_monitor, prepared

from bdi_monitor.monitor import FLEXBE_CURRENT_STATE, FLEXBE_OUTCOME, replay
from bdi_supervisor.runtime.session import RunOptions, run_supervisor


def forced_run(name: str, force: str | None):
    mission, prep = prepared(name)
    records = []
    result = run_supervisor(mission, prep.machine, prep.reduced,
                            options=RunOptions(sim="forced", force=force),
                            callbacks=[records.append])
    return result, records


def verdict_trace(monitor, records, prop):
    return [next(v.value for v in monitor.feed(r) if v.property == prop) for r in records]


def flip_index(records, capability, outcome):
    return next(i for i, r in enumerate(records)
                if r["event"] == "outcome" and r["last_outcome"]
                and r["last_outcome"]["capability"] == capability
                and r["last_outcome"]["outcome"] == outcome)


@pytest.mark.parametrize("name, force, prop, capability, outcome, before, after", [
    ("beer_robot", "open_door=failure", "door_believed_unlocked", "open_door", "failure",
     "true", "false"),
    ("beer_robot", "open_door=failure", "believes_success_possible", "open_door", "failure",
     "true", "false"),
    ("beer_robot", "grab_beer=failure", "beer_believed", "grab_beer", "failure", "true",
     "false"),
    ("beer_robot", None, "beer_possible", "grab_beer", "completed", "inconclusive", "true"),
    ("logistics_p0", "pick=failure", "gripper_belief_justified", "pick", "completed",
     "inconclusive", "true"),
    ("logistics_p0", "goto_item=failure,goto_item=completed", "believes_navigation_reliable",
     "goto_item", "failure", "true", "false"),
])
def test_verdict_changes_at_exactly_the_causing_message(name, force, prop, capability, outcome,
                                                        before, after):
    _, records = forced_run(name, force)
    monitor = fresh_monitor(name)
    trace = verdict_trace(monitor, records, prop)
    at = flip_index(records, capability, outcome)
    assert set(trace[:at]) == {before} and trace[at] == after, trace
    change = next(c for c in monitor.changes if c.property == prop)
    assert change.seq == records[at]["seq"] and (change.old, change.new) == (before, after)
    assert monitor.counters().get("out_of_model", 0) == 0


def test_nominal_beer_run_stays_in_model_and_ends_true():
    result, records = forced_run("beer_robot", None)
    assert result.goal_reached
    monitor = fresh_monitor("beer_robot")
    for record in records:
        verdicts = monitor.feed(record)
    assert {v.property: v.value for v in verdicts}["always_ends"] == "true"
    assert monitor.state()["position"].startswith("end_finished")
    assert monitor.state()["consistent_worlds"] == ["not_door_locked.beer"]
    assert all(v.latency_ns is not None and v.latency_ns > 0 for v in verdicts)
    assert monitor.counters() == {"received": len(records), "accepted": len(records), "runs": 1}


def test_verdicts_at_every_prefix_equal_the_offline_check():
    """Replayed logs: the verdict at every prefix is the offline membership at that node."""
    _, records = forced_run("logistics_p0", "goto_table=failure,pick=failure")
    monitor = fresh_monitor("logistics_p0")
    model, checker = monitor.model, monitor.checker
    for record in records:
        verdicts = {v.property: v.value for v in monitor.feed(record)}
        _, consistent = model.tracker[monitor.q]
        for prop in model.properties:
            holding = {j for j in consistent
                       if checker.checkers[j].holds(prop.formula, model.node(monitor.q, j))}
            expected = ("true" if holding == consistent else "false" if not holding
                        else "inconclusive")
            assert verdicts[prop.name] == expected


def test_flexbe_telemetry_gives_the_same_verdicts():
    mission, prep = prepared("beer_robot")
    _, records = forced_run("beer_robot", "grab_beer=failure")
    by_record = fresh_monitor("beer_robot")
    for record in records:
        by_record.feed(record)
    by_flexbe = fresh_monitor("beer_robot")
    for record in records:
        last = record["last_outcome"]
        if record["event"] == "activate":
            path = f"/{mission.name}/{record['strategy_state']['machine_state']}"
            by_flexbe.feed_flexbe(FLEXBE_CURRENT_STATE, path)
        elif record["event"] == "outcome" and last:
            state = prep.machine.state(last["state"])
            flexbe = next(f for f, n in state.outcomes.items() if n == last["outcome"])
            if last["step"] % 2:
                by_flexbe.feed_flexbe(FLEXBE_CURRENT_STATE, f"/{mission.name}/{last['state']} > "
                                                            f"{flexbe}")
            else:
                index = list(state.outcomes).index(flexbe)
                by_flexbe.feed_flexbe(FLEXBE_OUTCOME, {"state": f"/{mission.name}/{last['state']}",
                                                       "outcome": index})
    assert by_flexbe.current == by_record.current
    assert by_flexbe.counters().get("out_of_model", 0) == 0
    by_flexbe.feed_flexbe(FLEXBE_CURRENT_STATE, "/beer_robot/99_teleport > done")
    assert set(by_flexbe.current) == {"out_of_model"} and by_flexbe.counters()["unknown_state"] == 1
    by_flexbe.feed_flexbe("flexbe/other", 3)
    by_flexbe.feed_flexbe(FLEXBE_OUTCOME, "garbage")
    assert by_flexbe.counters()["malformed"] == 2


def test_malformed_duplicate_out_of_order_and_gaps_are_counted_not_fatal():
    _, records = forced_run("beer_robot", "grab_beer=failure")
    monitor = fresh_monitor("beer_robot")
    monitor.feed(records[0])
    for junk in (None, 3, "text", [], {"schema": "x"}, {**records[1], "version": 9},
                 {**records[1], "seq": -1}, {**records[1], "event": "explode"},
                 {**records[1], "run_id": 7}):
        monitor.feed(junk)
    monitor.feed_line("{not json")
    monitor.feed(records[1])
    monitor.feed(records[1])           # duplicate
    monitor.feed(records[0])           # out of order
    broken = copy.deepcopy(records[2])
    broken["last_outcome"] = "no"      # malformed body
    monitor.feed(broken)
    counts = monitor.counters()
    assert counts["malformed"] == 11 and counts["duplicates"] == 1
    assert counts["out_of_order"] == 1 and counts["accepted"] == 3
    # a gap: the monitor lost track, verdicts are inconclusive until the next run starts
    monitor.feed(records[5])
    assert counts["received"] + 1 == monitor.counters()["received"]
    assert monitor.counters()["gaps"] == 2 and set(monitor.current) == {"inconclusive"}
    assert monitor.state()["lost"]
    fresh = fresh_monitor("beer_robot")
    for record in records:
        fresh.feed(record)
    rerun = [dict(r, run_id="again") for r in records]
    for record in rerun:
        monitor.feed(record)
    assert monitor.current == fresh.current and monitor.counters()["runs"] == 2


def test_out_of_model_outcomes_and_states():
    _, records = forced_run("beer_robot", None)
    monitor = fresh_monitor("beer_robot")
    monitor.feed(records[0])
    teleport = copy.deepcopy(records[1])
    teleport["strategy_state"]["machine_state"] = "99_teleport"
    monitor.feed(teleport)
    assert set(monitor.current) == {"out_of_model"} and monitor.counters()["unknown_state"] == 1
    # the door is presumed unlocked but the model admits its failure; a locked door that then
    # opens (failure, then a second successful open) is admitted by no world
    monitor = fresh_monitor("beer_robot")
    for record in records[:2]:
        monitor.feed(record)
    failed = copy.deepcopy(records[2])
    failed["last_outcome"].update(outcome="failure", next="1_apologize")
    failed["strategy_state"]["machine_state"] = "1_apologize"
    monitor.feed(failed)
    assert monitor.value("door_believed_unlocked") == "false"
    wrong = copy.deepcopy(records[4])  # goto_fridge's outcome while the model is at apologize
    wrong["seq"] = failed["seq"] + 1
    monitor.feed(wrong)
    assert set(monitor.current) == {"out_of_model"}
    assert "the model is at" in monitor.verdicts()[0].evidence["reason"]


def test_message_storm_keeps_memory_bounded():
    _, records = forced_run("logistics_p0", "pick=failure,goto_item=failure")
    monitor = fresh_monitor("logistics_p0")

    def storm(rounds, offset):
        for n in range(offset, offset + rounds):
            run_id = f"storm-{n}"
            for record in records:
                monitor.feed({**record, "run_id": run_id})
                monitor.feed(None)  # malformed, interleaved

    storm(20, 0)
    tracemalloc.start()
    first, _ = tracemalloc.get_traced_memory()
    storm(300, 20)
    second, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    fed = 320 * len(records)
    assert monitor.counters()["accepted"] == fed and monitor.counters()["runs"] == 320
    assert monitor.counters()["received"] == 2 * fed and monitor.counters()["malformed"] == fed
    assert second - first < 64 * 1024, (first, second)
    assert len(monitor.changes) <= monitor.changes.maxlen


def test_replay_reports_every_change():
    _, records = forced_run("beer_robot", "open_door=failure")
    monitor = fresh_monitor("beer_robot")
    changes = replay(monitor, [json.dumps(r) for r in records] + ["", "{bad"])
    assert [c.property for c in changes if c.seq == 2][:1] == ["door_believed_unlocked"]
    assert monitor.counters()["malformed.not_json"] == 1


def test_quadcopter_pose_dropout_flips_the_pose_belief_at_the_failed_segment():
    """The PiHawk mission on the kinematic gate course with a mocap dropout on segment 3."""
    mission, prep = prepared("quadcopter_pihawk_dropout")
    records = []
    result = run_supervisor(mission, prep.machine, prep.reduced, callbacks=[records.append])
    assert result.sm_outcome == "aborted"
    monitor = fresh_monitor("quadcopter_pihawk_dropout")
    launch = {v.property: v for v in monitor.launch_verdicts()}
    assert launch["believes_pose_healthy"].value == "true"
    assert launch["pose_belief_justified"].value == "false"  # the actual world drops out
    assert "counterexample" in launch["pose_belief_justified"].evidence
    trace = verdict_trace(monitor, records, "believes_pose_healthy")
    at = flip_index(records, "execute_3", "failure")
    assert set(trace[:at]) == {"true"} and set(trace[at:]) == {"false"}
    assert monitor.state()["consistent_worlds"] == ["pose_tracking.dropping"]
    assert monitor.value("pose_belief_justified") == "true"  # no belief left to be wrong about
    assert monitor.counters().get("out_of_model", 0) == 0


def test_verdicts_are_rebuilt_exactly_when_position_reason_or_values_change():
    """The verdict list is cached between records that move nothing: each record's verdicts
    equal a list built from scratch (evidence: position, since_seq, reason)."""
    _, records = forced_run("logistics_p0", "pick=failure")
    monitor = fresh_monitor("logistics_p0")
    for record in records:
        cached = monitor.feed(record)
        monitor._verdict_key = None  # force a rebuild from the current state
        rebuilt = monitor.verdicts()
        assert [(v.property, v.value, v.message, v.evidence) for v in cached] == \
            [(v.property, v.value, v.message, v.evidence) for v in rebuilt]
