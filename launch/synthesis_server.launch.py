"""``ros2 launch bdi_supervisor synthesis_server.launch.py synthesis_home:=DIR``

Starts the synthesis server (node ``flexbe_synthesis``, :mod:`bdi_supervisor.ros.synthesis_server`)
in place of the reference pipeline's ``flexbe_synthesis_server``: it serves the
``flexbe_synthesis`` action (``flexbe_synthesis_msgs/action/FlexBESynthesis``) that the
reference's clients and the FlexBE WebUI call, and FlexBE's own ``BehaviorSynthesis``.

Arguments: ``synthesis_home`` (systems as ``<home>/<system_name>/``, the reference's layout;
empty: ``$FLEXBE_SYNTHESIS_HOME``, else ``~/.flexbe_synthesis``), ``output_dir`` (run folders;
empty: under the ROS log folder), ``save_outputs``, ``synthesis_timeout_s`` (the default time
budget, s), ``queue_size`` (goals that may wait), ``outcome_states`` (``:OUTCOME``
pseudo-states), ``behavior_synthesis_action`` (empty: FlexBE's action not served). A node that
cannot start (a missing ``synthesis_home``, an unwritable ``output_dir``) exits 2 and ends the
launch.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, RegisterEventHandler, Shutdown
from launch.event_handlers import OnProcessExit
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

#: argument → (default, type of the node parameter, description)
ARGUMENTS = {
    "synthesis_home": ("", str, "folder of the systems (<home>/<system_name>/)"),
    "output_dir": ("", str, "where each goal's run folder goes (empty: the ROS log folder)"),
    "save_outputs": ("true", bool, "write each goal's run folder"),
    "synthesis_timeout_s": ("900.0", float, "time budget of a request that sets none (s)"),
    "queue_size": ("4", int, "goals that may wait while one runs"),
    "outcome_states": ("true", bool, "append the ':OUTCOME' pseudo-states"),
    "behavior_synthesis_action": ("behavior_synthesis", str,
                                  "name of FlexBE's BehaviorSynthesis action (empty: none)"),
}


def generate_launch_description():
    parameters = {name: ParameterValue(LaunchConfiguration(name), value_type=kind)
                  for name, (_, kind, _) in ARGUMENTS.items()}
    server = Node(package="bdi_supervisor", executable="synthesis_server",
                  name="flexbe_synthesis", parameters=[parameters], output="screen")
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=default, description=text)
          for name, (default, _, text) in ARGUMENTS.items()),
        server,
        RegisterEventHandler(OnProcessExit(target_action=server, on_exit=[
            Shutdown(reason="the synthesis server ended")])),
    ])
