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

Skipped, saying so, where rclpy, flexbe_core or std_srvs are not importable (FlexBE is not on
PyPI: source ../shared/ros-stack/env.sh).
"""

from __future__ import annotations

import json
import time

import pytest

pytestmark = pytest.mark.ros
for _module in ("rclpy", "flexbe_core.core", "std_srvs.srv"):
    pytest.importorskip(_module, reason=f"{_module} not importable: FlexBE and rclpy are not on "
                        "PyPI (source ../shared/ros-stack/env.sh, FlexBE 2.3, 3.0 or 4.0)")

from flexbe_support.engine import import_behavior, onboard_node, run_behavior  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402
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


@pytest.mark.parametrize(("name", "seed", "script"), RUNS)
def test_behavior_runs_against_the_world_as_the_embedded_runner(name, seed, script, ros_env,
                                                                 tmp_path):
    mission, prep = prepared(name)
    expected, sm_outcome = embedded(mission, prep, seed, script)
    result = realize_mission(prep.reduced, mission, out_dir=tmp_path / "behavior")
    behavior_class = import_behavior(result)
    args = ["-p", f"mission:={name}", "-p", f"seed:={-1 if seed is None else seed}"]
    if script:
        args += ["-p", f"force:={script}"]
    world = start_node(WORLDS[name], args, ros_env)
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

