"""The synthesis server with real rclpy and the real interfaces (``flexbe_synthesis_msgs``,
``flexbe_msgs``): clients built the way the reference's ``request_synthesis`` builds its goal,
the FlexBE behavior built from the answer run in FlexBE onboard, every error code, cancels,
the queue, FlexBE's own ``BehaviorSynthesis`` action, the launch file and ``ros2 run``.

Needs the prebuilt ROS stack (``. ../shared/ros-stack/env.sh``: flexbe_synthesis_msgs and
FlexBE are not on PyPI) and the reference's examples folder (``../shared/reference``): the tests
skip, saying so, where either is absent. The server runs as a process of its own on the test's
DDS domain, as ``ros2 run`` starts it.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.paths import ROOT
from support.reference_data import MISSING as REFERENCE_MISSING
from support.reference_data import PRESENT, REFERENCE

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
for _module in ("flexbe_synthesis_msgs.action", "flexbe_msgs.action"):
    pytest.importorskip(_module, reason="flexbe_synthesis_msgs / flexbe_msgs not installed (not "
                        "on PyPI; . ../shared/ros-stack/env.sh has them prebuilt)")
if not PRESENT:
    pytest.skip(REFERENCE_MISSING, allow_module_level=True)

from flexbe_synthesis_msgs.action import FlexBESynthesis  # noqa: E402
from flexbe_synthesis_msgs.msg import FlexBESynthesisRequest, SynthesisErrorCode  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from support.ros_helpers import (  # noqa: E402
    ament_prefix,
    held_domain,
    next_domain,
    spin_until,
    start_launch,
    start_node,
    stop,
)

from bdi_supervisor.service.answer import Settings, answer  # noqa: E402
from bdi_supervisor.service.codes import Code  # noqa: E402
from bdi_supervisor.service.request import SynthesisRequest  # noqa: E402

HOME = REFERENCE / "flexbe_synthesis"
SERVER = "bdi_supervisor.ros.synthesis_server"
#: the reference's demo clients' defaults (request_vending, request_coffee)
VENDING = {"initial_conditions": ["prep_pay_a"], "goals": ["soda"], "outcomes": ["finished"],
           "system_name": "vending_demo", "spec_name": "VendingDemoSM"}
COFFEE = {"initial_conditions": ["bd_a"], "goals": ["br_c"], "outcomes": [],
          "system_name": "coffee_maker", "spec_name": "CoffeeSM"}
#: a synthesis of minutes (the quadcopter's one-hot Fair-Outcome + pending spec over all states)
SLOW = {"initial_conditions": ["arm_a"], "goals": ["disarm"], "outcomes": ["finished", "aborted"],
        "system_name": "quadcopter", "spec_name": "Slow", "synthesis_options":
        "{encoding: one-hot, liveness: fair-outcome, pending: true, reachable: false}"}


def reference_goal(defaults: dict) -> FlexBESynthesis.Goal:
    """The goal as the reference's ``request_synthesis`` client builds it from its parameters
    (string arrays stripped, empty entries dropped)."""
    def strings(name):
        return [v.strip() for v in defaults.get(name, []) if v.strip()]

    request = FlexBESynthesisRequest()
    request.initial_conditions = strings("initial_conditions")
    request.goals = strings("goals")
    request.sm_outcomes = strings("outcomes")
    request.system_name = defaults.get("system_name", "")
    request.spec_name = defaults.get("spec_name", "")
    request.specification_file_name = defaults.get("specification_file_name", "")
    request.synthesis_timeout_s = defaults.get("synthesis_timeout_s", 0.0)
    goal = FlexBESynthesis.Goal()
    goal.request = request
    goal.synthesis_options = defaults.get("synthesis_options", "")
    return goal


@dataclass
class Sent:
    """One goal: its handle (None until accepted or rejected), its feedback."""

    handle_future: object
    feedback: list = field(default_factory=list)
    handle: object = None
    result_future: object = None


class Client:
    """An action client on its own node and executor."""

    def __init__(self, context, action=FlexBESynthesis, name="flexbe_synthesis") -> None:
        self.node = rclpy.create_node("request_synthesis", context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.client = ActionClient(self.node, action, name)

    def send(self, goal) -> Sent:
        sent = Sent(None)
        sent.handle_future = self.client.send_goal_async(
            goal, feedback_callback=lambda message: sent.feedback.append(message.feedback))
        assert spin_until(self.executor, sent.handle_future.done, 30), "no goal response"
        sent.handle = sent.handle_future.result()
        if sent.handle.accepted:
            sent.result_future = sent.handle.get_result_async()
        return sent

    def result(self, sent: Sent, timeout: float = 60.0):
        assert spin_until(self.executor, sent.result_future.done, timeout), "no result"
        return sent.result_future.result().result

    def cancel(self, sent: Sent) -> None:
        future = sent.handle.cancel_goal_async()
        assert spin_until(self.executor, future.done, 30), "no cancel response"

    def wait_for_feedback(self, sent: Sent, status: str, timeout: float = 60.0) -> None:
        assert spin_until(self.executor, lambda: any(f.status == status for f in sent.feedback),
                          timeout), [f.status for f in sent.feedback]

    def close(self) -> None:
        self.executor.shutdown()
        self.client.destroy()
        self.node.destroy_node()


@dataclass
class Server:
    process: subprocess.Popen
    context: object
    client: Client
    env: dict
    out: Path


def start_server(tmp: Path, *arguments: str, domain: int | None = None) -> Server:
    domain = next_domain() if domain is None else domain
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE":
           "LOCALHOST", "ROS_LOG_DIR": str(tmp / "log")}
    env.pop("ROS_STATIC_PEERS", None)
    process = start_node(SERVER, ["-p", f"synthesis_home:={HOME}", "-p",
                                  f"output_dir:={tmp / 'out'}", *arguments], env)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    client = Client(context)
    if not client.client.wait_for_server(timeout_sec=30):
        code, output = stop(process)
        raise AssertionError(f"server not up (exit {code}):\n{output}")
    return Server(process, context, client, env, tmp / "out")


def stop_server(server: Server) -> tuple[int, str]:
    server.client.close()
    server.context.try_shutdown()
    return stop(server.process)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module's goals (one may wait while one runs), on a domain that no
    other test gets while it runs."""
    with held_domain() as domain:
        running = start_server(tmp_path_factory.mktemp("server"), "-p", "queue_size:=1",
                               domain=domain)
        yield running
        code, output = stop_server(running)
    assert code == 0 and "Traceback" not in output, output


