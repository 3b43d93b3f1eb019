"""``runner:=flexbe`` against the real FlexBE onboard: the realized behavior, installed where
FlexBE's behavior library finds it, is selected by the supervisor node and runs to its container
outcome; ``exit_when_done`` then ends the process (and the launch) with the run's result.

Needs FlexBE's flexbe_msgs, flexbe_core, flexbe_onboard and flexbe_states (not on PyPI; CI
sources ../shared/ros-stack/env.sh: FlexBE 3.0.7, and 2.3.3 or 4.0.3 with ``ROS_STACK_FLEXBE``)
and, for the launch test, Jazzy's ``launch``/``launch_ros`` (the same stack): the tests skip,
saying so, where they are absent (test_ros_flexbe_run.py covers the hand-shake and reports as
plain functions everywhere). See docs/flexbe.md.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

pytestmark = pytest.mark.ros
pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
for module in ("flexbe_msgs.msg", "flexbe_onboard.start_behavior", "flexbe_states.log_state"):
    pytest.importorskip(module, reason=STACK_MISSING.format(what=f"FlexBE ({module})"))

from support import realize_cases as cases  # noqa: E402
from support.flexbe_lines import ENDINGS  # noqa: E402
from support.ros_helpers import (  # noqa: E402
    TimedOutput,
    ament_prefix,
    node_modules,
    start_launch,
    start_node,
    stop,
)

from bdi_supervisor.common import ExitCode  # noqa: E402
from bdi_supervisor.mission import load_mission  # noqa: E402
from bdi_supervisor.pipeline import load_folder  # noqa: E402
from bdi_supervisor.realize.install import PrefixPaths, prepare_prefix  # noqa: E402
from bdi_supervisor.realize.stage import behavior_name, mission_outcomes, realize  # noqa: E402
from bdi_supervisor.ros import flexbe_run, launch_plan  # noqa: E402
from bdi_supervisor.ros.synthesis_node import run_pipeline  # noqa: E402
from bdi_supervisor.synthesis import strategy as strategy_io  # noqa: E402

VENDING = ROOT / "config" / "missions" / "vending.yaml"
#: coffee's request has no SM outcome: its behavior runs until it is stopped
COFFEE = ROOT / "config" / "missions" / "coffee.yaml"
#: a state whose execute() raises (test/flexbe_support, imported by onboard from test/)
RAISING = "flexbe_support.raising_state.RaisingState"
#: the FlexBE line installed here (2, 3 or 4)
ENGINE_LINE = int(importlib.metadata.version("flexbe_onboard").split(".")[0])
#: how soon a run must end after onboard died, or a launch after the synthesis verdict
PROMPT = 5.0
#: every node of this tree (the world nodes too), where launch_ros finds them
MODULES = node_modules()


def realized(mission: Path, tmp_path: Path,
             interface: str | None = None) -> tuple[Path, PrefixPaths]:
    """The mission's run folder (pipeline as the synthesis node runs it) and an empty run-time
    prefix, prepared as the launch prepares it before onboard starts; with ``interface``, the
    behavior is realized again with every capability bound to that state class."""
    folder = tmp_path / "run"
    record = run_pipeline(mission, folder)
    assert record["audit"] == "PASS" and record["behavior"], record
    if interface is not None:
        loaded = load_mission(mission)
        shutil.rmtree(folder / "behavior")
        realize(strategy_io.load(folder / "reduced.json"),
                cases.bind_states(loaded.catalog, interface),
                behavior=behavior_name(loaded.name), out_dir=folder / "behavior",
                sm_outcomes=mission_outcomes(loaded), source=str(folder / "reduced.json"))
    return folder, prepare_prefix(folder / launch_plan.FLEXBE_PREFIX)


@pytest.fixture
def vending(tmp_path):
    return realized(VENDING, tmp_path)


@pytest.fixture
def coffee(tmp_path):
    return realized(COFFEE, tmp_path)


def flexbe_env(env: dict[str, str], prefix: PrefixPaths, *ament: Path,
               python: tuple[Path, ...] = ()) -> dict[str, str]:
    """``env`` with the prefix (and other ament prefixes, and ``python`` folders) first on
    onboard's paths."""
    paths = [str(p) for p in (prefix.ament_prefix, *ament)]
    modules = [str(p) for p in (prefix.python_path, *python)]
    return {**env,
            "AMENT_PREFIX_PATH": os.pathsep.join([*paths, env.get("AMENT_PREFIX_PATH",
                                                                  sys.prefix)]),
            "PYTHONPATH": os.pathsep.join([*modules, env.get("PYTHONPATH", "")])}


