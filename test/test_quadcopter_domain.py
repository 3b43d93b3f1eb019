"""Quadcopter gate course: geometry, dropouts and watchdog, kinematic model, drone calls,
adapters."""

from __future__ import annotations

import itertools
import math
import threading

import pytest
from support.paths import CATALOGS

from bdi_supervisor.catalog.model import Capability, Catalog, Parameter
from bdi_supervisor.domains.quadcopter import drone as D
from bdi_supervisor.domains.quadcopter.backend import Motion
from bdi_supervisor.domains.quadcopter.course import GateCourse, distance
from bdi_supervisor.domains.quadcopter.dropout import (
    DropoutPlan,
    DropoutWindow,
    PoseWatchdog,
    parse_dropouts,
)
from bdi_supervisor.domains.quadcopter.kinematic import KinematicBackend
from bdi_supervisor.domains.quadcopter.profiles import CRAZYFLIE, PIHAWK, PROFILES, profile
from bdi_supervisor.domains.quadcopter.sim import make_sim
from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapters import Activation, invoke

COURSE = GateCourse()


def drone(platform="crazyflie", plan=None, watchdog=True) -> D.SimDrone:
    prof = PROFILES[platform]
    return D.SimDrone(COURSE, prof, KinematicBackend(COURSE, prof, plan, watchdog))


def fly_course(d: D.SimDrone, stop_on_failure=True) -> list[D.CallResult]:
    results = [d.arm(True), d.takeoff(1.0, d.profile.takeoff_duration)]
    for i in range(1, 6):
        a, b = COURSE.segment(i).name.split("->")
        results += [d.plan(i, D.frame_name(COURSE, a), D.frame_name(COURSE, b)), d.upload(i),
                    d.execute(i)]
        if stop_on_failure and not results[-1].ok:
            return results
    return [*results, d.land(), d.arm(False)]


# -- course ---------------------------------------------------------------------------------------

