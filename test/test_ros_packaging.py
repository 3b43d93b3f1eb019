"""ament_python packaging: package.xml (catkin_pkg, as FlexBE and rosdep read it), a real
``colcon build`` with the ros-jazzy wheels, and the installed executable run with ``--ros-args``
as ``launch_ros`` would start it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest
from catkin_pkg.package import parse_package
from support.paths import MISSIONS, ROOT

from bdi_supervisor import __version__

PACKAGE = "bdi_supervisor"
EXECUTABLES = ("synthesis_node", "supervisor_node", "monitor_node")
PYPI_ONLY = ("ros-jazzy", "ros_jazzy", "colcon", "cudd")


def test_package_xml_is_valid_and_names_rosdep_keys():
    package = parse_package(str(ROOT / "package.xml"))
    package.validate()
    assert package.package_format == 3 and package.name == PACKAGE
    assert package.version == __version__  # bdi_supervisor/__init__.py is the one place
    assert [e.tagname for e in package.exports] == ["build_type"]
    assert package.exports[0].content == "ament_python"
    depends = {d.name for d in package.exec_depends}
    assert {"rclpy", "std_msgs", "std_srvs", "diagnostic_msgs", "launch_ros"} <= depends
    assert not [d for d in depends | {d.name for d in package.test_depends}
                if any(word in d for word in PYPI_ONLY)]


def test_setup_cfg_puts_scripts_where_launch_ros_looks():
    text = (ROOT / "setup.cfg").read_text()
    assert f"script_dir=$base/lib/{PACKAGE}" in text
    assert f"install_scripts=$base/lib/{PACKAGE}" in text


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    pytest.importorskip("rclpy", reason="real rclpy not installed (pip install -e '.[ros]')")
    pytest.importorskip("colcon_core", reason="colcon not installed (pip install -e '.[ros]')")
    work = tmp_path_factory.mktemp("colcon")
    source = work / "src" / PACKAGE
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "install", "log", "out", "*.egg-info", "__pycache__",
        ".pytest_cache", ".ruff_cache", ".hypothesis", ".benchmarks"))
    env = {**os.environ, "AMENT_PREFIX_PATH": sys.prefix}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "colcon", "--log-base", str(work / "log"), "build",
         "--base-paths", str(work / "src"), "--build-base", str(work / "build"),
         "--install-base", str(work / "install")],
        cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    print(f"colcon build: {time.monotonic() - started:.1f} s")
    return work / "install"


@pytest.mark.ros
def test_colcon_install_layout(installed):
    from bdi_supervisor.ros.executables import NODES

    prefix = installed / PACKAGE
    assert set(EXECUTABLES) <= set(NODES)
    for executable in NODES:  # every node, world nodes included, where launch_ros looks
        assert os.access(prefix / "lib" / PACKAGE / executable, os.X_OK), executable
    share = prefix / "share" / PACKAGE
    assert (share / "package.xml").is_file()
    assert (share / "launch" / "mission.launch.py").is_file()
    assert {p.name for p in (share / "config").glob("*.yaml")} >= {
        f"{e}.yaml" for e in EXECUTABLES}
    assert (share / "config" / "missions" / "coffee_extended.yaml").is_file()
    assert (prefix / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE).is_file()
    # the command lines on PATH too (bin/), the nodes only where launch_ros looks
    assert sorted(p.name for p in (prefix / "bin").iterdir()) == ["bdi-monitor",
                                                                  "bdi-supervisor"]


@pytest.mark.ros
def test_colcon_install_puts_the_command_lines_on_path(installed, tmp_path):
    """After sourcing an install, ``bdi-supervisor`` (what docs/flexbe.md runs) is found on
    PATH; an installed node started without ROS 2 says so in one line."""
    prefix = installed / PACKAGE
    site = next((prefix / "lib").glob("python3*/site-packages"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PATH=os.pathsep.join([str(prefix / "bin"), env["PATH"]]), PYTHONPATH=str(site))
    for tool in ("bdi-supervisor", "bdi-monitor"):
        assert shutil.which(tool, path=env["PATH"]) == str(prefix / "bin" / tool)
        done = subprocess.run([tool, "--version"], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0 and done.stdout == f"{tool} {__version__}\n", done
    # no site-packages but the install's: no rclpy
    node = prefix / "lib" / PACKAGE / "synthesis_node"
    done = subprocess.run([sys.executable, "-S", str(node)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: synthesis_node needs ROS 2 (") and \
        "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.ros
def test_launch_arguments_are_shown(installed, ros_env, tmp_path):
    """``ros2 launch bdi_supervisor mission.launch.py --show-args`` (what docs/ros2.md shows)
    lists the arguments with their defaults: ``exit_when_done`` stays off."""
    if shutil.which("ros2") is None:
        pytest.skip("ros2 not on PATH: source ../shared/ros-stack/env.sh")
    prefix = installed / PACKAGE
    site = next((prefix / "lib").glob("python3*/site-packages"))
    env = {**ros_env, "AMENT_PREFIX_PATH": os.pathsep.join(
        [str(prefix), ros_env.get("AMENT_PREFIX_PATH", sys.prefix)]),
        "PYTHONPATH": os.pathsep.join([str(site), ros_env.get("PYTHONPATH", "")])}
    done = subprocess.run(["ros2", "launch", PACKAGE, "mission.launch.py", "--show-args"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for argument in ("mission", "runner", "exit_when_done", "output_dir", "force"):
        assert f"'{argument}':" in done.stdout, done.stdout
    shown = done.stdout.split("'exit_when_done':", 1)[1]
    assert "(default: 'false')" in shown.split("'", 1)[0] + shown[:400]


def test_a_node_without_ros_says_so_in_one_line(tmp_path):
    """A node's executable where rclpy cannot be imported: one error line, exit 2, naming the
    ROS 2 module that stopped it (rclpy, or a message package imported before it where there
    is no ROS 2 at all), one that indeed cannot be imported here."""
    import re
    from importlib.util import find_spec

    from bdi_supervisor.ros.executables import NODES

    code = ("import sys; sys.modules['rclpy'] = None\n"
            "from bdi_supervisor.ros.executables import NODES, start\n"
            "sys.exit(max(start(name) for name in NODES))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == len(NODES) and "Traceback" not in done.stderr
    for name, line in zip(NODES, lines):
        found = re.match(rf"error: {name} needs ROS 2 \('(\w+)', which cannot be imported\); "
                         "source a ROS 2 Jazzy installation", line)
        assert found, line
        assert found[1] == "rclpy" or find_spec(found[1]) is None, line


@pytest.mark.ros
def test_installed_executable_runs_with_ros_args(installed, ros_env, rclpy_context, tmp_path):
    """Start ``lib/bdi_supervisor/monitor_node`` from the install space with the arguments a
    ``launch_ros`` Node action builds (``-r __node:=``, ``--params-file``, ``-p``) and see it on
    the graph under its remapped name; SIGINT ends it with status 0."""
    from rclpy.executors import SingleThreadedExecutor
    from support.ros_helpers import spin_until, stop

    prefix = installed / PACKAGE
    site = next((prefix / "lib").glob("python3*/site-packages"))
    env = {**ros_env, "PYTHONPATH": str(site), "AMENT_PREFIX_PATH":
           os.pathsep.join([str(prefix), sys.prefix])}
    where = subprocess.run([sys.executable, "-c",
                            "import bdi_monitor; print(bdi_monitor.__file__)"],
                           env=env, capture_output=True, text=True, cwd=tmp_path)
    assert where.stdout.strip().startswith(str(site)), where
    mission = (MISSIONS / "coffee.yaml")
    process = subprocess.Popen(
        [str(prefix / "lib" / PACKAGE / "monitor_node"), "--ros-args",
         "-r", "__node:=installed_monitor",
         "--params-file", str(prefix / "share" / PACKAGE / "config" / "monitor_node.yaml"),
         "-p", f"mission:={mission}", "-p", "require_core:=false"],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    from diagnostic_msgs.msg import DiagnosticArray

    from bdi_supervisor.ros import qos

    node = __import__("rclpy").create_node("observer", context=rclpy_context)
    arrays = []
    node.create_subscription(DiagnosticArray, "/diagnostics", arrays.append, qos.DIAGNOSTICS)
    executor = SingleThreadedExecutor(context=rclpy_context)
    executor.add_node(node)
    try:
        assert spin_until(executor, lambda: "installed_monitor" in node.get_node_names(), 30)
        assert spin_until(executor, lambda: arrays, 30)  # up and publishing (period 1 s)
    finally:
        executor.shutdown()
        node.destroy_node()
        code, output = stop(process)
    assert code == 0, output
    bad = subprocess.run([str(prefix / "lib" / PACKAGE / "monitor_node"), "--ros-args",
                          "-p", "mission:=/nonexistent.yaml"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "parameter 'mission'" in bad.stderr, bad


def test_package_xml_names_what_runs_and_what_tests_use():
    """Every install requirement has its rosdep key (dd's in the package's own rosdep rules),
    FlexBE is no hard dependency (only runner:=flexbe needs it), and every test dependency is
    imported by a test."""
    import re

    import yaml

    package = parse_package(str(ROOT / "package.xml"))
    depends = {d.name for d in package.exec_depends}
    assert not [d for d in depends if d.startswith("flexbe")]
    assert {"python3-dd-pip", "python3-yaml", "python3-rich"} <= depends
    rules = yaml.safe_load((ROOT / "rosdep" / "python.yaml").read_text())
    for key in [d for d in depends if d.endswith("-pip")]:
        assert rules[key]["ubuntu"]["pip"]["packages"], key
    setup = (ROOT / "setup.py").read_text()
    required = re.search(r"install_requires=\[(.*?)\]", setup, re.S).group(1)
    assert re.findall(r'"([A-Za-z]+)', required) == ["dd", "PyYAML", "rich"]
    tests = "\n".join(p.read_text() for p in (ROOT / "test").rglob("*.py"))
    for dep in package.test_depends:
        module = dep.name.removeprefix("python3-").replace("-", "_")
        assert re.search(rf"^\s*(import|from) {module}\b", tests, re.M), dep.name