def supervise(mission: str, folder: Path, prefix: PrefixPaths, env: dict[str, str],
              *extra: str) -> subprocess.Popen:
    """The supervisor node running ``folder`` in FlexBE (installing its behavior into
    ``prefix``), ending the process with the run."""
    return start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", f"mission:={mission}", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", f"flexbe_prefix:={prefix.root}", "-p", "exit_when_done:=true", *extra], env)


class Observer:
    """What onboard sends on flexbe/status and flexbe/log, heard by a node of this test."""

    def __init__(self, context) -> None:
        import rclpy
        from flexbe_msgs.msg import BehaviorLog, BEStatus
        from rclpy.executors import SingleThreadedExecutor

        self.node = rclpy.create_node("onboard_observer", context=context)
        self.status: list = []
        self.logs: list = []
        self.subscriptions = [
            self.node.create_subscription(BEStatus, "flexbe/status", self.status.append, 100),
            self.node.create_subscription(BehaviorLog, "flexbe/log", self.logs.append, 100)]
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        while not self.done.is_set():
            self.executor.spin_once(timeout_sec=0.05)

    def wait_matched(self, timeout: float = 30.0) -> bool:
        """Whether onboard's status and log publishers are matched with this node's
        subscriptions within ``timeout`` s (volatile topics: what comes before is lost)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(sub.get_publisher_count() > 0 for sub in self.subscriptions):
                return True
            time.sleep(0.1)
        return False

    def after_start(self, behavior_id: int) -> list[tuple[int, tuple[str, ...]]]:
        """(code, args) of every report after this behavior's STARTED."""
        codes = [(int(m.code), tuple(m.args), int(m.behavior_id)) for m in list(self.status)]
        starts = [i for i, (code, _, bid) in enumerate(codes)
                  if code == flexbe_run.STARTED and bid == behavior_id]
        return [(code, args) for code, args, _ in codes[starts[0] + 1:]] if starts else []

    def errors(self) -> list[str]:
        return [m.text for m in list(self.logs) if m.status_code == 3]

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        self.executor.shutdown()
        self.node.destroy_node()


def start_onboard(env: dict[str, str]) -> subprocess.Popen:
    return start_node("flexbe_onboard.start_behavior", ["-r", "__node:=behavior"], env)


def test_the_supervisor_waits_for_onboard_and_the_behavior_finishes(ros_env, vending, tmp_path):
    """Onboard starts 3 s after the supervisor node: the selection is sent only once onboard
    subscribes, STARTED acknowledges it, FINISHED ``finished`` ends the run: exit 0. The
    behavior was installed into the prefix by the supervisor node, after onboard's start."""
    folder, prefix = vending
    env = flexbe_env({**ros_env, "ROS_LOG_DIR": str(tmp_path / "log")}, prefix)
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", "mission:=vending", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", f"flexbe_prefix:={prefix.root}",
        "-p", "exit_when_done:=true", "-p", "flexbe_timeout:=60.0"], env)
    time.sleep(3)
    onboard = start_onboard(env)
    with contextlib.suppress(subprocess.TimeoutExpired):
        supervisor.wait(timeout=60)
    code, output = stop(supervisor)
    stop(onboard)
    assert code == 0, output
    assert output.index("sent BehaviorSelection 1") < output.index("acknowledged: STARTED")
    assert "BEStatus FINISHED" in output and "run ended: goal_reached" in output, output
    assert f"installed vending_flexbe_behaviors.vending_sm into {prefix.root}" in output


def test_no_onboard_ends_the_run_with_a_clear_error(ros_env, vending):
    folder, prefix = vending
    supervisor = start_node("bdi_supervisor.ros.supervisor_node", [
        "-p", "mission:=vending", "-p", "runner:=flexbe", "-p", f"folder:={folder}",
        "-p", f"flexbe_prefix:={prefix.root}",
        "-p", "exit_when_done:=true", "-p", "flexbe_timeout:=2.0"],
        flexbe_env(ros_env, prefix))
    with contextlib.suppress(subprocess.TimeoutExpired):
        supervisor.wait(timeout=30)
    code, output = stop(supervisor)
    assert code == ExitCode.ENGINE_ERROR, output
    assert "no subscriber on flexbe/start_behavior within 2 s" in output, output


