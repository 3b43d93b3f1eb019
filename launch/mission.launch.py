"""``ros2 launch bdi_supervisor mission.launch.py mission:=<file|name> runner:=embedded|flexbe``

Arguments: ``mission`` (a mission file, or the name of one under ``config/missions`` beside this
file's folder: ``share/bdi_supervisor/config/missions`` when installed), ``runner``
(``embedded``: the supervisor node runs the strategy itself; ``flexbe``: it starts the realized
behavior in FlexBE onboard, included here), ``use_sim_time``, ``output_dir``,
``exit_when_done``, ``autonomy`` (``runner:=flexbe``: ``off``/``low``/``high``/``full`` for an
operator's run; empty: the supervisor runs the behavior as the embedded executor would),
``force`` (forced outcomes, as ``bdi-supervisor run --force``, under either runner),
``drone_backend`` (a quadcopter mission under ``runner:=flexbe``: the drone node's
``kinematic``, ``rotorpy`` or ``crazyflie``; empty: the mission's). The node list is
:func:`bdi_supervisor.ros.launch_plan.plan`'s, which validates the mission in full first; this
file only turns it into launch actions.

Everything that can fail is resolved before the first action is returned (the mission, the
included launch files, loaded here, the run folder and, with ``runner:=flexbe``, the run-time
prefix onboard reads the realized behavior from, put first on onboard's ``AMENT_PREFIX_PATH``
and ``PYTHONPATH``): a launch that cannot be set up starts no process at all.

Each node of this package gets the launch's process id (``BDI_LAUNCH_PID``,
:mod:`bdi_supervisor.ros.parent`) and ends by itself when the launch is gone, also where the
launch could not stop it (killed, or an error that lost track of its processes); FlexBE
onboard, started by its own launch file, starts through a wrapper of that module (its
``launch-prefix``), which has the kernel stop it likewise (Linux).

Any node's exit ends the launch and stops the other nodes (a node here runs for the whole
launch): a non-zero exit makes the launch exit non-zero with a message naming the node and what
its code means; a clean one (``exit_when_done``, after a run that reached its goal) shuts the
launch down with exit code 0. So does FlexBE onboard's exit, whatever its code, while the launch
runs (``runner:=flexbe``): the run cannot go on without it.
"""

import shlex
from functools import partial
from pathlib import Path

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchDescription
from launch.actions import (
    AppendEnvironmentVariable,
    DeclareLaunchArgument,
    GroupAction,
    IncludeLaunchDescription,
    OpaqueFunction,
    RegisterEventHandler,
    SetEnvironmentVariable,
    SetLaunchConfiguration,
    Shutdown,
)
from launch.event_handlers import OnProcessExit
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from rclpy.logging import get_logging_directory

from bdi_supervisor.ros import launch_plan, parent

#: ``config/`` of the package: beside ``launch/`` both in the source tree and in
#: ``share/bdi_supervisor`` (so a launch file run from a checkout uses that checkout's config)
CONFIG = Path(__file__).resolve().parent.parent / "config"


def _on_exit(spec, event, context):
    if context.is_shutdown:  # stopped by the launch itself (Ctrl-C, another node's exit)
        return None
    return [Shutdown(reason=launch_plan.on_node_exit(spec, event.returncode))]


def _on_any_exit(event, context):
    """FlexBE onboard, started by its own launch file, exiting while the launch runs."""
    if context.is_shutdown:
        return None
    action = event.action
    launch_plan.on_onboard_exit(getattr(action, "node_package", None),
                                getattr(action, "node_executable", None), event.returncode)
    return None


def _share(package):
    try:
        return Path(get_package_share_directory(package))
    except PackageNotFoundError:
        return None


def _include(include):
    source = PythonLaunchDescriptionSource(
        str(launch_plan.find_include(include, _share(include.package))))
    source.try_get_launch_description_without_context()  # a broken file fails here, not later
    action = IncludeLaunchDescription(source, launch_arguments=include.arguments.items())
    paths = [AppendEnvironmentVariable(name, value, prepend=True)
             for name, value in include.prepend]
    watched = []
    if include.launch_prefix:  # its processes end with this launch too (before a user's prefix)
        watched = [SetEnvironmentVariable(name, value)
                   for name, value in parent.launch_environment().items()]
        watched.append(SetLaunchConfiguration("launch-prefix", [
            shlex.quote(include.launch_prefix) + " ",
            LaunchConfiguration("launch-prefix", default="")]))
    return GroupAction([*paths, *watched, action], scoped=True, forwarding=True)


def _actions(context):
    mission = launch_plan.resolve_mission(
        LaunchConfiguration("mission").perform(context), [CONFIG / "missions"])
    use_sim_time = launch_plan.parse_bool(
        "use_sim_time", LaunchConfiguration("use_sim_time").perform(context))
    exit_when_done = launch_plan.parse_bool(
        "exit_when_done", LaunchConfiguration("exit_when_done").perform(context))
    plan = launch_plan.plan(mission, LaunchConfiguration("runner").perform(context),
                            use_sim_time, CONFIG,
                            LaunchConfiguration("output_dir").perform(context), exit_when_done,
                            Path(get_logging_directory()),
                            LaunchConfiguration("autonomy").perform(context),
                            LaunchConfiguration("force").perform(context),
                            LaunchConfiguration("drone_backend").perform(context))
    launch_plan.prepare(plan)
    actions = [_include(include) for include in plan.includes]
    if plan.includes:
        actions.append(RegisterEventHandler(OnProcessExit(on_exit=_on_any_exit)))
    for spec in plan.nodes:
        node = Node(package=spec.package, executable=spec.executable, name=spec.name,
                    parameters=[*spec.parameter_files, spec.parameters],
                    remappings=list(spec.remappings), output="screen",
                    additional_env=parent.launch_environment())
        actions += [node, RegisterEventHandler(OnProcessExit(target_action=node,
                                                             on_exit=partial(_on_exit, spec)))]
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
                              description="the run folder: the synthesis node's attempts and, "
                                          "with runner:=flexbe, the prefix onboard reads the "
                                          "behavior from (default: a new folder under the ROS "
                                          "log folder)"),
        DeclareLaunchArgument("exit_when_done", default_value="false",
                              choices=["true", "false"],
                              description="end the launch when the run ends, or when the "
                                          "synthesis hands nothing over: exit code 0 when the "
                                          "goal was reached, else 1 (the node's own exit code "
                                          "in the log says which ending)"),
        DeclareLaunchArgument("autonomy", default_value="",
                              choices=["", *launch_plan.AUTONOMY],
                              description="runner:=flexbe: FlexBE's autonomy of an operator's "
                                          "run, who answers FlexBE's outcome requests (empty: "
                                          "the supervisor runs it as the embedded executor "
                                          "would: full, off with forced outcomes)"),
        DeclareLaunchArgument("force", default_value="",
                              description="forced outcomes, as bdi-supervisor run --force: a "
                                          "file or entries like 'pick=failure pick=completed' "
                                          "(empty: the mission's runner.force)"),
        DeclareLaunchArgument("drone_backend", default_value="",
                              choices=["", "kinematic", "rotorpy", "crazyflie"],
                              description="quadcopter missions under runner:=flexbe: the drone "
                                          "node's backend (empty: the mission's)"),
        OpaqueFunction(function=_actions),
    ])
