"""The paper's small domains under the real FlexBE engine, against their world nodes alone.

The realized behaviors of ``two_rivers`` and ``beer_robot`` (the project's own states in
``bdi_flexbe_states``) run in this process under the real flexbe_core, as onboard runs them
(test/flexbe_support/engine.py), at full autonomy and with nobody forcing outcomes (as in an
operator's run), while the domain's world node runs as its own process on real rclpy: the world
alone decides the forced and seeded outcomes. Each run must visit the states the embedded runner
visits for the same mission, seed and forced outcomes, with the same outcomes, end in the same
container outcome, and leave the world as those outcomes say (a failed crossing moves nothing).
test_ros_flexbe_missions.py runs the same missions through ``ros2 launch``, where the supervisor
drives the forced outcomes and the world must agree with it.

The link may lose replies (Fast DDS drops a reply it cannot yet deliver, after the world acted):
against a world node whose replies are lost, or late, by the test's fault
(``support/lossy_world.py``), the runs still end as the embedded runner's, the world acting once
per activation (a state asks again with the same request id and gets the recorded answer; a late
reply to an earlier send still counts). A state that never gets a reply, or whose world is not
there or is killed with its request, raises within its timeout instead of taking an outcome the
world may not have had (``bdi_supervisor.runtime.exchange``).

Skipped, saying so, where rclpy, flexbe_core or std_srvs are not importable (FlexBE is not on
PyPI: source ../shared/ros-stack/env.sh).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

import pytest

pytestmark = pytest.mark.ros
for _module in ("rclpy", "flexbe_core.core", "std_srvs.srv"):
    pytest.importorskip(_module, reason=f"{_module} not importable: FlexBE and rclpy are not on "
                        "PyPI (source ../shared/ros-stack/env.sh, FlexBE 2.3, 3.0 or 4.0)")

from flexbe_support.engine import (  # noqa: E402
    import_behavior,
    initialize_core,
    onboard_node,
    run_behavior,
)
from std_srvs.srv import Trigger  # noqa: E402
from support.flexbe_lines import installed_line  # noqa: E402
from support.paths import ROOT  # noqa: E402
from support.ros_helpers import start_node, stop  # noqa: E402
from support.supervisors import prepared  # noqa: E402

from bdi_supervisor.realize.stage import realize_mission  # noqa: E402
from bdi_supervisor.runtime.session import RunOptions, run_supervisor  # noqa: E402

WORLDS = {"two_rivers": "bdi_supervisor.domains.two_rivers.ros.world_node",
          "beer_robot": "bdi_supervisor.domains.beer_robot.ros.world_node"}
#: (mission, seed or None for the mission's, forced-outcome script or None)
RUNS = [("two_rivers", None, None), ("two_rivers", 0, None), ("two_rivers", 2, None),
        ("beer_robot", None, None), ("beer_robot", None, "open_door=failure"),
        ("beer_robot", None, "grab_beer=failure")]


def embedded(mission, prep, seed, script):
    """The embedded runner's (state, normalized outcome) trace and SM outcome."""
    result = run_supervisor(mission, prep.machine, prep.reduced,
                            options=RunOptions(seed=seed, force=script))
    return [(s.state, s.outcome.outcome) for s in result.steps], result.sm_outcome


def world_report(node, executor, domain: str) -> dict:
    client = node.create_client(Trigger, f"{domain}/world")
    assert client.wait_for_service(timeout_sec=10.0)
    future = client.call_async(Trigger.Request())
    deadline = time.monotonic() + 10.0
    while not future.done() and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    node.destroy_client(client)
    return json.loads(future.result().message)


def start_world(name: str, args: list[str], env: dict[str, str], fault: dict[str, str] | None):
    """The world node of ``name``; with ``fault`` (``LOSE_REPLIES``, ``DELAY_REPLIES``) its
    replies lost or late by the test's fault (``support/lossy_world.py``)."""
    if not fault:
        return start_node(WORLDS[name], args, env)
    env = {**env, **fault, "LOSSY_WORLD": name,
           "PYTHONPATH": os.pathsep.join([str(ROOT / "test"), env.get("PYTHONPATH", "")])}
    return start_node("support.lossy_world", args, env)


@pytest.mark.parametrize(("name", "seed", "script"), RUNS)
def test_behavior_runs_against_the_world_as_the_embedded_runner(name, seed, script, ros_env,
                                                                 tmp_path):
    run_against_the_world(name, seed, script, ros_env, tmp_path)