def launch_env(ros_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The environment of a launch: this tree's nodes in an ament prefix (with its package.xml,
    which FlexBE's behavior library reads for every package on AMENT_PREFIX_PATH), the ROS log
    folder (where the launch's run folder goes) under ``tmp_path``."""
    nodes = ament_prefix(tmp_path / "prefix", launch_plan.PACKAGE, MODULES)
    shutil.copy(ROOT / "package.xml", nodes / "share" / launch_plan.PACKAGE / "package.xml")
    return {**ros_env, "ROS_LOG_DIR": str(tmp_path / "log"),
            "AMENT_PREFIX_PATH": os.pathsep.join([str(nodes), ros_env.get("AMENT_PREFIX_PATH",
                                                                          sys.prefix)])}


def test_ros2_launch_runner_flexbe_runs_to_finished(ros_env, tmp_path):
    """``ros2 launch bdi_supervisor mission.launch.py mission:=vending runner:=flexbe
    exit_when_done:=true`` with nothing built: onboard's launch file is included from where
    FlexBE installs it, the behavior synthesized at launch is installed into the run folder's
    prefix and run, the launch ends by itself with 0 once FlexBE finished the behavior."""
    if importlib.util.find_spec("launch_ros") is None or importlib.util.find_spec("launch") is None:
        pytest.skip(STACK_MISSING.format(what="ROS 2 launch/launch_ros"))
    env = launch_env(ros_env, tmp_path)
    process = start_launch(ROOT / "launch" / "mission.launch.py", [
        "mission:=vending", "runner:=flexbe", "exit_when_done:=true"], env)
    try:
        output, _ = process.communicate(timeout=90)
        code = process.returncode
    except subprocess.TimeoutExpired:
        code, output = stop(process)
    assert code == 0, output
    assert "BEStatus FINISHED" in output and "run ended: goal_reached" in output, output
    assert "Traceback" not in output, output
    runs = list((tmp_path / "log" / "bdi_supervisor").glob("vending_*/attempt_1/reduced.json"))
    assert len(runs) == 1, output  # the run folder under the ROS log folder
    installed = runs[0].parent.parent / launch_plan.FLEXBE_PREFIX / "current" / "python"
    assert (installed / "vending_flexbe_behaviors" / "vending_sm.py").is_file()


def behavior_id(folder: Path) -> int:
    from bdi_supervisor.ros import flexbe_start

    return flexbe_start.selection(*flexbe_start.find_behavior(folder / "behavior")).behavior_id


def test_an_exception_in_the_behavior_is_an_engine_error(ros_env, rclpy_context, tmp_path):
    """Every state of vending raises: never goal_reached, exit 6 naming the exception. What
    onboard sends is the installed line's row of test/support/flexbe_lines.py (3.x/4.x: the
    logged exception, FINISHED ['None'], READY; 2.x: the logged exception only, the state kept
    active)."""
    folder, prefix = realized(VENDING, tmp_path, RAISING)
    initial = load_folder(folder, load_mission(VENDING)).machine.initial
    env = flexbe_env({**ros_env, "ROS_LOG_DIR": str(tmp_path / "log")}, prefix,
                     python=(ROOT / "test",))
    seen = Observer(rclpy_context)
    onboard = start_onboard(env)
    supervisor = None
    try:
        assert seen.wait_matched(), "onboard's flexbe/status and flexbe/log never matched"
        supervisor = supervise("vending", folder, prefix, env, "-p", "flexbe_timeout:=60.0")
        with contextlib.suppress(subprocess.TimeoutExpired):
            supervisor.wait(timeout=60)
        (code, output), supervisor = stop(supervisor), None
        expected = ENDINGS["state raised"][ENGINE_LINE]
        deadline = time.monotonic() + 10
        while (len(seen.after_start(behavior_id(folder))) < len(expected.reports)
               and time.monotonic() < deadline):
            time.sleep(0.1)
        time.sleep(0.5)  # nothing more may come (2.x: nothing at all)
        reports, errors = seen.after_start(behavior_id(folder)), seen.errors()
    finally:
        seen.close()
        stop(onboard)
        if supervisor is not None:
            stop(supervisor)
    assert code == ExitCode.ENGINE_ERROR, output
    assert "run ended: error (FlexBE onboard: Failed to execute state" in output, output
    assert "goal_reached" not in output, output
    assert reports == list(expected.reports), (ENGINE_LINE, reports)
    logged = expected.logs[0].replace("0_gr", initial)
    assert any(text.startswith(logged) for text in errors), (logged, errors)
    verdict = json.loads((folder / "verdict.json").read_text())
    assert (verdict["state"], verdict["exit_code"], verdict["runner"]) == ("error", 6, "flexbe")


def test_a_killed_onboard_ends_the_run_within_seconds(ros_env, coffee, tmp_path):
    """coffee as an operator's run (``autonomy:=full``: its button outcome waits for the
    operator, so the behavior runs until stopped); onboard SIGKILLed after its STARTED sends
    nothing more: its heartbeat stops, and the supervisor ends the run with exit 6 within 5 s."""
    folder, prefix = coffee
    env = flexbe_env({**ros_env, "ROS_LOG_DIR": str(tmp_path / "log")}, prefix)
    onboard = start_onboard(env)
    supervisor = TimedOutput(supervise("coffee", folder, prefix, env,
                                       "-p", "flexbe_timeout:=60.0", "-p", "autonomy:=full"))
    try:
        assert supervisor.wait_for("acknowledged: STARTED", 60) is not None, supervisor.text()
        time.sleep(1.5)  # running, heartbeats arriving
        assert supervisor.process.poll() is None, supervisor.text()
        onboard.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        code, ended = supervisor.wait_exit(30)
    finally:
        stop(onboard)
        _, output = supervisor.stop()
    assert code == ExitCode.ENGINE_ERROR, output
    assert ended - killed < PROMPT, (ended - killed, output)
    assert "FlexBE onboard is silent: no heartbeat on flexbe/heartbeat" in output, output
    assert json.loads((folder / "verdict.json").read_text())["exit_code"] == 6
    print(f"dead onboard noticed after {ended - killed:.2f} s (FlexBE {ENGINE_LINE}.x)")


def test_ros2_launch_ends_when_onboard_is_killed(ros_env, tmp_path):
    """``ros2 launch ... mission:=coffee runner:=flexbe exit_when_done:=true autonomy:=full`` (an
    operator's run: it waits for the operator), onboard's process SIGKILLed after STARTED: the
    launch ends non-zero within 5 s, naming onboard's exit."""
    if importlib.util.find_spec("launch_ros") is None or importlib.util.find_spec("launch") is None:
        pytest.skip(STACK_MISSING.format(what="ROS 2 launch/launch_ros"))
    env = launch_env(ros_env, tmp_path)
    launch = TimedOutput(start_launch(ROOT / "launch" / "mission.launch.py", [
        "mission:=coffee", "runner:=flexbe", "exit_when_done:=true", "autonomy:=full"], env))
    try:
        assert launch.wait_for("acknowledged: STARTED", 90) is not None, launch.text()
        found = re.search(r"\[start_behavior-\d+\]: process started with pid \[(\d+)\]",
                          launch.text())
        assert found, launch.text()
        time.sleep(1.0)
        os.kill(int(found.group(1)), signal.SIGKILL)
        killed = time.monotonic()
        code, ended = launch.wait_exit(30)
    finally:
        _, output = launch.stop()
    assert code not in (0, None), output
    assert ended - killed < PROMPT, (ended - killed, output)
    assert "FlexBE onboard (flexbe_onboard/start_behavior) exited with code -9" in output, output
    assert "Traceback" not in output, output
    print(f"launch ended {ended - killed:.2f} s after onboard was killed (FlexBE "
          f"{ENGINE_LINE}.x)")


@pytest.mark.parametrize("mission", ["two_rivers_goat_stays", "logistics_p0_holding_start"])
def test_ros2_launch_of_an_unrealizable_mission_ends_with_its_verdict(ros_env, tmp_path,
                                                                       mission):
    """``mission:=<unrealizable> runner:=flexbe exit_when_done:=true``: the synthesis node's
    verdict names the explanation command, the launch exits 1 within 5 s of it."""
    if importlib.util.find_spec("launch_ros") is None or importlib.util.find_spec("launch") is None:
        pytest.skip(STACK_MISSING.format(what="ROS 2 launch/launch_ros"))
    env = launch_env(ros_env, tmp_path)
    launch = TimedOutput(start_launch(ROOT / "launch" / "mission.launch.py", [
        f"mission:={mission}", "runner:=flexbe", "exit_when_done:=true"], env))
    try:
        verdict = launch.wait_for("UNREALIZABLE; no supervisor handed over; exit 1", 120)
        code, ended = launch.wait_exit(60)
    finally:
        _, output = launch.stop()
    assert verdict is not None, output
    assert code == 1, output
    assert ended - verdict < PROMPT, (ended - verdict, output)
    assert "why: bdi-supervisor explain " in output, output
    assert "bdi_synthesis (synthesis_node) exited with code 1 (a negative verdict: the mission " \
           "is unrealizable)" in output, output
    print(f"launch ended {ended - verdict:.2f} s after the verdict ({mission}, runner flexbe)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
