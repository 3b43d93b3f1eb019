"""``mission.launch.py`` included, then an error in the same visit of the launch's actions: the
launch service forgets every process that visit started (they start, but the launch does not
wait for them, nor stop them) and exits at once. Its arguments go to the mission's launch file.
Used by test/test_ros_launch_orphans.py to leave nodes without their launch."""

from pathlib import Path

from launch import LaunchDescription
from launch.actions import IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource

MISSION_LAUNCH = Path(__file__).resolve().parents[3] / "launch" / "mission.launch.py"


def _fail(context):
    raise RuntimeError("an error while the launch starts its nodes")


def generate_launch_description():
    return LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(str(MISSION_LAUNCH))),
        OpaqueFunction(function=_fail),
    ])
