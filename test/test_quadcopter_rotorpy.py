"""RotorPy backend: a real rigid-body course flight and a pose dropout caught by the watchdog.

Marked ``simulation``; skipped without the ``rotorpy`` extra. About 10-20 s on two cores.
"""

from __future__ import annotations

import pytest

pytest.importorskip("rotorpy")

from bdi_supervisor.domains.quadcopter import drone as D
from bdi_supervisor.domains.quadcopter.course import GateCourse, distance
from bdi_supervisor.domains.quadcopter.profiles import PROFILES
from bdi_supervisor.domains.quadcopter.rotorpy_backend import RotorPyBackend

pytestmark = pytest.mark.simulation
COURSE = GateCourse()


def _drone(platform, plan=None, seed=3):
    prof = PROFILES[platform]
    return D.SimDrone(COURSE, prof, RotorPyBackend(COURSE, prof, plan, True, seed))


def _segments(d):
    results = [d.arm(True), d.takeoff(1.0, d.profile.takeoff_duration)]
    for i in range(1, 6):
        a, b = COURSE.segment(i).name.split("->")
        results += [d.plan(i, D.frame_name(COURSE, a), D.frame_name(COURSE, b)), d.upload(i),
                    d.execute(i)]
        if not results[-1].ok:
            break
    return results


def test_rotorpy_crazyflie_flies_the_course_and_lands():
    d = _drone("crazyflie")
    results = _segments(d)
    results += [d.land(), d.arm(False)]
    assert [r.code_name for r in results] == ["success"] * len(results)
    assert d.segments_flown == [1, 2, 3, 4, 5]
    for r in results:
        if r.call == "execute":
            assert r.feedback["min_distance_to_target"] < d.profile.gate_tolerance
    assert d.landed_clear and distance(d.position, COURSE.pad) < 0.2


def test_rotorpy_pihawk_supervisor_takes_the_failure_branch_on_a_dropout():
    """The synthesized supervisor (enumerated, System-Goal) on RotorPy: a 1 s mocap dropout on
    segment 2 is caught by the watchdog, then log, retreat, land clear, disarm."""
    from test_quadcopter_supervisor import _with_runner, prepared

    from bdi_supervisor.runtime.session import run_supervisor

    mission, prep = prepared("quadcopter_pihawk_dropout")
    mission = _with_runner(mission, backend="rotorpy",
                           dropouts=[{"segment": 2, "at": 0.3, "duration": 1.0}])
    records = []
    result = run_supervisor(mission, prep.machine, prep.reduced, callbacks=[records.append])
    caps = [s.capability for s in result.steps]
    assert caps[-5:] == ["execute_2", "log_failed", "retreat", "abort_land", "abort_disarm"]
    failed = result.steps[-5].outcome
    assert failed.forced and failed.layer == "injection"
    assert failed.detail["code"] == "odometry_unavailable"
    assert (result.status, result.sm_outcome) == ("failed", "aborted")
    truth = records[-1]["ground_truth"]
    assert truth["backend"] == "rotorpy" and truth["segments_flown"] == [1]
    assert not truth["crashed"] and not truth["airborne"] and not truth["armed"]
    assert truth["clearance"] > 0.3


def test_rotorpy_runs_are_reproducible_from_the_seed():
    def run(seed):
        d = _drone("crazyflie", seed=seed)
        d.arm(True)
        return d.takeoff(1.0, 1.5).position

    assert run(5) == run(5)
    assert run(5) != run(6)