def test_gates_lie_on_the_ring_with_posts_along_the_radius():
    for name, angle in (("A", 0), ("B", 90), ("C", 180), ("D", 270)):
        gate = COURSE.gates[name]
        assert math.hypot(*gate.center[:2]) == pytest.approx(2.5)
        bearing = math.degrees(math.atan2(gate.center[1], gate.center[0]))
        assert bearing % 360 == pytest.approx(angle)
        posts = [b for b in gate.boxes if b.hi[2] - b.lo[2] > 1.0]
        radii = sorted(math.hypot((b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2) for b in posts)
        assert radii == pytest.approx([2.0, 3.0])
        # the opening centre is clear of the frame by about half the opening
        assert gate.clearance(gate.center) == pytest.approx(0.475, abs=1e-6)


def test_segments_chain_start_gates_end_and_stay_clear_of_frames():
    segments = COURSE.segments()
    assert [s.name for s in segments] == ["start->A", "A->B", "B->C", "C->D", "D->end"]
    for prev, seg in itertools.pairwise(segments):
        assert distance(prev.end, seg.start) < 1e-9
    assert distance(segments[0].start, segments[-1].end) < 1e-9
    for seg in segments:
        if seg.gate:
            assert distance(seg.end, COURSE.gates[seg.gate].center) < 1e-9
        assert min(COURSE.clearance(p) for p in seg.waypoints) > 0.4


def test_retreat_path_leaves_the_gate_plane_before_moving_inward():
    for gate in COURSE.gates.values():
        path = COURSE.retreat_path(gate.center)
        assert len(path) == 3
        assert gate.plane_distance(path[1]) >= COURSE.gate_exit_distance
        assert math.hypot(*path[-1][:2]) == pytest.approx(1.5)
        assert COURSE.landing_blocked(gate.center) is gate
        assert COURSE.landing_blocked(path[-1]) is None
        # sampled along the path, the frame is never touched
        for a, b in itertools.pairwise(path):
            for k in range(21):
                p = tuple(x + (y - x) * k / 20 for x, y in zip(a, b))
                assert COURSE.clearance(p) > 0.1


# -- dropouts and watchdog ------------------------------------------------------------------------

def test_dropout_windows_by_time_segment_and_seeded_random():
    plan = DropoutPlan.by_time(5.0, 1.0) + DropoutPlan.by_segment(2, 0.3, 0.5)
    assert plan.stale(5.5, None, 0.0) and not plan.stale(6.0, None, 0.0)
    assert plan.stale(20.0, 2, 0.4) and not plan.stale(20.0, 3, 0.4)
    assert not plan.stale(20.0, 2, 0.8)
    a = DropoutPlan.seeded_random(3, 0.1, (0.2, 1.0), 100.0)
    assert a == DropoutPlan.seeded_random(3, 0.1, (0.2, 1.0), 100.0)
    assert a != DropoutPlan.seeded_random(4, 0.1, (0.2, 1.0), 100.0)
    assert a.windows and all(0.2 <= w.duration <= 1.0 and w.start < 100 for w in a.windows)


def test_parse_dropouts_and_its_errors():
    plan = parse_dropouts([{"segment": 2, "at": 0.3, "duration": 1.0}, {"time": 3, "duration": 0.5},
                           {"random": {"seed": 1, "rate": 0.2, "horizon": 30}}], "m.yaml")
    assert plan.windows[:2] == (DropoutWindow(0.3, 1.0, 2), DropoutWindow(3, 0.5))
    assert len(plan.windows) > 2
    for bad, key in (([{"segment": 7, "duration": 1}], "dropouts[0].segment"),
                     ([{"segment": 1}], "dropouts[0].duration"),
                     ([{"time": 1, "duration": 1, "x": 2}], "dropouts[0].x"),
                     ([{"random": {"seed": 1, "rate": 1, "duration": [2, 1]}}],
                      "dropouts[0].random.duration"),
                     ([{"when": 1}], "dropouts[0]"), ({"time": 1}, "dropouts")):
        with pytest.raises(InputError) as err:
            parse_dropouts(bad, "m.yaml")
        assert err.value.key == key and err.value.file == "m.yaml"


def test_watchdog_trips_only_after_the_limit():
    dog = PoseWatchdog(0.2)
    dog.update(0.0, True)
    dog.update(0.1, False)
    assert not dog.tripped(0.2)
    assert dog.tripped(0.21)
    dog.update(0.25, True)
    assert dog.age(0.3) == pytest.approx(0.05)


# -- kinematic model ------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ["crazyflie", "pihawk"])
def test_nominal_course_flies_all_five_segments_and_lands_clear(platform):
    d = drone(platform)
    results = fly_course(d)
    assert [r.return_code for r in results] == [0] * len(results)
    assert d.segments_flown == [1, 2, 3, 4, 5]
    assert d.landed_clear and not d.armed and not d.crashed
    assert distance(d.position, COURSE.pad) < 0.01
    for r in results:
        if r.call == "execute":
            assert r.feedback["min_distance_to_target"] < d.profile.gate_tolerance


def test_kinematic_model_is_deterministic():
    plan = DropoutPlan.seeded_random(5, 0.2, (0.05, 0.6), 60.0)
    runs = [[(r.call, r.return_code, r.position) for r in fly_course(drone("pihawk", plan))]
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_dropout_with_watchdog_is_a_clean_odometry_failure_near_the_gate():
    d = drone("crazyflie", DropoutPlan.by_segment(2, 0.3, 1.0))
    results = fly_course(d)
    last = results[-1]
    assert (last.call, last.return_code, last.outcome) == ("execute", D.ODOMETRY_UNAVAILABLE,
                                                           "failed")
    assert last.feedback["max_pose_age"] == pytest.approx(CRAZYFLIE.staleness_limit_s, abs=0.02)
    assert d.airborne and not d.crashed and d.segments_flown == [1]
    assert d.position[2] > 0.9  # still at flight altitude


def test_dropout_without_watchdog_crashes_and_short_dropouts_are_tolerated():
    d = drone("crazyflie", DropoutPlan.by_segment(2, 0.3, 1.0), watchdog=False)
    assert fly_course(d)[-1].return_code == D.CRASHED and d.crashed
    d = drone("crazyflie", DropoutPlan.by_segment(2, 0.3, 0.1), watchdog=True)
    assert all(r.ok for r in fly_course(d)) and d.segments_flown == [1, 2, 3, 4, 5]


def test_landing_inside_a_gate_hits_the_crossbar_retreating_first_lands_clear():
    # a dropout just before gate A: the watchdog stops the drone in the gate
    plan = DropoutPlan.by_segment(1, 2.0, 1.0)
    d = drone("pihawk", plan)
    assert fly_course(d)[-1].return_code == D.ODOMETRY_UNAVAILABLE
    assert COURSE.landing_blocked(d.position, PIHAWK.radius) is COURSE.gates["A"]
    r = d.land()
    assert r.return_code == D.CRASHED and d.crashed
    d = drone("pihawk", plan)
    fly_course(d)
    assert d.go_to_clear().ok
    assert COURSE.landing_blocked(d.position, PIHAWK.radius) is None
    assert d.land().ok and d.arm(False).ok and d.landed_clear


def test_drone_refuses_out_of_order_calls():
    d = drone()
    assert d.takeoff(1.0, 2.0).return_code == D.START_FAILURE  # not armed
    assert d.upload(3).return_code == D.UPLOAD_FAILURE  # not planned
    assert d.plan(2, "start", "gate_A_target_1").return_code == D.INVALID_GOAL
    assert d.plan(9, "start", "end").return_code == D.INVALID_GOAL
    assert d.arm(True).ok and d.takeoff(1.0, 2.0).ok
    assert d.arm(False).return_code == D.INVALID_GOAL  # never disarm in flight
    assert d.execute(1).return_code == D.START_FAILURE  # not uploaded


def test_cancel_stops_a_motion():
    d = drone()
    d.arm(True)
    cancel = threading.Event()
    cancel.set()
    r = d.takeoff(1.0, 2.0, cancel)
    assert r.return_code == D.CANCELLED_CODE and r.outcome == "canceled"


def test_timeout_budget_in_simulated_time():
    backend = KinematicBackend(COURSE, CRAZYFLIE)
    result = backend.fly(Motion([COURSE.pad, (1.77, -1.77, 1.0)], 0.1, "takeoff", budget_s=2.0),
                         0.0)
    assert result.status == "timeout" and result.duration == pytest.approx(2.0, abs=0.02)


# -- profiles and configuration -------------------------------------------------------------------

def test_profiles_differ_where_the_platforms_differ():
    assert (CRAZYFLIE.pose_source, PIHAWK.pose_source) == ("onboard", "mocap")
    assert PIHAWK.arm_time_s > CRAZYFLIE.arm_time_s
    assert PIHAWK.timeout_slack_s > CRAZYFLIE.timeout_slack_s
    assert profile("pihawk", {"staleness_limit_s": 1}).staleness_limit_s == 1.0
    with pytest.raises(InputError) as err:
        profile("pihawk", {"speed": 2.0}, "m.yaml", "runner.quadcopter.profile")
    assert err.value.key == "runner.quadcopter.profile.speed"
    with pytest.raises(InputError):
        profile("tello")
    with pytest.raises(InputError):
        profile("pihawk", {"cruise_speed": "fast"})


def test_make_sim_validates_its_block():
    sim = make_sim({"platform": "pihawk", "dropouts": [{"segment": 3, "duration": 1}]}, seed=4)
    assert sim.profile is PIHAWK and sim.seed == 4 and sim.backend_name == "kinematic"
    assert sim.describe()["dropouts"] == [{"start": 0.0, "duration": 1, "segment": 3}]
    for bad, key in (({"backend": "gazebo"}, "runner.quadcopter.backend"),
                     ({"watchdog": "yes"}, "runner.quadcopter.watchdog"),
                     ({"colour": 1}, "runner.quadcopter.colour"),
                     ({"seed": 1.5}, "runner.quadcopter.seed")):
        with pytest.raises(InputError) as err:
            make_sim(bad, source="m.yaml")
        assert err.value.key == key


# -- adapters -------------------------------------------------------------------------------------

def _cap(name, interface, params, outcomes=("completed", "failure")):
    flex = {"done": "completed"}
    if "failure" in outcomes:
        flex.update({"failed": "failure", "timeout": "failure", "canceled": "failure"})
    return Capability(name, interface, tuple(Parameter(k, v) for k, v in params.items()),
                      outcomes=tuple(outcomes), flexbe_outcomes=flex)


def _catalog():
    caps = [
        _cap("arm", "pkg/ArmState", {"arm": True}),
        _cap("takeoff", "pkg/TakeoffState", {"height": 1.0, "duration": 2.0}),
        _cap("plan_1", "pkg/PlanTrajectoryState",
             {"trajectory_id": 1, "start_frame": "start", "target_frame": "gate_A_target_1"}),
        _cap("upload_1", "pkg/UploadTrajectoryState", {"trajectory_id": 1}),
        _cap("execute_1", "pkg/ExecuteTrajectoryState", {"trajectory_id": 1}),
        _cap("retreat", "pkg/GoToState", {"target": "clear_of_gate"}),
        _cap("land", "pkg/LandState", {}),
        _cap("log_failed", "LogState", {"text": "failed"}, ("completed",)),
    ]
    return Catalog("quad", {c.name: c for c in caps},
                   state_outcome_mappings={"done": "completed", "failed": "failure"})


def _run(adapters, name, catalog):
    cap = catalog.capabilities[name]
    act = Activation(name, {p.name: p.value for p in cap.parameters})
    return invoke(adapters[name], act, cap.outcomes)


def test_adapters_run_the_drone_and_report_normalized_outcomes_with_detail():
    catalog = _catalog()
    dropout = {"segment": 1, "at": 0.5, "duration": 1}
    sim = make_sim({"platform": "crazyflie", "dropouts": [dropout]})
    adapters = sim.adapters(catalog)
    assert {a.describe().kind for a in adapters.values()} >= {"quadcopter.arm", "quadcopter.log"}
    for name in ("arm", "takeoff", "plan_1", "upload_1"):
        out = _run(adapters, name, catalog)
        assert (out.outcome, out.flexbe_outcome, out.forced) == ("completed", "done", False)
    out = _run(adapters, "execute_1", catalog)
    assert (out.outcome, out.flexbe_outcome) == ("failure", "failed")
    assert out.forced and out.layer == "injection" and out.detail["pose_dropout"]
    assert out.detail["return_code"] == 2 and out.detail["code"] == "odometry_unavailable"
    assert _run(adapters, "log_failed", catalog).outcome == "completed"
    assert _run(adapters, "retreat", catalog).outcome == "completed"
    assert _run(adapters, "land", catalog).outcome == "completed"
    truth = sim.ground_truth()
    assert truth["airborne"] is False and truth["log"] == ["failed"]
    for adapter in adapters.values():
        adapter.close()


def test_adapter_without_a_required_parameter_fails_cleanly():
    catalog = _catalog()
    adapters = make_sim().adapters(catalog)
    out = invoke(adapters["plan_1"], Activation("plan_1", {}), ("completed", "failure"))
    assert out.outcome == "failure" and "trajectory_id" in out.reason


def test_unknown_interface_is_an_input_error():
    catalog = _catalog()
    catalog.capabilities["dance"] = _cap("dance", "pkg/DanceState", {})
    with pytest.raises(InputError) as err:
        make_sim().adapters(catalog, source="cat.yaml")
    assert err.value.key == "capabilities.dance.interface"


# -- runner binding (--sim quadcopter) ------------------------------------------------------------

def test_runner_binding_opens_the_quadcopter_sim_and_binds_every_capability():
    from bdi_supervisor.catalog.loader import load_catalog
    from bdi_supervisor.domains import quadcopter
    from bdi_supervisor.domains.quadcopter.adapters import CALLS
    from bdi_supervisor.runtime import binding

    assert set(quadcopter.ADAPTER_TYPES) == {f"quadcopter.{kind}" for kind, _ in CALLS.values()}
    catalog = load_catalog(CATALOGS / "quadcopter.yaml")
    config = binding.parse_runner({"runner": {"sim": "quadcopter", "quadcopter": {
        "platform": "pihawk", "dropouts": [{"segment": 3, "duration": 1.0}]}}}, "m.yaml")
    backend = binding.open_backend("quadcopter", config, 3, None)
    try:
        adapters = binding.build_adapters(sorted(catalog.capabilities), catalog, config, backend,
                                          None)
        assert sorted(adapters) == sorted(catalog.capabilities)
        kinds = {name: a.describe().kind for name, a in adapters.items()}
        assert kinds["execute_3"] == "quadcopter.execute_trajectory"
        assert kinds["log_failed"] == "quadcopter.log"
        assert kinds["retreat"] == "quadcopter.go_to"
        truth = backend.truth_reader()()
        assert truth["platform"] == "pihawk" and truth["armed"] is False
    finally:
        backend.close()
    with pytest.raises(InputError) as err:
        binding.open_backend("quadcopter", binding.parse_runner(
            {"runner": {"quadcopter": {"platform": "tello"}}}, "m.yaml"), 0)
    assert err.value.key == "runner.quadcopter.platform"
