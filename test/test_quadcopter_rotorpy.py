"""RotorPy backend: a real rigid-body course flight and a pose dropout caught by the watchdog.

Marked ``simulation``; skipped without the ``rotorpy`` extra. About 10-20 s on two cores.
"""

from __future__ import annotations

import pytest

pytest.importorskip("rotorpy")

from bdi_supervisor.domains.quadcopter import drone as D
from bdi_supervisor.domains.quadcopter.course import GateCourse, distance
from bdi_supervisor.domains.quadcopter.dropout import DropoutPlan
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


def test_rotorpy_pihawk_dropout_is_a_clean_failure_then_a_safe_landing():
    d = _drone("pihawk", DropoutPlan.by_segment(2, 0.3, 1.0))
    results = _segments(d)
    last = results[-1]
    assert (last.call, last.return_code) == ("execute", D.ODOMETRY_UNAVAILABLE)
    assert last.feedback["max_pose_age"] > d.profile.staleness_limit_s
    assert d.airborne and not d.crashed and d.position[2] > 0.8
    assert d.go_to_clear().ok
    assert d.land().ok and d.arm(False).ok
    assert d.landed_clear and not d.crashed


def test_rotorpy_runs_are_reproducible_from_the_seed():
    def run(seed):
        d = _drone("crazyflie", seed=seed)
        d.arm(True)
        return d.takeoff(1.0, 1.5).position

    assert run(5) == run(5)
    assert run(5) != run(6)
