"""Every shipped mission under ``runner:=flexbe`` on the real FlexBE onboard, held against the
embedded executor's run of the same mission.

Per case, the oracle is ``bdi-supervisor run <mission> --json --bdi-log FILE`` (the embedded
executor, in this process, the mission's own forced outcomes and seeded failures, or the case's
``force`` script). The run under test is ``ros2 launch bdi_supervisor mission.launch.py
mission:=<mission> runner:=flexbe exit_when_done:=true`` (the real launch service, as
``ros2 launch`` runs it; FlexBE onboard of the engine line sourced: 3.0.7 in CI, 2.3.3 and 4.0.3
with ``ROS_STACK_FLEXBE``), nothing built beforehand. It must end as designed:

- its exit code: 0 where the embedded run reached the goal, non-zero otherwise; the verdict the
  ending node leaves in the run folder (``verdict.json``) has the exit code of the embedded run's
  ending (``RunState.exit_code``; 1 from the synthesis node where nothing could run: an
  unrealizable mission);
- the run status in that verdict is the embedded run's;
- the BDI-state stream it publishes (also written to the run folder's ``bdi_state.jsonl``,
  read here: the topic's last records may be cut off by the launch's end) is the embedded
  run's, record by record (strategy state,
  intention, beliefs, desires, last outcome, status; FlexBE's own ``status`` reports aside): the
  executor follows the behavior in FlexBE, and the forced outcomes (script, seeded failures)
  were driven through FlexBE's outcome requests, so FlexBE took the embedded run's outcomes;
- where the mission has properties, the monitor node's verdicts are the embedded run's (the
  verdicts it reported once it had judged the run's last record, which the supervisor node adds
  to ``verdict.json``);
- where the catalog names the project's own states of a small domain, the world node they act
  in served the embedded run's outcomes of those capabilities, in order (its log line per
  request, ``<capability>#<n> <service>: <outcome>``): the world did what the behavior reports.

**A domain adds its missions** with one entry in :data:`CASES`, e.g.
``FlexbeCase("logistics_p0", needs=("pyrobosim_ros", "pyrobosim_flexbe_states"))``: ``needs``
names the Python modules its FlexBE states and world nodes import (the case skips, naming them,
where they are absent; CI sources ../shared/ros-stack/domains/env.sh). The launch starts the
world nodes the mission's simulator needs (the domain adds them to
:func:`bdi_supervisor.ros.launch_plan.plan`), so nothing else changes here. A case that runs long
gets a ``timeout`` (seconds; keep CI in mind: the stock-state cases take 3-6 s each).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli_harness import run_cli
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

pytestmark = pytest.mark.ros
rclpy = pytest.importorskip(
    "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
for module in ("flexbe_msgs.msg", "flexbe_onboard.start_behavior", "launch", "launch_ros"):
    pytest.importorskip(module, reason=STACK_MISSING.format(what=module))

from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from support.ros_helpers import ament_prefix, node_modules, start_launch, stop  # noqa: E402

from bdi_supervisor.catalog.interfaces import state_domain  # noqa: E402
from bdi_supervisor.handover import RunState  # noqa: E402
from bdi_supervisor.mission import load_mission  # noqa: E402
from bdi_supervisor.ros import launch_plan, qos, topics, wire  # noqa: E402
from bdi_supervisor.ros.supervisor_node import BDI_LOG  # noqa: E402
from bdi_supervisor.runtime.bdi_state import read_records  # noqa: E402

MISSIONS = ROOT / "config" / "missions"
#: every node of this tree (the world nodes too), where launch_ros finds them
MODULES = node_modules()
#: the domains whose world nodes log each request they serve (:func:`served`)
SERVING_WORLDS = ("two_rivers", "beer_robot")
#: what the PyRoboSim missions' world node and states import
PYROBOSIM = ("pyrobosim", "pyrobosim_ros", "pyrobosim_msgs")


@dataclass(frozen=True)
class FlexbeCase:
    """One launch: a shipped mission (name) or a mission file, with an optional ``--force``
    script, the modules it needs and its time limit."""

    mission: str
    force: str = ""
    needs: tuple[str, ...] = ()
    timeout: float = 90.0

    @property
    def id(self) -> str:
        return Path(self.mission).stem + ("-forced" if self.force else "")

    def file(self) -> Path:
        path = Path(self.mission)
        return path if path.is_file() else MISSIONS / f"{self.mission}.yaml"


#: the shipped missions that use FlexBE's stock states only, the unrealizable ones, and those
#: of the domains whose states and world nodes this project has (PyRoboSim: seeded failures
#: made physical in the world node)
CASES = [
    FlexbeCase("coffee"),
    FlexbeCase("coffee_extended"),
    FlexbeCase("vending"),
    FlexbeCase("vending_extended"),
    FlexbeCase("vending_extended", force="pay=failure pay=failure soda#1=failure soda#2=failure"),
    FlexbeCase("two_rivers_goat_stays", timeout=60),
    FlexbeCase("logistics_p0_holding_start", timeout=60),
    # the drone node on the mission's kinematic backend (RotorPy: test_quadcopter_launch.py)
    FlexbeCase("quadcopter_crazyflie", needs=("flexible_drones_msgs",)),
    FlexbeCase("quadcopter_pihawk", needs=("flexible_drones_msgs",)),
    FlexbeCase("quadcopter_pihawk_dropout", needs=("flexible_drones_msgs",)),
    # the project's own states against the river's world node (seeded high wind: 3 failures);
    # the beer robot's cases are test_the_monitor_judges_a_flexbe_run_as_the_embedded_run's
    FlexbeCase("two_rivers"),
    FlexbeCase("two_rivers", force="move=failure move#5=failure"),
    FlexbeCase("logistics_p0", needs=PYROBOSIM),
    FlexbeCase("logistics_p0_faults", needs=PYROBOSIM),
    FlexbeCase("logistics_p1", needs=PYROBOSIM),
    FlexbeCase("logistics_p1_faults", needs=PYROBOSIM),
]


@dataclass
class Embedded:
    """The oracle: the embedded executor's run of a case."""

    code: int
    status: str | None
    records: list[dict]
    verdicts: dict[str, str]


