"""The drone server (what the drone node serves), trajectories and the geofence, in plain
Python on the kinematic model."""

from __future__ import annotations

import itertools
import math
import threading

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bdi_supervisor.domains.quadcopter import drone as D
from bdi_supervisor.domains.quadcopter import trajectory as T
from bdi_supervisor.domains.quadcopter.course import GateCourse, distance
from bdi_supervisor.domains.quadcopter.geofence import Geofence, course_fence, parse_geofence
from bdi_supervisor.domains.quadcopter.server import DroneServer
from bdi_supervisor.domains.quadcopter.sim import make_sim
from bdi_supervisor.errors import InputError

COURSE = GateCourse()


def server(platform="crazyflie", dropouts=None, fence=None) -> DroneServer:
    sim = make_sim({"platform": platform, "dropouts": dropouts}, seed=7)
    return DroneServer(sim.drone, fence or sim.geofence)


def frames(index: int) -> tuple[str, str]:
    a, b = COURSE.segment(index).name.split("->")
    return D.frame_name(COURSE, a), D.frame_name(COURSE, b)


def fly(s: DroneServer, stop_after=None) -> list[D.CallResult]:
    out = [s.arm(True), s.takeoff(1.0, 0.0)]
    for i in range(1, 6):
        result, pieces = s.plan(i, *frames(i))
        out += [result, s.upload(i, pieces), s.execute(i)]
        if not out[-1].ok or i == stop_after:
            return out
    return [*out, s.land(), s.arm(False)]


# -- trajectories ---------------------------------------------------------------------------------

points = st.lists(st.tuples(*[st.floats(-3, 3, allow_nan=False)] * 3), min_size=2, max_size=8)


@settings(max_examples=60, deadline=None)
@given(points, st.floats(0.2, 2.0))
def test_pieces_pass_every_point_at_rest_at_both_ends(pts, speed):
    assume(min(distance(a, b) for a, b in itertools.pairwise(pts)) > 1e-2)
    pieces = T.through(pts, speed)
    assert T.check(pieces) is None or len(pieces) > T.MAX_PIECES
    t = 0.0
    for index, piece in enumerate(pieces):
        assert distance(T.position(pieces, t), pts[index]) < 1e-6
        assert distance(piece.at(0.0), pts[index]) < 1e-6  # continuous in position
        assert distance(piece.at(piece.duration), pts[index + 1]) < 1e-6
        if index:  # continuous in velocity
            before = pieces[index - 1].velocity(pieces[index - 1].duration)
            assert distance(before, piece.velocity(0.0)) < 1e-6
        t += piece.duration
    assert distance(T.position(pieces, T.duration(pieces)), pts[-1]) < 1e-6
    assert distance(pieces[0].velocity(0.0), (0, 0, 0)) < 1e-9
    assert distance(pieces[-1].velocity(pieces[-1].duration), (0, 0, 0)) < 1e-9


def test_a_course_segment_fits_a_crazyflie_and_runs_at_cruise_speed():
    for index in range(1, 6):
        segment = COURSE.segment(index)
        pieces = T.through(segment.waypoints, 1.0)
        assert T.check(pieces) is None and len(pieces) <= T.MAX_PIECES
        # inner pieces at cruise speed, the two end pieces ramp: length + one ramp piece
        ramp = pieces[0].duration / 2 + pieces[-1].duration / 2
        assert T.duration(pieces) == pytest.approx(segment.length() + ramp, rel=0.02)
        # the sampled path stays on the arc (the ring at flight altitude)
        assert max(abs(math.hypot(p[0], p[1]) - 2.5) for p in T.sample(pieces)) < 0.02


def test_check_names_what_is_wrong_with_a_trajectory():
    piece = T.through([(0, 0, 1), (1, 0, 1)], 1.0)[0]
    assert T.check([]) == "no pieces"
    assert "at most 31" in T.check([piece] * 32)
    assert "duration" in T.check([T.Piece(0.0, piece.x, piece.y, piece.z)])
    assert "8 finite" in T.check([T.Piece(1.0, piece.x[:7], piece.y, piece.z)])
    assert "8 finite" in T.check([T.Piece(1.0, (math.nan,) * 8, piece.y, piece.z)])
    with pytest.raises(ValueError):
        T.through([(0, 0, 1), (0, 0, 1)], 1.0)


# -- the geofence ---------------------------------------------------------------------------------

def test_geofence_from_the_mission_and_its_errors():
    assert parse_geofence(None, COURSE) == course_fence(COURSE)
    fence = parse_geofence({"min": [-3, -3, 0], "max": [3, 3, 2]}, COURSE)
    assert fence.contains((0, 0, 1)) and not fence.contains((0, 0, 2.5))
    assert fence.contains((0, 0, 2.05), margin=0.1)
    for bad, key in (({"min": [0, 0, 0]}, "geofence"), ({"min": [0, 0], "max": [1, 1, 1]},
                                                         "geofence.min"),
                     ({"min": [1, 1, 1], "max": [0, 2, 2]}, "geofence"),
                     ({"min": [2, 2, 0], "max": [3, 3, 1]}, "geofence")):
        with pytest.raises(InputError) as error:
            parse_geofence(bad, COURSE, "m.yaml")
        assert error.value.key == key and error.value.file == "m.yaml"


