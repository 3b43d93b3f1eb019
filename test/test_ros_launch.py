"""The launch node list (plain function) and static checks of ``launch/mission.launch.py``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from support.paths import ROOT

from bdi_supervisor.errors import InputError
from bdi_supervisor.ros import launch_plan

LAUNCH_FILE = ROOT / "launch" / "mission.launch.py"


CATALOG = ROOT / "config" / "catalogs" / "coffee.yaml"


@pytest.fixture
def missions(tmp_path):
    folder = tmp_path / "missions"
    folder.mkdir()
    (folder / "plain.yaml").write_text(f"name: plain\ncatalog: {CATALOG}\n")
    (folder / "watched.yaml").write_text(f"name: watched\ncatalog: {CATALOG}\n"
                                         "properties:\n  p: AG x\n")
    return folder


def test_plan_embedded_with_and_without_monitor(missions, tmp_path):
    (tmp_path / "supervisor_node.yaml").write_text("/**:\n  ros__parameters: {}\n")
    plan = launch_plan.plan(missions / "watched.yaml", "embedded", True, tmp_path, "/out")
    assert [n.executable for n in plan.nodes] == list(launch_plan.EXECUTABLES)
    assert plan.includes == ()
    synthesis, supervisor, monitor = plan.nodes
    assert synthesis.parameters == {"mission": str(missions / "watched.yaml"),
                                    "use_sim_time": True, "output_dir": "/out",
                                    "exit_when_done": False}
    assert supervisor.parameters["runner"] == "embedded"
    assert supervisor.parameters["monitor_node"] == monitor.name  # the run waits for it
    assert supervisor.parameter_files == (str(tmp_path / "supervisor_node.yaml"),)
    assert synthesis.parameter_files == () and monitor.name == "bdi_monitor"
    plain = launch_plan.plan(missions / "plain.yaml")
    assert [n.executable for n in plain.nodes] == ["synthesis_node", "supervisor_node"]
    assert "monitor_node" not in plain.nodes[1].parameters


def test_plan_flexbe_includes_onboard_with_the_run_time_prefix_first_on_its_paths(missions,
                                                                                 tmp_path):
    """The run folder is named by the launch (under the ROS log folder); the prefix onboard
    reads behaviors from lies in it, exists before any process starts, is first on onboard's
    AMENT_PREFIX_PATH and PYTHONPATH, and the supervisor node installs into it."""
    plan = launch_plan.plan(missions / "plain.yaml", "flexbe", use_sim_time=True,
                            log_dir=tmp_path / "log")
    (include,) = plan.includes
    assert (include.package, include.file) == ("flexbe_onboard", "behavior_onboard.launch.py")
    assert include.arguments == {"use_sim_time": "true"}
    synthesis, supervisor = plan.nodes
    run = Path(synthesis.parameters["output_dir"])
    assert run.parent == tmp_path / "log" / "bdi_supervisor" and run.name.startswith("plain_")
    assert plan.flexbe_prefix == run / launch_plan.FLEXBE_PREFIX
    assert supervisor.parameters["runner"] == "flexbe"
    assert supervisor.parameters["flexbe_prefix"] == str(plan.flexbe_prefix)
    assert include.prepend == (("AMENT_PREFIX_PATH", str(plan.flexbe_prefix / "current")),
                               ("PYTHONPATH", str(plan.flexbe_prefix / "current" / "python")))
    assert not plan.flexbe_prefix.exists()
    launch_plan.prepare(plan)
    assert all(Path(folder).is_dir() for _, folder in include.prepend)
    given = launch_plan.plan(missions / "plain.yaml", "flexbe", output_dir=str(tmp_path / "o"))
    assert given.flexbe_prefix == tmp_path / "o" / launch_plan.FLEXBE_PREFIX
    embedded = launch_plan.plan(missions / "plain.yaml", log_dir=tmp_path / "log")
    assert embedded.flexbe_prefix is None and "flexbe_prefix" not in embedded.nodes[1].parameters


@pytest.mark.parametrize(("mission", "world"), [("two_rivers", "two_rivers_world"),
                                                 ("two_rivers_goat_stays", "two_rivers_world"),
                                                 ("beer_robot", "beer_robot_world"),
                                                 ("vending", None)])
def test_flexbe_runs_start_the_world_their_states_talk_to(mission, world, tmp_path):
    """Under ``runner:=flexbe`` the world node of the catalog's own states runs beside onboard,
    with the mission (it draws the mission's seeded failures); the embedded runner needs none."""
    path = ROOT / "config" / "missions" / f"{mission}.yaml"
    flexbe = launch_plan.plan(path, "flexbe", output_dir=str(tmp_path))
    worlds = [n for n in flexbe.nodes if n.executable.endswith("_world")]
    assert [n.executable for n in worlds] == ([world] if world else [])
    for node in worlds:
        assert node.name == world and node.package == launch_plan.PACKAGE
        assert node.parameters == {"mission": str(path), "use_sim_time": False, "force": ""}
    forced = launch_plan.plan(path, "flexbe", output_dir=str(tmp_path), force="move=failure")
    for node in forced.nodes:  # the world decides the forced outcomes of what it serves alike
        if node.executable.endswith("_world"):
            assert node.parameters["force"] == "move=failure"
    embedded = launch_plan.plan(path, "embedded")
    assert not [n for n in embedded.nodes if n.executable.endswith("_world")]


def test_a_flexbe_run_of_a_pyrobosim_mission_starts_its_world_node(tmp_path):
    """The world the embedded runner opens itself is served by a node under FlexBE: the
    catalog's states and the mission's simulator pick it (logistics: PyRoboSim; coffee: none)."""
    mission = ROOT / "config" / "missions" / "logistics_p1_faults.yaml"
    flexbe = launch_plan.plan(mission, "flexbe", log_dir=tmp_path)
    world = [n for n in flexbe.nodes if n.executable == "pyrobosim_world"]
    assert [(n.name, n.package) for n in world] == [("pyrobosim_world", launch_plan.PACKAGE)]
    assert world[0].parameters == {"mission": str(mission), "use_sim_time": False}
    embedded = launch_plan.plan(mission, "embedded", log_dir=tmp_path)
    assert "pyrobosim_world" not in [n.executable for n in embedded.nodes]
    # the same PyRoboSim states, but runner.sim forced: no world to serve (the mission is
    # unrealizable, its launch ends with the synthesis node's verdict)
    for other in ("coffee", "logistics_p0_holding_start"):
        nodes = launch_plan.plan(ROOT / "config" / "missions" / f"{other}.yaml", "flexbe",
                                 log_dir=tmp_path).nodes
        assert not {n.executable for n in nodes} & {e for e, _ in
                                                     launch_plan.WORLD_NODES.values()}


@pytest.mark.parametrize("folder", ["launch", ""])
def test_the_onboard_launch_file_is_found_where_flexbe_installs_it(tmp_path, folder):
    """FlexBE 2.3 and 4.x install ``behavior_onboard.launch.py`` at the top of
    ``share/flexbe_onboard``, not in ``launch/``; both places are looked at."""
    include = launch_plan.IncludeSpec(*launch_plan.ONBOARD)
    share = tmp_path / "share" / "flexbe_onboard"
    (share / folder).mkdir(parents=True, exist_ok=True)
    (share / folder / include.file).write_text("")
    assert launch_plan.find_include(include, share) == share / folder / include.file


def test_a_missing_onboard_is_a_clear_error_naming_what_was_looked_for(tmp_path):
    include = launch_plan.IncludeSpec(*launch_plan.ONBOARD)
    with pytest.raises(InputError, match="package 'flexbe_onboard' is not installed") as caught:
        launch_plan.find_include(include, None)
    assert "runner:=embedded" in str(caught.value)
    share = tmp_path / "share" / "flexbe_onboard"
    share.mkdir(parents=True)
    with pytest.raises(InputError, match=r"'behavior_onboard\.launch\.py' of package "
                                         "'flexbe_onboard' not found") as caught:
        launch_plan.find_include(include, share)
    for place in (share / "launch" / include.file, share / include.file):
        assert str(place) in str(caught.value)


def test_exit_when_done_goes_to_the_supervisor_and_the_synthesis(missions):
    """Both end with the launch: the supervisor when the run ends, the synthesis node when it
    hands nothing over (an unrealizable mission would otherwise keep the launch waiting)."""
    for runner in launch_plan.RUNNERS:
        done = launch_plan.plan(missions / "plain.yaml", runner, exit_when_done=True,
                                output_dir="/out")
        assert done.nodes[1].parameters["exit_when_done"] is True
        assert done.nodes[0].parameters["exit_when_done"] is True
    plain = launch_plan.plan(missions / "plain.yaml")
    assert [n.parameters["exit_when_done"] for n in plain.nodes] == [False, False]
    with pytest.raises(InputError, match="true or false"):
        launch_plan.parse_bool("exit_when_done", "sometimes")


def test_bad_launch_arguments_are_input_errors(missions, tmp_path):
    with pytest.raises(InputError, match="unknown runner"):
        launch_plan.plan(missions / "plain.yaml", "smach")
    with pytest.raises(InputError, match="plain, watched"):
        launch_plan.resolve_mission("nope", [missions])
    with pytest.raises(InputError, match="no mission"):
        launch_plan.resolve_mission("", [missions])
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1,\n")
    with pytest.raises(InputError, match="YAML") as caught:
        launch_plan.plan(bad)
    assert caught.value.line is not None
    with pytest.raises(InputError, match="true or false"):
        launch_plan.parse_bool("use_sim_time", "yes please")


@pytest.mark.parametrize("extra, key, message", [
    ("bogus_key: 1\n", "bogus_key", "unknown key"),
    ("request: {goals: ['br_c &']}\n", "request.goals[0]", "malformed formula"),
    ("runner: {max_steps: -3}\n", "runner.max_steps", "integer >= 1"),
    ("adapters: {no_such_capability: {type: operator}}\n", "no_such_capability",
     "unknown capability"),
])
def test_the_mission_is_validated_in_full_before_any_node(missions, extra, key, message):
    """What ``bdi-supervisor run`` rejects, the launch rejects before it starts a node (today's
    nodes would each exit 2 with it)."""
    bad = missions / "bad.yaml"
    bad.write_text((missions / "plain.yaml").read_text() + extra)
    with pytest.raises(InputError, match=message) as caught:
        launch_plan.plan(bad)
    assert caught.value.file == str(bad) and key in str(caught.value), caught.value


@pytest.mark.parametrize("code, why", [
    (1, "unrealizable"), (2, "bad input"), (3, "budget ran out"), (4, "not its goal"),
    (5, "audit did not pass"), (6, "engine error"), (7, "stopped"), (-9, "killed by signal 9"),
    (70, "see its log")])
def test_any_node_exit_ends_the_launch_and_an_error_makes_it_fail(missions, code, why):
    """The launch's message says what the node's own exit code means (the launch exits 1)."""
    supervisor = launch_plan.plan(missions / "plain.yaml").nodes[1]
    assert "finished" in launch_plan.on_node_exit(supervisor, 0)
    with pytest.raises(launch_plan.NodeFailed, match=why) as caught:
        launch_plan.on_node_exit(supervisor, code)
    assert f"bdi_supervisor (supervisor_node) exited with code {code}" in str(caught.value)


@pytest.mark.parametrize("code", [0, 1, -9, -15])
def test_onboard_exit_stops_the_launch_whatever_its_code(code):
    """FlexBE onboard (started by its own launch file) exiting while the launch runs: the run
    cannot go on; other processes' exits are the node handlers' business."""
    with pytest.raises(launch_plan.NodeFailed, match="FlexBE onboard") as caught:
        launch_plan.on_onboard_exit("flexbe_onboard", "start_behavior", code)
    assert f"exited with code {code}" in str(caught.value)
    assert launch_plan.on_onboard_exit("bdi_supervisor", "supervisor_node", code) is None
    assert launch_plan.on_onboard_exit(None, None, code) is None


def test_missions_resolve_by_name_or_path(missions):
    assert launch_plan.resolve_mission("watched", [missions]) == missions / "watched.yaml"
    assert launch_plan.resolve_mission(str(missions / "plain.yaml"), []) == missions / "plain.yaml"
    assert launch_plan.parse_bool("x", "True") and not launch_plan.parse_bool("x", "0")


# --- static checks of the launch file (launch/launch_ros are not installable here) ----------

ALLOWED_IMPORTS = {"launch", "launch.actions", "launch.event_handlers", "rclpy.logging",
                   "launch.launch_description_sources", "launch.substitutions",
                   "launch_ros.actions", "ament_index_python.packages", "functools", "pathlib",
                   "shlex", "bdi_supervisor.ros"}
NODE_KEYWORDS = {"package", "executable", "name", "namespace", "parameters", "remappings",
                 "arguments", "ros_arguments", "output", "exec_name", "additional_env"}
#: configurations of the launch service itself, which a launch file reads and sets undeclared
LAUNCH_CONFIGURATIONS = {"launch-prefix"}


@pytest.fixture(scope="module")
def tree():
    return ast.parse(LAUNCH_FILE.read_text(), filename=str(LAUNCH_FILE))


def test_launch_file_imports_only_launch_names(tree):
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert modules <= ALLOWED_IMPORTS, modules - ALLOWED_IMPORTS


def test_launch_file_declares_the_arguments(tree):
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "generate_launch_description" in functions
    declared = {call.args[0].value for call in ast.walk(tree) if isinstance(call, ast.Call)
                and getattr(call.func, "id", None) == "DeclareLaunchArgument"}
    assert {"mission", "runner", "use_sim_time", "output_dir", "exit_when_done"} <= declared
    used = {call.args[0].value for call in ast.walk(tree) if isinstance(call, ast.Call)
            and getattr(call.func, "id", None) == "LaunchConfiguration"}
    assert used <= declared | LAUNCH_CONFIGURATIONS


def test_launch_file_uses_only_existing_plan_names_and_node_keywords(tree):
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                  and getattr(node.value, "id", None) == "launch_plan"}
    assert attributes and all(hasattr(launch_plan, name) for name in attributes)
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Node":
            assert {k.arg for k in call.keywords} <= NODE_KEYWORDS
    spec_fields = set(launch_plan.NodeSpec.__dataclass_fields__)
    read = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and getattr(node.value, "id", None) == "spec"}
    assert read
    assert read <= spec_fields