def embedded(case: FlexbeCase, folder: Path) -> Embedded:
    log = folder / "embedded.jsonl"
    argv = ["run", case.file(), "--json", "--bdi-log", log]
    outcome = run_cli("supervisor", [*argv, *(["--force", case.force] if case.force else [])])
    assert outcome.code in (0, 1) and not outcome.traceback, outcome
    result = json.loads(outcome.out)
    run = result.get("result") or {}
    records = list(read_records(log)) if log.is_file() else []
    return Embedded(outcome.code, run.get("status"), records,
                    (result.get("monitor") or {}).get("verdicts", {}))


def essence(record: dict) -> dict:
    """What a record says about the run, without what differs between two runs of it (ids,
    times, sequence numbers, reasons and FlexBE's own outcome names, deadlines)."""
    last = record.get("last_outcome") or {}
    intention = dict(record.get("intention") or {})
    intention.pop("deadline_s", None)
    return {"event": record["event"], "strategy_state": record.get("strategy_state"),
            "intention": intention or None, "beliefs": record.get("beliefs"),
            "desires": record.get("desires"), "status": record.get("status"),
            "sm_outcome": record.get("sm_outcome"),
            "last_outcome": {k: last.get(k) for k in ("capability", "state", "outcome", "step",
                                                      "next")} if last else None}


@pytest.fixture
def launch_env(ros_env, tmp_path):
    """This tree's nodes where launch_ros finds them; the ROS log folder in ``tmp_path``."""
    nodes = ament_prefix(tmp_path / "prefix", launch_plan.PACKAGE, MODULES)
    # FlexBE's behavior library reads the package.xml of every package on AMENT_PREFIX_PATH
    shutil.copy(ROOT / "package.xml", nodes / "share" / launch_plan.PACKAGE / "package.xml")
    return {**ros_env, "ROS_LOG_DIR": str(tmp_path / "log"),
            "AMENT_PREFIX_PATH": os.pathsep.join([str(nodes), ros_env.get("AMENT_PREFIX_PATH",
                                                                          sys.prefix)])}


class Observer:
    """The BDI-state stream of a launch, heard on a thread of this test."""

    def __init__(self, context) -> None:
        self.node = rclpy.create_node("flexbe_missions_observer", context=context)
        self.records: list[dict] = []
        self.node.create_subscription(
            String, topics.BDI_STATE, lambda m: self.records.append(wire.decode_record(m.data)),
            qos.STREAM)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        while not self.done.is_set():
            self.executor.spin_once(timeout_sec=0.05)

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        self.executor.shutdown()
        self.node.destroy_node()


