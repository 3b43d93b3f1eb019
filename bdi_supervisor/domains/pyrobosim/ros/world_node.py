"""``pyrobosim_world``: a mission's PyRoboSim world served over ROS, headless.

Parameters: ``mission`` (a mission file or a shipped mission's name; its ``runner`` section must
run PyRoboSim), ``seed`` (-1: the mission's ``runner.seed``), ``realtime_factor`` (the speed every
action runs at; negative: as fast as possible, as the embedded runner; 0: as each goal asks) and
``action_log`` (optional JSON Lines file, one record per action served).

The world is the one the embedded runner opens for the same mission and seed, with the mission's
seeded failures (``runner.inject``) made physical in PyRoboSim
(:mod:`bdi_supervisor.domains.pyrobosim.served`); pyrobosim_ros's ``WorldROSWrapper`` serves it
(``/execute_action``, ``/execute_task_plan``, the world state services, the robot's topics), so
the FlexBE states of the catalog (``bdi_flexbe_states.pyrobosim``, ``pyrobosim_flexbe_states``)
act on it. Each action served is logged as one line. A mission that runs no PyRoboSim world or
a bad parameter ends the node at start-up: one ``error:`` line, exit 2. SIGINT/SIGTERM: exit 0.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.signals import SignalHandlerOptions

from bdi_supervisor.common import ExitCode
from bdi_supervisor.ros import params
from bdi_supervisor.ros.node_main import POLL_SECONDS, STARTUP_ERRORS, STOP, ParameterError

NAME = "pyrobosim_world"
#: executor threads: action goals block their thread while the robot moves; state services,
#: the robot state publisher and cancel requests go on beside them
THREADS = 4


def main(args: list[str] | None = None) -> int:
    """Run the world node until SIGINT/SIGTERM; the exit code."""
    STOP.install()
    # the default context, where WorldROSWrapper creates its node; without rclpy's signal
    # handlers, which would shut it down under a spinning executor (STOP ends the loop instead)
    rclpy.init(args=sys.argv if args is None else args,
               signal_handler_options=SignalHandlerOptions.NO)
    try:
        return _serve()
    finally:
        rclpy.try_shutdown()


def _serve() -> int:
    from pyrobosim_ros.ros_interface import WorldROSWrapper

    node = WorldROSWrapper(name=NAME, num_threads=THREADS)
    stack = ExitStack()
    try:
        served = _open(node, stack)
    except (ParameterError, *STARTUP_ERRORS) as error:
        print(f"error: {NAME}: {error}", file=sys.stderr)
        stack.close()
        node.destroy_node()
        return ExitCode.BAD_INPUT
    with stack:
        node.set_world(served.sim.world)
        node.start(wait_for_gui=False, auto_spin=False)
        executor = MultiThreadedExecutor(num_threads=THREADS)
        executor.add_node(node)
        try:
            while rclpy.ok() and not STOP.requested:
                executor.spin_once(timeout_sec=POLL_SECONDS)
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
        finally:
            executor.shutdown()
            node.destroy_node()
    return ExitCode.OK


def _open(node, stack: ExitStack):
    """Read the parameters, open the mission's world (closed by ``stack``), attach the log."""
    from bdi_supervisor.domains.pyrobosim.served import serve_world
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.runtime.session import runner_config

    mission = params.mission_file("mission", params.declare(
        node, "mission", "", "mission file or shipped mission name (runner.sim: pyrobosim)"))
    seed = params.declare(node, "seed", -1, "world and injection seed (-1: the mission's)")
    factor = params.declare(node, "realtime_factor", -1.0,
                            "action speed (<0: as fast as possible; 0: as each goal asks)")
    log_path = params.declare(node, "action_log", "", "JSON Lines file of the served actions")
    config = runner_config(load_mission(mission))
    served = stack.enter_context(serve_world(config, None if seed < 0 else seed, factor))
    logger = node.get_logger()
    served.listeners.append(lambda entry: logger.info(entry.describe()))
    if log_path:
        stream = stack.enter_context(_log_file(log_path))
        served.listeners.append(lambda entry: _write(stream, entry.record()))
    injected = ", ".join(sorted(config.inject)) or "none"
    logger.info(f"serving the world of {mission.stem} (seed {served.sim.seed}, "
                f"realtime factor {factor:g}, injected failures: {injected})")
    return served


def _log_file(value: str):
    path = Path(value).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open("w", encoding="utf-8")
    except OSError as error:
        raise ParameterError("action_log", value, f"a file that can be written ({error.strerror})"
                             ) from None


def _write(stream, record: dict) -> None:
    stream.write(json.dumps(record) + "\n")
    stream.flush()


if __name__ == "__main__":
    sys.exit(main())