def test_node_parameter_files_are_wildcard_ros_parameters():
    for executable in launch_plan.EXECUTABLES:
        data = yaml.safe_load((ROOT / "config" / f"{executable}.yaml").read_text())
        assert list(data) == ["/**"] and isinstance(data["/**"]["ros__parameters"], dict)


def test_a_quadcopter_mission_under_flexbe_starts_the_drone_node(tmp_path):
    """The behavior's drone states talk to ``drone_node``: a flexbe run of a quadcopter mission
    starts it (with the mission and the chosen backend); an embedded run does not."""
    mission = ROOT / "config" / "missions" / "quadcopter_pihawk_dropout.yaml"
    plan = launch_plan.plan(mission, "flexbe", config_dir=ROOT / "config", log_dir=tmp_path,
                            drone_backend="rotorpy")
    drone = plan.nodes[-1]
    assert (drone.executable, drone.name) == launch_plan.WORLD_NODES["quadcopter"]
    assert drone.parameters == {"mission": str(mission), "use_sim_time": False,
                                "backend": "rotorpy"}
    assert drone.parameter_files == (str(ROOT / "config" / "drone_node.yaml"),)
    embedded = launch_plan.plan(mission, "embedded", config_dir=ROOT / "config")
    assert "drone_node" not in [n.executable for n in embedded.nodes]


def test_the_drone_node_parameter_file_names_only_its_parameters():
    data = yaml.safe_load((ROOT / "config" / "drone_node.yaml").read_text())
    assert list(data) == ["/**"]
    source = (ROOT / "bdi_supervisor" / "domains" / "quadcopter" / "ros" / "drone_node.py")
    declared = set(re.findall(r'declare\(\s*self, "(\w+)"', source.read_text()))
    assert set(data["/**"]["ros__parameters"]) <= declared
    assert declared - set(data["/**"]["ros__parameters"]) == {"mission", "backend"}