@pytest.mark.parametrize(("name", "seed", "script", "lose"), [
    ("two_rivers", None, None, "11011000101"),
    ("beer_robot", None, None, "1111"),
    ("beer_robot", None, "open_door=failure", "1"),
])
def test_lost_replies_change_no_outcome(name, seed, script, lose, ros_env, tmp_path):
    """The world's replies are lost where ``lose`` has a 1 (in the order it serves requests):
    the run is still the embedded runner's, the world acted once per activation, and every lost
    reply was asked for again (answered from the record)."""
    report, output = run_against_the_world(name, seed, script, ros_env, tmp_path,
                                           {"LOSE_REPLIES": lose})
    # from the world's log, which also has a repeat that was on its way when the run ended
    repeats = output.count("answered from the record")
    requests = len(report["served"]) + repeats  # every action request it served
    lost = output.count("[test] reply ")
    assert lost == lose[:requests].count("1") >= 1, output  # the fault happened as drawn
    assert repeats >= report["repeats"] >= lost, (report, output)  # each lost reply asked again


def test_replies_slower_than_the_retry_period_change_no_outcome(ros_env, tmp_path):
    """Every reply leaves 1.2 s late, after the state has asked again (every 0.5 s): the reply to
    an earlier send still decides (the state keeps each send's call), so the run is the embedded
    runner's and the world acted once per activation."""
    report, output = run_against_the_world("beer_robot", None, None, ros_env, tmp_path,
                                           {"DELAY_REPLIES": "1.2"})
    assert report["repeats"] >= len(report["served"]) >= 1, (report, output)


def run_against_the_world(name, seed, script, ros_env, tmp_path, fault=None):
    """Run ``name``'s behavior against its world node and hold it against the embedded run;
    return the world's report and its log."""
    mission, prep = prepared(name)
    expected, sm_outcome = embedded(mission, prep, seed, script)
    result = realize_mission(prep.reduced, mission, out_dir=tmp_path / "behavior")
    behavior_class = import_behavior(result)
    args = ["-p", f"mission:={name}", "-p", f"seed:={-1 if seed is None else seed}"]
    if script:
        args += ["-p", f"force:={script}"]
    world = start_world(name, args, ros_env, fault)
    try:
        with onboard_node("bdi_small_domains_test") as (node, executor):
            run = run_behavior(behavior_class(node), executor, limit=60.0)
            report = world_report(node, executor, name)
    finally:
        code, output = stop(world)
    assert code == 0, output
    machine = result.machine
    flexbe = [(state, machine.state(state).outcomes[outcome]) for state, outcome in run.trace]
    assert flexbe == expected, output
    assert run.outcome == sm_outcome, output
    # the world served exactly the activations of its capabilities, with those outcomes
    mine = [(s, o) for s, o in expected if machine.state(s).capability in
            {r["capability"] for r in report["served"]}]
    assert [r["outcome"] for r in report["served"]] == [o for _, o in mine], report
    check_world(name, report, sm_outcome)
    return report, output


def check_world(name: str, report: dict, sm_outcome: str) -> None:
    world = report["world"]
    if name == "two_rivers":
        moved = sum(r["outcome"] == "completed" for r in report["served"])
        assert world["crossings"] == moved and not world["eaten"], report
        assert set(world["banks"].values()) == {"far"}, report
    elif sm_outcome == "finished":
        assert world["given"] == ["beer to owner"] and world["holding"] is None, report
    else:
        assert world["given"] == [], report