def as_dicts(states) -> list[dict]:
    """Message records as the service's dictionaries."""
    return [{"state_path": s.state_path, "state_class": s.state_class,
             "initial_state_name": s.initial_state_name, "input_keys": list(s.input_keys),
             "output_keys": list(s.output_keys), "behavior_class": s.behavior_class,
             "parameter_names": list(s.parameter_names),
             "parameter_values": list(s.parameter_values),
             "position": [float(v) for v in s.position], "outcomes": list(s.outcomes),
             "transitions": list(s.transitions), "autonomy": [int(a) for a in s.autonomy],
             "userdata_keys": list(s.userdata_keys),
             "userdata_remapping": list(s.userdata_remapping)} for s in states]


@pytest.fixture(scope="module")
def answers(server):
    """The demo clients' goals, answered: name → (result, feedback)."""
    found = {}
    for name, defaults in (("vending", VENDING), ("coffee", COFFEE)):
        sent = server.client.send(reference_goal(defaults))
        assert sent.handle.accepted
        found[name] = server.client.result(sent), sent.feedback
    return found


# ---------------------------------------------------------------- the demo requests


@pytest.mark.parametrize("name, defaults, count", [("vending", VENDING, 6),
                                                   ("coffee", COFFEE, 4)])
def test_the_reference_clients_get_the_audited_supervisor(answers, name, defaults, count):
    result, feedback = answers[name]
    assert result.error_code.value == SynthesisErrorCode.SUCCESS, list(result.messages)
    assert len(result.states) == count
    expected = answer(SynthesisRequest(tuple(defaults["initial_conditions"]),
                                       tuple(defaults["goals"]), tuple(defaults["outcomes"]),
                                       defaults["system_name"], defaults["spec_name"]),
                      Settings(home=str(HOME)))
    assert as_dicts(result.states) == [s.to_dict() for s in expected.states]
    assert list(result.messages)[:2] == expected.messages[:2]
    statuses = [f.status for f in feedback]
    stages = ["spec", "well_separation", "synthesis", "audit", "realize", "complete"]
    assert [s for s in statuses if s in stages] == stages
    progress = [f.progress for f in feedback]
    assert progress == sorted(progress) and progress[-1] == 1.0


