"""Packaging for pip (``pip install -e .[test]``) and colcon (ament_python)."""

import os
import re
import sys
from glob import glob
from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "bdi_supervisor"
CONFIG_KINDS = ("missions", "catalogs", "worlds", "ctl", "sweeps")
# the one place the version is written (read as text: the package imports its dependencies)
VERSION = re.search(r'^__version__ = "([^"]+)"', (Path(__file__).parent / PACKAGE / "__init__.py")
                    .read_text(encoding="utf-8"), re.M).group(1)

#: a ROS 2 install: colcon (it sets COLCON=1) builds the package with ``setup.py install`` or
#: ``develop``. There the nodes are console scripts in lib/<package> (setup.cfg), where launch_ros
#: finds them, and the command lines are also in bin/, on PATH once the install is sourced. A
#: wheel (pip) has only the command lines: on PATH, the nodes would fail without ROS 2.
ROS_INSTALL = os.environ.get("COLCON") == "1" or bool({"install", "develop"} & set(sys.argv[1:]))
COMMANDS = [
    "bdi-supervisor = bdi_supervisor.cli.main:main",
    "bdi-monitor = bdi_supervisor.cli.monitor:main",
]
#: ROS 2 executables (each says "needs ROS 2" in one line where rclpy is missing)
NODES = [f"{name} = bdi_supervisor.ros.executables:{name}" for name in (
    "synthesis_node", "supervisor_node", "monitor_node", "drone_node",
    # the small domains' world nodes (their FlexBE states talk to them: runner:=flexbe)
    "two_rivers_world", "beer_robot_world",
    # the PyRoboSim world node (the logistics missions' FlexBE states act on its world)
    "pyrobosim_world",
    # the FlexBE synthesis action server (in place of the reference's; docs/flexbe.md)
    "synthesis_server")]

setup(
    name=PACKAGE,
    version=VERSION,
    description="GR(1)-synthesized, audited FlexBE supervisors with a live CTL-BDI monitor",
    packages=[*find_packages(include=["bdi_supervisor", "bdi_supervisor.*", "bdi_monitor",
                                      "bdi_monitor.*", "bdi_flexbe_states",
                                      "bdi_flexbe_states.*"]),
              "bdi_supervisor.data", "bdi_supervisor.config",
              *(f"bdi_supervisor.config.{kind}" for kind in CONFIG_KINDS)],
    # config/ (missions, catalogs, worlds, CTL models, sweeps) is the package's data as
    # bdi_supervisor/config in a wheel, so an installed package can run its missions by name
    # (bdi_supervisor.shipped); the same files go to share/ for ROS below. One copy in the repo.
    package_dir={"bdi_supervisor.config": "config"},
    package_data={"bdi_supervisor.data": ["*.yaml"], "bdi_supervisor.config": ["*.yaml"],
                  **{f"bdi_supervisor.config.{kind}": ["*.yaml"] for kind in CONFIG_KINDS}},
    include_package_data=True,
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.launch.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml")),
        *((f"share/{PACKAGE}/config/{kind}", glob(f"config/{kind}/*.yaml"))
          for kind in CONFIG_KINDS),
        *([("bin", ["scripts/bdi-supervisor", "scripts/bdi-monitor"])] if ROS_INSTALL else []),
    ],
    python_requires=">=3.10",
    install_requires=[
        "dd>=0.6",
        "PyYAML>=6",
        "rich>=13",
    ],
    extras_require={
        "test": [
            "pytest>=8",
            # test/test_wheel_install.py builds the wheel without build isolation (offline)
            "setuptools>=70.1",
            "pytest-xdist>=3.5",  # the README/CI test command runs on every core (-n auto)
            "hypothesis>=6",
            "omega>=0.4",
            "catkin_pkg>=1.0",
            "ruff>=0.6",
            "pymodelchecking>=1.3",
            "numpy>=1.24",  # bench/ctl explicit-state peer and its test
            "msgspec>=0.18",  # the wire decoder's fast path, tested against json.loads
            "pyrobosim==5.0.1",
            "rotorpy==3.0.0",
            "cflib==0.1.34",  # the Crazyflie backend's tests drive cflib's own classes
            "dask[distributed]>=2024.1",
        ],
        # the benchmarks' peers (bench/monitor: RTAMT) and the monitor node's fast JSON decoder
        "bench": ["rtamt==0.4.10", "msgspec>=0.18"],
        # the ROS monitor node decodes BDI-state messages with msgspec where it is installed
        "fast": ["msgspec>=0.18"],
        # sweeps on many machines (bdi-supervisor sweep --scheduler ADDRESS)
        "cluster": ["dask[distributed]>=2024.1"],
        # sweep plots (PNG) and Parquet reports
        "reports": ["matplotlib>=3.5", "pyarrow>=12"],
        "sim": [
            "pyrobosim==5.0.1",
        ],
        # quadcopter gate course on RotorPy (fresh venv: ~90 s, ~500 MB with its numpy/scipy/
        # matplotlib/pandas/cvxopt/gymnasium dependencies)
        "rotorpy": ["rotorpy==3.0.0"],
        # a real Crazyflie for the quadcopter drone node (backend crazyflie; docs/flight.md)
        "crazyflie": ["cflib==0.1.34"],
        # Real rclpy for the node-layer tests: the third-party ``ros-jazzy-*`` rebuilds on PyPI
        # (Fast DDS only). A test dependency only; package.xml names the real rosdep keys.
        "ros": [
            "ros-jazzy-rclpy[fastrtps]==7.1.6",
            "ros-jazzy-std-msgs==5.3.6",
            "ros-jazzy-std-srvs==5.3.6",
            "ros-jazzy-diagnostic-msgs==5.3.6",
            "ros-jazzy-test-msgs==2.0.3",
            "colcon-common-extensions>=0.3",
        ],
    },
    zip_safe=True,
    maintainer="bdi_supervisor maintainers",
    maintainer_email="maintainers@bdi-supervisor.dev",
    license="Apache-2.0",
    entry_points={
        # the simulator domains, found by bdi_supervisor.runtime.binding.discover_backends
        "bdi_supervisor.simulators": [
            "pyrobosim = bdi_supervisor.domains.pyrobosim",
            "quadcopter = bdi_supervisor.domains.quadcopter",
        ],
        "console_scripts": COMMANDS + (NODES if ROS_INSTALL else []),
    },
)