def test_a_state_that_never_hears_back_raises_and_takes_no_outcome(ros_env):
    """Every reply lost: the world crossed (or failed to, in the seeded wind) once, and the state,
    having asked again every 0.5 s until its deadline, raises OutcomeUnknown instead of taking
    ``done`` or ``failed``: it cannot know which happened."""
    from bdi_flexbe_states.two_rivers.move_state import MoveState
    from bdi_flexbe_states.world_action import SERVICE_TYPE
    from bdi_supervisor.ros.world import ACTION_SERVICE
    from bdi_supervisor.runtime.exchange import OutcomeUnknown

    assert SERVICE_TYPE is ACTION_SERVICE
    world = start_world("two_rivers", ["-p", "mission:=two_rivers"], ros_env,
                        {"LOSE_REPLIES": "1" * 200})
    try:
        with onboard_node("bdi_lost_replies_test") as (node, executor):
            initialize_core(node)
            world_report(node, executor, "two_rivers")  # the world is up (its services too)
            state = MoveState(item="goat", timeout=3.0)
            ended, seconds = activate(state, executor)
            report = world_report(node, executor, "two_rivers")
    finally:
        code, output = stop(world)
    assert code == 0, output
    assert len(ended) == 1 and isinstance(ended[0], OutcomeUnknown), (ended, output)
    assert "may or may not have acted" in str(ended[0]) and "within 3 s" in str(ended[0])
    assert seconds >= 3.0, seconds  # it waited out its timeout (and no longer: ``activate``)
    assert [r["capability"] for r in report["served"]] == ["move"], report  # it acted once
    assert report["repeats"] >= 3, report  # asked again every 0.5 s for 3 s
    # every request it served, the first and each repeat, lost its reply
    assert output.count("[test] reply ") == 1 + output.count("answered from the record"), output


def test_a_state_whose_world_is_gone_raises(ros_env):
    """No world node (never started, or stopped): the state waits for its service until its
    timeout, then raises WorldUnavailable: the world was not asked, and ``failed`` (which the
    supervisor would recover from by asking the missing world again) is not taken either."""
    from bdi_flexbe_states.beer_robot.open_door_state import OpenDoorState
    from bdi_supervisor.runtime.exchange import WorldUnavailable

    with onboard_node("bdi_world_gone_test") as (node, executor):
        initialize_core(node)
        ended, seconds = activate(OpenDoorState(timeout=2.0), executor)
    assert len(ended) == 1 and isinstance(ended[0], WorldUnavailable), ended
    assert "'beer_robot/open_door' not reachable within 2 s" in str(ended[0])
    assert seconds >= 2.0, seconds


def test_a_behavior_whose_world_dies_with_a_request_takes_no_outcome(ros_env, tmp_path):
    """The world acts on the first request, its reply is lost and the world is killed: the move
    state raises at its timeout (10 s) and no state takes an outcome. FlexBE 3.x/4.x then stop
    the behavior with None; 2.x keeps the raising state active for an operator until the
    behavior is preempted (test/support/flexbe_lines.py); the supervisor ends either as an engine
    error (test_ros_flexbe_onboard.py)."""
    mission, prep = prepared("two_rivers")
    result = realize_mission(prep.reduced, mission, out_dir=tmp_path / "behavior")
    world = start_world("two_rivers", ["-p", "mission:=two_rivers"], ros_env,
                        {"LOSE_REPLIES": "1"})
    lines: list[str] = []
    reader = threading.Thread(target=kill_after_first_loss, args=(world, lines), daemon=True)
    reader.start()
    try:
        with onboard_node("bdi_world_dies_test") as (node, executor):
            run = run_behavior(import_behavior(result)(node), executor, limit=25.0)
    finally:
        if world.poll() is None:
            world.kill()
        reader.join(timeout=10)
        world.wait(timeout=10)
    output = "".join(lines)
    assert world.returncode == -signal.SIGKILL, output  # killed with the request unanswered
    assert "move#1 two_rivers/farmer/move/" in output, output  # the world had acted
    assert run.trace == [], (run, output)
    if installed_line() >= 3:
        assert run.outcome is None and run.seconds < 25.0, (run, output)
    else:
        assert run.outcome == "preempted", (run, output)


def kill_after_first_loss(world: subprocess.Popen, lines: list[str]) -> None:
    """Read the world's log into ``lines``; SIGKILL it once its first reply was lost."""
    for line in world.stdout:
        lines.append(line)
        if "[test] reply 1 lost" in line:
            world.send_signal(signal.SIGKILL)


def activate(state, executor) -> tuple[list, float]:
    """Enter and execute ``state`` as FlexBE does (on a worker thread, every 0.05 s, while this
    thread spins the executor) until it returns an outcome or raises: ([outcome or error],
    seconds from entering); nothing after 60 s."""
    ended: list = []

    def run() -> None:
        try:
            type(state).on_enter(state, None)
            while (outcome := type(state).execute(state, None)) is None:
                time.sleep(0.05)
            ended.append(outcome)
        except Exception as error:  # the test looks at what it is
            ended.append(error)

    start = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    while worker.is_alive() and time.monotonic() - start < 60.0:
        executor.spin_once(timeout_sec=0.02)
    return ended, time.monotonic() - start
