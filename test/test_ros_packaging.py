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
    prefix = installed / PACKAGE
    for executable in EXECUTABLES:
        assert os.access(prefix / "lib" / PACKAGE / executable, os.X_OK), executable
    share = prefix / "share" / PACKAGE
    assert (share / "package.xml").is_file()
    assert (share / "launch" / "mission.launch.py").is_file()
    assert {p.name for p in (share / "config").glob("*.yaml")} >= {
        f"{e}.yaml" for e in EXECUTABLES}
    assert (share / "config" / "missions" / "coffee_extended.yaml").is_file()
    assert (prefix / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE).is_file()


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
