"""The Crazyflie backend against cflib's own classes, without a radio.

cflib's ``Crazyflie`` and ``SyncCrazyflie`` connect through a link driver that only this test
process registers (``support.crazyflie_link``: an emulated Crazyflie answering the CRTP
protocol), so every command goes through cflib's real API and packing: the emulator records
what arrived (arming, take-off, the trajectory memory's bytes, define / start trajectory, land,
stop, emergency stop) and flies it. The dry run opens no link at all and logs every command.

Skipped where cflib is not installed (``pip install '.[crazyflie]'``).
"""

from __future__ import annotations

import dataclasses
import itertools
import threading

import pytest

pytest.importorskip("cflib", reason="cflib not installed (pip install '.[crazyflie]')")

from support import crazyflie_link as emu

from bdi_supervisor.domains.quadcopter import drone as D
from bdi_supervisor.domains.quadcopter.course import GateCourse, distance
from bdi_supervisor.domains.quadcopter.crazyflie import (
    CrazyflieDrone,
    CrazyflieSettings,
    DryRunLink,
)
from bdi_supervisor.domains.quadcopter.geofence import course_fence
from bdi_supervisor.domains.quadcopter.profiles import CRAZYFLIE
from bdi_supervisor.domains.quadcopter.server import DroneServer

COURSE = GateCourse()
#: the Crazyflie's profile with short motions (the emulator flies in real time)
FAST = dataclasses.replace(CRAZYFLIE, takeoff_duration=0.6, land_duration=0.6, cruise_speed=2.5,
                           timeout_slack_s=2.0)
_names = itertools.count()


@pytest.fixture
def crazyflie():
    """An emulated Crazyflie on the start pad, and the settings that reach it."""
    emu.install()
    name = f"cf{next(_names)}"
    emulator = emu.EmulatedCrazyflie(name, position=COURSE.pad)
    emu.EMULATORS[name] = emulator
    yield emulator, CrazyflieSettings(uri=emu.SCHEME + name, connect_timeout_s=5.0)
    del emu.EMULATORS[name]


@pytest.fixture
def connect(crazyflie):
    """``connect()``: the drone server on the emulated Crazyflie through cflib, its telemetry
    flowing (closed after the test)."""
    opened = []

    def open_server() -> DroneServer:
        drone = CrazyflieDrone(COURSE, FAST, course_fence(COURSE), crazyflie[1])
        drone.open()
        opened.append(drone)
        for _ in range(100):
            position, _, age = drone.link.telemetry()
            if position is not None and age < 0.5:
                return DroneServer(drone, course_fence(COURSE))
            threading.Event().wait(0.02)
        raise AssertionError("no telemetry from the emulated Crazyflie")

    yield open_server
    for drone in opened:
        drone.close()


@pytest.fixture
def airborne(crazyflie, connect):
    """(emulator, server) with the drone armed and hovering 1 m above the pad."""
    server = connect()
    assert server.arm(True).ok and server.takeoff(1.0, 0.0).ok
    return crazyflie[0], server


def frames(index: int) -> tuple[str, str]:
    a, b = COURSE.segment(index).name.split("->")
    return D.frame_name(COURSE, a), D.frame_name(COURSE, b)


def names(emulator) -> list[str]:
    return [name for name, _ in emulator.commands]


def test_connects_and_arms_after_the_link_battery_and_geofence_checks(crazyflie, connect):
    emulator, _ = crazyflie
    server = connect()
    assert emulator.connections == 1
    assert distance(server.vehicle.position, COURSE.pad) < 1e-3
    status = server.status()
    assert status.connected and status.battery_voltage_v == pytest.approx(4.0)
    assert server.arm(True).ok and emulator.armed
    assert server.arm(False).ok and not emulator.armed
    assert names(emulator) == ["arm", "arm"]


def test_a_low_battery_refuses_to_arm_and_sends_nothing(crazyflie, connect):
    emulator, _ = crazyflie
    emulator.vbat = 3.5
    result = connect().arm(True)
    assert result.return_code == D.STATUS_CHECK_FAILED
    assert "battery 3.50 V is below 3.80 V" in result.message
    assert emulator.commands == [] and not emulator.armed


def test_a_drone_outside_the_geofence_refuses_to_arm(crazyflie, connect):
    emulator, _ = crazyflie
    emulator.position = (5.0, 0.0, 0.0)
    result = connect().arm(True)
    assert result.return_code == D.STATUS_CHECK_FAILED and "geofence" in result.message
    assert emulator.commands == []


def test_no_crazyflie_at_the_uri_is_a_connection_error():
    emu.install()
    drone = CrazyflieDrone(COURSE, FAST, course_fence(COURSE),
                           CrazyflieSettings(uri=emu.SCHEME + "nobody", connect_timeout_s=5.0))
    with pytest.raises(ConnectionError, match="no link to emulated://nobody"):
        drone.open()


