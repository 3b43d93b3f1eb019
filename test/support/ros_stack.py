"""The skip reason of every test that needs a piece of ROS 2 that PyPI lacks (FlexBE, Jazzy's
launch/launch_ros/ros2cli, the robot-domain interfaces): what is missing and where it comes from."""

from __future__ import annotations

#: ``STACK_MISSING.format(what=...)``: the base stack (FlexBE 3.0.7 by default, launch, ros2cli)
STACK_MISSING = (
    "{what} not installed (not on PyPI): source ../shared/ros-stack/env.sh after activating the "
    "venv and setting AMENT_PREFIX_PATH, as .ci/run does (or a ROS 2 Jazzy workspace that has it)")
#: ``DOMAINS_MISSING.format(what=...)``: the robot-domain interface and state packages
DOMAINS_MISSING = (
    "{what} not installed (not on PyPI): source ../shared/ros-stack/env.sh, then "
    "../shared/ros-stack/domains/env.sh, as .ci/run does")