def test_goals_outside_the_geofence_are_refused_before_any_command():
    s = server(fence=Geofence((-4, -4, -0.2), (4, 4, 1.5)))
    assert s.arm(True).ok
    refused = s.takeoff(2.0, 0.0)
    assert refused.return_code == D.INVALID_GOAL and "geofence" in refused.message
    assert not s.vehicle.airborne
    assert s.takeoff(1.0, 0.0).ok
    assert s.go_to((0.0, 0.0, 1.8)).return_code == D.INVALID_GOAL
    high = T.through([s.vehicle.position, (0.0, 0.0, 1.8)], 1.0)
    s.plan(1, *frames(1))
    assert s.upload(1, high).return_code == D.INVALID_GOAL
    assert s.vehicle.position[2] == pytest.approx(1.0)


# -- the server -----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ["crazyflie", "pihawk"])
def test_server_flies_the_course_with_uploaded_pieces(platform):
    s = server(platform)
    results = fly(s)
    assert [r.call for r in results if not r.ok] == []
    drone = s.vehicle
    assert drone.segments_flown == [1, 2, 3, 4, 5]
    assert all(t.pieces for t in drone.trajectories.values())  # flown as uploaded
    assert not drone.armed and not drone.airborne and s.status().state == "PREARM"


def test_dropout_fails_the_segment_with_odometry_unavailable():
    s = server("pihawk", [{"segment": 3, "at": 0.3, "duration": 1.0}])
    results = fly(s)
    assert results[-1].call == "execute" and results[-1].return_code == D.ODOMETRY_UNAVAILABLE
    legs = s.vehicle.course.retreat_path(s.vehicle.position)
    for leg in legs[1:]:
        assert s.go_to(leg).ok
    assert s.land().ok and s.arm(False).ok and s.vehicle.landed_clear


def test_wrong_frames_and_unplanned_uploads_are_refused():
    s = server()
    result, pieces = s.plan(2, *frames(1))
    assert result.return_code == D.INVALID_GOAL and pieces == []
    _, pieces = s.plan(1, *frames(1))
    assert s.upload(4, pieces).return_code == D.UPLOAD_FAILURE
    assert s.execute(1, reverse=True).return_code == D.INVALID_GOAL
    assert s.execute(1, timescale=0.0).return_code == D.INVALID_GOAL


def test_emergency_stop_latches_and_only_disarming_is_accepted():
    s = server()
    fly(s, stop_after=2)
    assert s.vehicle.airborne
    assert s.emergency_stop("operator").ok
    assert s.vehicle.crashed and not s.vehicle.armed and s.status().state == "EMERGENCY"
    refused = s.takeoff(1.0, 0.0)
    assert refused.return_code == D.STATUS_CHECK_FAILED and "operator" in refused.message
    assert s.arm(True).return_code == D.STATUS_CHECK_FAILED
    assert s.arm(False).return_code != D.STATUS_CHECK_FAILED


def test_supervisor_errors_stop_the_motors_only_while_armed():
    s = server()
    assert not s.supervisor_report(bestatus=11)  # on the ground, disarmed: nothing to stop
    assert s.stopped is None
    fly(s, stop_after=1)
    assert not s.supervisor_report(bestatus=1)  # FINISHED is no error
    assert not s.supervisor_report(run_status="failed")  # a mission that failed as designed
    assert s.supervisor_report(run_status="assumption_violated")
    assert s.stopped and not s.vehicle.armed
    s2 = server()
    fly(s2, stop_after=1)
    assert s2.supervisor_report(bestatus=2) and "FAILED" in s2.stopped


def test_a_failing_vehicle_call_stops_the_motors():
    s = server()
    fly(s, stop_after=1)

    def broken(*args, **kwargs):
        raise RuntimeError("radio gone")

    s.vehicle.execute = broken
    _, pieces = s.plan(2, *frames(2))
    s.upload(2, pieces)
    result = s.execute(2)
    assert result.return_code == D.COMMANDER_FAILURE and "radio gone" in result.message
    assert "radio gone" in s.stopped and s.vehicle.crashed


def test_cancel_ends_the_running_motion_with_code_4():
    s = server("pihawk")
    fly(s, stop_after=1)
    _, pieces = s.plan(2, *frames(2))
    s.upload(2, pieces)
    real, started = s.vehicle.execute, threading.Event()

    def slow_execute(trajectory_id, timescale=1.0, cancel=None):
        started.set()
        assert cancel.wait(10.0)  # the motion runs until it is cancelled
        return real(trajectory_id, timescale, cancel)

    s.vehicle.execute = slow_execute
    results = []
    worker = threading.Thread(target=lambda: results.append(s.execute(2)))
    worker.start()
    assert started.wait(10.0)
    s.cancel()
    worker.join(10.0)
    assert results[0].return_code == D.CANCELLED_CODE
    assert s.vehicle.segments_flown == [1]