def test_flies_a_segment_through_cflibs_high_level_commander(airborne):
    emulator, server = airborne
    assert emulator.commands[-1] == ("takeoff", (pytest.approx(1.0), pytest.approx(0.6)))
    result, pieces = server.plan(1, *frames(1))
    assert result.ok
    upload = server.upload(1, pieces)
    assert upload.ok and upload.feedback["uploaded_pieces"] == len(pieces)
    # the memory holds the pieces as cflib packed them: the same polynomials (float32)
    offset, written = emulator.trajectories[1]
    assert offset == 0 and len(written) == len(pieces)
    for sent, got in zip(pieces, written):
        assert got.duration == pytest.approx(sent.duration, rel=1e-6)
        assert got.x == pytest.approx(sent.x, rel=1e-5, abs=1e-6)
    flown = server.execute(1)
    assert flown.ok, flown.message
    assert flown.feedback["min_distance_to_target"] < 0.05  # through gate A's opening
    assert distance(server.vehicle.position, COURSE.gates["A"].center) < 0.05
    legs = COURSE.retreat_path(server.vehicle.position)[1:]
    for leg in legs:
        assert server.go_to(leg, 0.5).ok
    assert server.land().ok and server.arm(False).ok
    assert names(emulator) == ["arm", "takeoff", "define_trajectory", "start_trajectory",
                               *["go_to"] * len(legs), "land", "stop", "arm"]
    assert emulator.commands[3][1][:2] == (1, pytest.approx(1.0))  # id 1, time scale 1
    assert not emulator.armed and emulator.where()[2] == 0.0  # motors off on the floor
    assert not server.vehicle.airborne and server.status().state == "PREARM"


def test_leaving_the_geofence_stops_the_motors(airborne):
    emulator, server = airborne
    emulator.drift = (0.0, 0.0, 2.5)  # blown up out of the fence (3 m ceiling)
    result = server.go_to((1.5, -1.5, 1.0), 0.5)
    assert result.return_code == D.COMMANDER_FAILURE and "geofence" in result.message
    assert "emergency_stop" in names(emulator) and emulator.stopped
    assert server.stopped and server.takeoff(1.0, 0.0).return_code == D.STATUS_CHECK_FAILED


def test_a_supervisor_error_in_flight_sends_the_emergency_stop(airborne):
    emulator, server = airborne
    assert server.supervisor_report(bestatus=11)  # FlexBE onboard: ERROR
    assert names(emulator)[-1] == "emergency_stop" and emulator.stopped
    assert server.status().state == "EMERGENCY"


def test_lost_telemetry_ends_a_motion_with_odometry_unavailable(airborne):
    emulator, server = airborne
    emulator.streaming = False
    assert server.go_to((1.5, -1.5, 1.0), 0.5).return_code == D.ODOMETRY_UNAVAILABLE


def test_dry_run_logs_every_command_and_opens_no_link(crazyflie):
    emulator, settings = crazyflie
    said = []
    drone = CrazyflieDrone(COURSE, CRAZYFLIE, course_fence(COURSE),
                           dataclasses.replace(settings, dry_run=True), log=said.append)
    assert isinstance(drone.link, DryRunLink)
    drone.open()
    server = DroneServer(drone, course_fence(COURSE))
    results = [server.arm(True), server.takeoff(1.0, 0.0)]
    for i in range(1, 6):
        result, pieces = server.plan(i, *frames(i))
        results += [result, server.upload(i, pieces), server.execute(i)]
    results += [server.land(), server.arm(False)]
    drone.close()
    assert [r.call for r in results if not r.ok] == []
    assert drone.segments_flown == [1, 2, 3, 4, 5]
    assert emulator.connections == 0 and emulator.commands == []  # nothing was sent
    sent = drone.link.commands
    assert sent[0].startswith("SyncCrazyflie('emulated://")
    assert sent[-1] == "SyncCrazyflie.close_link()"
    assert sent[1:3] == ["cf.supervisor.send_arming_request(True)",
                         "cf.high_level_commander.takeoff(1, 2.5)"]
    assert sum("start_trajectory" in c for c in sent) == 5
    assert all(f"dry run, not sent: {c}" in said for c in sent)
    assert "battery check skipped (dry run: no telemetry)" in said


def test_opening_an_absent_crazyflie_for_the_node_is_one_clear_error(crazyflie):
    from support.paths import MISSIONS

    from bdi_supervisor.domains.quadcopter.vehicles import open_vehicle
    from bdi_supervisor.errors import InputError

    settings = dataclasses.replace(crazyflie[1], uri=emu.SCHEME + "absent")
    with pytest.raises(InputError, match="cannot open the Crazyflie") as error:
        open_vehicle(MISSIONS / "quadcopter_crazyflie.yaml", "crazyflie", settings)
    assert error.value.key == "uri" and "no link to emulated://absent" in str(error.value)
    with pytest.raises(InputError, match="flies the crazyflie platform only"):
        open_vehicle(MISSIONS / "quadcopter_pihawk.yaml", "crazyflie", crazyflie[1])
    opened = open_vehicle(MISSIONS / "quadcopter_crazyflie.yaml", "crazyflie", crazyflie[1])
    try:
        assert opened.backend == "crazyflie" and crazyflie[0].connections == 1
    finally:
        opened.close()
