"""``ros2 launch bdi_supervisor mission.launch.py mission:=<file|name> runner:=embedded|flexbe``

Arguments: ``mission`` (a mission file, or the name of one installed under
``share/bdi_supervisor/config/missions``), ``runner`` (``embedded``: the supervisor node runs
the strategy itself; ``flexbe``: it starts the realized behavior in FlexBE onboard, included
here), ``use_sim_time``, ``output_dir``. The node list is
:func:`bdi_supervisor.ros.launch_plan.plan`'s; this file only turns it into launch actions.
"""

from pathlib import Path

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from bdi_supervisor.ros import launch_plan


def _actions(context):
    config = Path(get_package_share_directory(launch_plan.PACKAGE), "config")
    mission = launch_plan.resolve_mission(
        LaunchConfiguration("mission").perform(context), [config / "missions"])
    use_sim_time = launch_plan.parse_bool(
        "use_sim_time", LaunchConfiguration("use_sim_time").perform(context))
    plan = launch_plan.plan(mission, LaunchConfiguration("runner").perform(context),
                            use_sim_time, config,
                            LaunchConfiguration("output_dir").perform(context))
    actions = [
        Node(package=node.package, executable=node.executable, name=node.name,
             parameters=[*node.parameter_files, node.parameters],
             remappings=list(node.remappings), output="screen")
        for node in plan.nodes]
    for include in plan.includes:
        path = Path(get_package_share_directory(include.package), "launch", include.file)
        actions.append(IncludeLaunchDescription(PythonLaunchDescriptionSource(str(path)),
                                                launch_arguments=include.arguments.items()))
    return actions


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument("mission", default_value="coffee_extended",
                              description="mission file, or name of an installed mission"),
        DeclareLaunchArgument("runner", default_value="embedded",
                              choices=list(launch_plan.RUNNERS),
                              description="embedded executor or FlexBE onboard"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              choices=["true", "false"], description="use /clock"),
        DeclareLaunchArgument("output_dir", default_value="",
                              description="where the synthesis node writes its records "
                                          "(default: a fresh temporary folder)"),
        OpaqueFunction(function=_actions),
    ])