def test_the_error_codes_are_the_installed_messages(server):
    """The service's numbers are those of the installed ``SynthesisErrorCode``."""
    for code in Code:
        if hasattr(SynthesisErrorCode, code.name):
            assert getattr(SynthesisErrorCode, code.name) == code.value, code


# ---------------------------------------------------------------- run in FlexBE onboard


@pytest.mark.parametrize("name, autonomy, texts", [
    ("vending", 3, ["Ready to go", "Insert Coin", "Select a Beverage", "Giving soda"]),
    ("coffee", 255, ["Button press detected!", "Grinding coffee", "Brewing coffee"] * 2),
])
def test_the_answer_saved_as_the_ui_saves_it_runs_in_onboard(answers, tmp_path, name,
                                                             autonomy, texts):
    """The behavior built from the records alone (flexbe_core's state machine, the code the
    WebUI saves) runs in FlexBE onboard: vending to ``finished`` (its LogStates need no
    operator at autonomy 3), coffee round after round (its button needs the operator at
    levels <= 3: run unsupervised, 255)."""
    pytest.importorskip("flexbe_onboard.start_behavior", reason="flexbe_onboard not installed")
    pytest.importorskip("flexbe_states.log_state", reason="flexbe_states not installed")
    from flexbe_msgs.msg import BehaviorLog, BehaviorSelection, BEStatus
    from flexbe_support.ui_behavior import install, state_library

    from bdi_supervisor.ros.flexbe_start import checksum

    result, _ = answers[name]
    prefix = tmp_path / "behaviors"
    package_path, module = install(list(result.states), f"Synthesized {name}", prefix,
                                   state_library("flexbe_states"))
    domain = next_domain()
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain), "ROS_LOG_DIR": str(tmp_path / "log"),
           "AMENT_PREFIX_PATH": os.pathsep.join([str(prefix), os.environ["AMENT_PREFIX_PATH"]]),
           "PYTHONPATH": os.pathsep.join([str(prefix / "python"), os.environ["PYTHONPATH"]])}
    onboard = start_node("flexbe_onboard.start_behavior", ["-r", "__node:=behavior"], env)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    node = rclpy.create_node("selector", context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    reports, logs = [], []
    node.create_subscription(BEStatus, "flexbe/status", reports.append, 10)
    node.create_subscription(BehaviorLog, "flexbe/log", lambda m: logs.append(m.text), 100)
    start = node.create_publisher(BehaviorSelection, "flexbe/start_behavior", 10)
    behavior_id = checksum(module.read_text())
    try:
        assert spin_until(executor, lambda: start.get_subscription_count() > 0, 60)
        start.publish(BehaviorSelection(behavior_key=checksum(package_path),
                                        behavior_id=behavior_id, autonomy_level=autonomy))
        mine = [r for r in reports if r.behavior_id == behavior_id]
        def done():  # the log topic is not ordered with the status topic: wait for both
            finished = any(r.code == BEStatus.FINISHED for r in reports)
            return [t for t in logs if t in texts] == texts and (finished or name == "coffee")

        assert spin_until(executor, done, 60), (logs, [(r.code, list(r.args)) for r in reports])
        mine = [r for r in reports if r.behavior_id == behavior_id]
        assert mine[0].code == BEStatus.STARTED and not [r for r in mine if r.code in (
            BEStatus.FAILED, BEStatus.ERROR)]
        assert [t for t in logs if t in texts] == texts
        if name == "vending":
            assert [list(r.args) for r in mine if r.code == BEStatus.FINISHED] == [["finished"]]
    finally:
        executor.shutdown()
        node.destroy_node()
        context.try_shutdown()
        stop(onboard)


# ---------------------------------------------------------------- error codes


def test_unrealizable_is_spec_unsynthesizable_with_the_core(server):
    goal = reference_goal({**COFFEE, "goals": ["bd_c & br_c"], "outcomes": ["finished"]})
    result = server.client.result(server.client.send(goal))
    assert result.error_code.value == SynthesisErrorCode.SPEC_UNSYNTHESIZABLE
    assert len(result.states) == 0
    messages = list(result.messages)
    assert messages[0].startswith("unrealizable: ")
    assert any(m.startswith("core: the success outcome requires the request's goal")
               and m.endswith("[goal]") for m in messages), messages


def test_a_bad_system_name_is_no_system_config(server):
    result = server.client.result(server.client.send(reference_goal(
        {**VENDING, "system_name": "vending_dem0"})))
    assert result.error_code.value == SynthesisErrorCode.NO_SYSTEM_CONFIG
    assert "vending_dem0" in result.messages[0]


@pytest.mark.parametrize("change, where", [
    ({"goals": ["soda &"]}, "request.goals[0]"),
    ({"initial_conditions": ["prep_pay_a", "item = "]}, "request.initial_conditions[1]"),
    ({"outcomes": ["finished", "finished"]}, "request.sm_outcomes"),
    ({"system_name": "../vending_demo"}, "request.system_name"),
    ({"synthesis_timeout_s": math.nan}, "request.synthesis_timeout_s"),
    ({"synthesis_timeout_s": -1.0}, "request.synthesis_timeout_s"),
    ({"synthesis_options": "encoding: two-hot"}, "key 'encoding'"),
    ({"synthesis_options": "colour: blue"}, "key 'colour'"),
    ({"synthesis_options": "[1, 2"}, "synthesis_options"),
    ({"specification_file_name": "../../etc/passwd"}, "specification_file_name"),
])
def test_malformed_requests_are_invalid_and_the_server_serves_on(server, change, where):
    result = server.client.result(server.client.send(reference_goal({**VENDING, **change})))
    assert result.error_code.value == SynthesisErrorCode.INVALID_REQUEST
    assert len(result.messages) == 1 and where in result.messages[0], list(result.messages)
    again = server.client.result(server.client.send(reference_goal(VENDING)))
    assert again.error_code.value == SynthesisErrorCode.SUCCESS  # nothing crashed


# ---------------------------------------------------------------- cancel and the queue


def test_a_cancel_inside_a_stage_is_preempted_and_the_next_goal_is_served(server):
    slow = server.client.send(reference_goal(SLOW))
    server.client.wait_for_feedback(slow, "synthesis: encoding")
    asked = time.monotonic()
    server.client.cancel(slow)
    result = server.client.result(slow, 30)
    assert result.error_code.value == SynthesisErrorCode.PREEMPTED
    assert time.monotonic() - asked < 15  # the encoding alone runs for minutes
    assert slow.result_future.result().status == 5  # GoalStatus.STATUS_CANCELED
    nxt = server.client.result(server.client.send(reference_goal(COFFEE)))
    assert nxt.error_code.value == SynthesisErrorCode.SUCCESS


def test_one_goal_waits_a_further_one_is_rejected_and_none_are_mixed(server):
    """queue_size 1: while the slow goal runs, vending waits (no feedback of its own) and a
    third goal is rejected; cancelling the waiting goal answers it at once, the running one
    goes on until it is cancelled too; then goals are served again."""
    slow = server.client.send(reference_goal(SLOW))
    server.client.wait_for_feedback(slow, "synthesis: encoding")
    waiting = server.client.send(reference_goal(VENDING))
    rejected = server.client.send(reference_goal(COFFEE))
    assert waiting.handle.accepted and not rejected.handle.accepted
    server.client.cancel(waiting)
    result = server.client.result(waiting, 15)
    assert result.error_code.value == SynthesisErrorCode.PREEMPTED
    assert list(result.messages) == ["cancelled before it started"]
    assert waiting.feedback == [] and not slow.result_future.done()
    server.client.cancel(slow)
    assert server.client.result(slow, 30).error_code.value == SynthesisErrorCode.PREEMPTED
    statuses = [f.status for f in slow.feedback]
    assert "complete" not in statuses and "realize" not in statuses
    served = server.client.result(server.client.send(reference_goal(VENDING)))
    assert served.error_code.value == SynthesisErrorCode.SUCCESS


# ---------------------------------------------------------------- FlexBE's own action


def test_flexbe_behavior_synthesis_is_served_by_the_same_core(server):
    from flexbe_msgs.action import BehaviorSynthesis
    from flexbe_msgs.msg import SynthesisErrorCodes
    from flexbe_msgs.msg import SynthesisRequest as FlexbeRequest

    client = Client(server.context, BehaviorSynthesis, "behavior_synthesis")
    try:
        assert client.client.wait_for_server(timeout_sec=30)
        goal = BehaviorSynthesis.Goal(request=FlexbeRequest(
            name="/Synthesized", system="vending_demo", goal="soda",
            initial_condition="prep_pay_a", sm_outcomes=["finished"]))
        sent = client.send(goal)
        result = client.result(sent)
        assert result.error_code.value == SynthesisErrorCodes.SUCCESS
        expected = answer(SynthesisRequest(("prep_pay_a",), ("soda",), ("finished",),
                                           "vending_demo", "Synthesized"),
                          Settings(home=str(HOME)))
        assert as_dicts(result.states) == [s.to_dict() for s in expected.states]
        assert sent.feedback and sent.feedback[-1].progress == 1.0
        bad = client.result(client.send(BehaviorSynthesis.Goal(request=FlexbeRequest(
            system="vending_demo", goal="soda, &", sm_outcomes=["finished"]))))
        assert bad.error_code.value == Code.INVALID_REQUEST
    finally:
        client.close()


# ---------------------------------------------------------------- start and stop


def test_a_stop_while_a_goal_runs_ends_the_server_and_its_worker(tmp_path):
    server = start_server(tmp_path)
    slow = server.client.send(reference_goal(SLOW))
    server.client.wait_for_feedback(slow, "synthesis: encoding")
    asked = time.monotonic()
    code, output = stop_server(server)
    assert code == 0 and "Traceback" not in output, output
    assert time.monotonic() - asked < 15, output
    assert workers(server.env["ROS_DOMAIN_ID"]) == []


def workers(domain: str) -> list[int]:
    """Worker processes still running on ``domain`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if (b"bdi_supervisor.service.worker" in command
                and f"ROS_DOMAIN_ID={domain}".encode() in environ.split(b"\0")):
            found.append(int(entry.name))
    return found


def test_a_missing_synthesis_home_ends_the_node_with_exit_2(tmp_path, ros_env):
    process = start_node(SERVER, ["-p", f"synthesis_home:={tmp_path / 'nowhere'}"], ros_env)
    try:
        code = process.wait(timeout=60)
    finally:
        _, output = stop(process)
    assert code == 2 and "parameter 'synthesis_home'" in output and "Traceback" not in output


def _launch_tools() -> None:
    import importlib.util

    for module in ("launch", "launch_ros", "ros2cli"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"ROS 2 {module} not installed (not on PyPI; comes with Jazzy, and with "
                        "../shared/ros-stack)")


@pytest.mark.parametrize("how", ["ros2 launch", "ros2 run"])
def test_ros2_launch_and_ros2_run_start_the_server(tmp_path, ros_env, how):
    """``ros2 launch bdi_supervisor synthesis_server.launch.py synthesis_home:=DIR`` and
    ``ros2 run bdi_supervisor synthesis_server``: the executables from an ament prefix, as an
    install has them."""
    _launch_tools()
    prefix = ament_prefix(tmp_path / "prefix", "bdi_supervisor", {"synthesis_server": SERVER})
    shutil.copytree(ROOT / "launch", prefix / "share" / "bdi_supervisor" / "launch")
    env = {**ros_env, "ROS_LOG_DIR": str(tmp_path / "log"), "AMENT_PREFIX_PATH": os.pathsep.join(
        [str(prefix), ros_env["AMENT_PREFIX_PATH"]])}
    arguments = [f"synthesis_home:={HOME}", f"output_dir:={tmp_path / 'out'}"]
    if how == "ros2 launch":
        process = start_launch(prefix / "share" / "bdi_supervisor" / "launch"
                               / "synthesis_server.launch.py", arguments, env)
    else:
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from ros2cli.cli import main; sys.exit(main())",
             "run", "bdi_supervisor", "synthesis_server", "--ros-args",
             *(x for a in arguments for x in ("-p", a))], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=int(ros_env["ROS_DOMAIN_ID"]))
    client = Client(context)
    try:
        assert client.client.wait_for_server(timeout_sec=60), stop(process)
        result = client.result(client.send(reference_goal(VENDING)))
        assert result.error_code.value == SynthesisErrorCode.SUCCESS and len(result.states) == 6
    finally:
        client.close()
        context.try_shutdown()
        # Ctrl-C reaches the whole process group (ros2 run waits for its child to stop)
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # reported by the exit code below
        code, output = stop(process)
    assert code == 0 and "Traceback" not in output, output
    assert list((tmp_path / "out").glob("goal_1/VendingDemoSM/one-hot-SP/behavior")), output