def run_launch(case: FlexbeCase, env: dict[str, str], context) -> tuple[int, str, Observer]:
    observer = Observer(context)
    args = [f"mission:={case.file()}", "runner:=flexbe", "exit_when_done:=true"]
    process = start_launch(ROOT / "launch" / "mission.launch.py",
                           [*args, *([f"force:={case.force}"] if case.force else [])], env)
    try:
        output, _ = process.communicate(timeout=case.timeout)
        code = process.returncode
    except subprocess.TimeoutExpired:
        code, output = stop(process)
        output += f"\n[test] the launch did not end within {case.timeout:g} s\n"
    finally:
        observer.close()
    return code, output, observer


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_mission_ends_under_flexbe_as_in_the_embedded_executor(case, launch_env,
                                                                   rclpy_context, tmp_path):
    missing = [m for m in case.needs if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(STACK_MISSING.format(what=", ".join(missing)))
    check(case, launch_env, rclpy_context, tmp_path)


@pytest.mark.parametrize("force", ["", "open_door=failure", "grab_beer=failure"])
def test_the_monitor_judges_a_flexbe_run_as_the_embedded_run(force, launch_env, rclpy_context,
                                                              tmp_path):
    """The beer robot (properties, world hypotheses; its own states against the kitchen's world
    node): the monitor node's verdicts on the FlexBE run (the goal; the door, or the fridge,
    failing by a forced outcome) are the embedded run's."""
    case = FlexbeCase("beer_robot", force=force)
    expected = check(case, launch_env, rclpy_context, tmp_path)
    assert expected.verdicts  # the case has properties: the monitor was compared


def check(case: FlexbeCase, env: dict[str, str], context, tmp_path: Path) -> Embedded:
    """Launch ``case`` under FlexBE and hold it against the embedded run (module docstring)."""
    expected = embedded(case, tmp_path)
    code, output, observer = run_launch(case, env, context)
    ours = [line for line in output.splitlines() if not line.startswith("[start_behavior")]
    assert not any("Traceback" in line for line in ours), output  # onboard's own: FlexBE's
    assert (code == 0) == (expected.code == 0), (expected.code, output)
    (attempt,) = (tmp_path / "log" / launch_plan.PACKAGE).glob("*/attempt_*")
    verdict = json.loads((attempt / "verdict.json").read_text())
    if expected.status is None:  # nothing to run (unrealizable): no supervisor ran
        assert not (attempt / BDI_LOG).exists() and not observer.records, output
        assert (verdict["stage"], verdict["exit_code"]) == ("synthesis", expected.code), verdict
        return expected
    assert (verdict["stage"], verdict["state"]) == ("run", expected.status), verdict
    assert verdict["exit_code"] == RunState(expected.status).exit_code, verdict
    records = list(read_records(attempt / BDI_LOG))  # as published (the topic's may end first)
    flexbe = [essence(r) for r in records if r["event"] != "status"]
    assert flexbe == [essence(r) for r in expected.records], output
    assert all(r.get("runner") == "flexbe" for r in records)
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert observer.records == records[:len(observer.records)]  # the topic carried them
    if expected.verdicts:  # the monitor's verdicts on the whole run, as the supervisor saw them
        assert verdict.get("monitor") == expected.verdicts, (verdict, output)
    assert served(output) == own_outcomes(case, expected.records), output
    return expected


def served(output: str) -> list[tuple[str, str]]:
    """(capability, outcome) of every request the launch's world nodes served, in order."""
    return re.findall(r"\[\w+_world\]: (\w+)#\d+ \S+: (\w+)", output)


def own_outcomes(case: FlexbeCase, records: list[dict]) -> list[tuple[str, str]]:
    """(capability, outcome) of the embedded run's outcomes of capabilities whose states act in
    a small domain's world node (:data:`SERVING_WORLDS`)."""
    catalog = load_mission(case.file()).catalog
    own = {c for c, cap in catalog.capabilities.items()
           if state_domain(cap.interface) in SERVING_WORLDS}
    return [(r["last_outcome"]["capability"], r["last_outcome"]["outcome"]) for r in records
            if r["event"] == "outcome" and r["last_outcome"]["capability"] in own]
