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

#: words every skip reason for want of ROS 2 has (the reasons above, and those of the tests
#: that need rclpy, from the ``ros`` extra)
SKIP_WORDS = ("rclpy", "FlexBE", "ros-stack")
#: what the ROS tests need, as (importable module, what it is, where it comes from)
PARTS = (("rclpy", "rclpy", "pip install -e '.[ros]'"),
         ("flexbe_core", "FlexBE with Jazzy's launch and ros2cli",
          "source ../shared/ros-stack/env.sh after activating the venv and setting "
          "AMENT_PREFIX_PATH"),
         ("pyrobosim_msgs", "the robot-domain interfaces",
          "then source ../shared/ros-stack/domains/env.sh"))


def is_ros_skip(reason: str) -> bool:
    """Whether a skip's reason is the want of a piece of ROS 2."""
    return any(word in reason for word in SKIP_WORDS)


def summary(skipped: int) -> str:
    """The one line a run without (part of) ROS 2 sums its ROS skips up with: what is absent
    here and how to get it."""
    from importlib.util import find_spec

    absent = []
    for module, what, how in PARTS:
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            absent.append(f"{what} ({how})")
    missing = "; ".join(absent) or "a piece of ROS 2 (each test's reason: pytest -v)"
    return (f"{skipped} tests skipped: they need ROS 2, not installed here: {missing}; "
            ".ci/run sets them up (docs/testing.md)")
