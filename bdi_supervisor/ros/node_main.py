"""One ``main()`` shape for every executable: init, build the node, spin, shut down cleanly.

A node that cannot start (bad parameter, bad mission file) raises :class:`ParameterError` or
:class:`~bdi_supervisor.errors.InputError` from its constructor; the process prints one line
``error: <node>: <what>`` and exits 2, no traceback. A node ends the process by calling
:meth:`SuiteNode.finish` with an exit code (otherwise it spins until SIGINT/SIGTERM). Shutdown
order is executor → node → context (the other order leaves an executor thread running during
``rclpy.shutdown()``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import rclpy
from rclpy.context import Context
from rclpy.exceptions import (
    InvalidParameterTypeException,
    InvalidParameterValueException,
    ParameterUninitializedException,
)
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node

from bdi_supervisor.errors import InputError

EXIT_OK, EXIT_NEGATIVE, EXIT_BAD_INPUT = 0, 1, 2

STARTUP_ERRORS = (InputError, InvalidParameterTypeException, InvalidParameterValueException,
                  ParameterUninitializedException)


class ParameterError(ValueError):
    """A node parameter that is missing or invalid: names the parameter, what was found and
    what is expected."""

    def __init__(self, name: str, found: object, expected: str) -> None:
        super().__init__(f"parameter '{name}': found {found!r}; expected {expected}")
        self.name = name


class SuiteNode(Node):
    """A node that may end its process with an exit code."""

    exit_code: int | None = None

    def finish(self, code: int) -> None:
        """Ask :func:`run` to stop spinning and exit with ``code``."""
        self.exit_code = code


def run(factory: Callable[[Context], SuiteNode], name: str,
        args: list[str] | None = None) -> int:
    """Run the node made by ``factory(context)`` until it finishes or is interrupted."""
    context = Context()
    rclpy.init(args=sys.argv if args is None else args, context=context)
    try:
        node = factory(context)
    except (ParameterError, *STARTUP_ERRORS) as error:
        print(f"error: {name}: {error}", file=sys.stderr)
        context.try_shutdown()
        return EXIT_BAD_INPUT
    except (KeyboardInterrupt, ExternalShutdownException):  # interrupted while starting up
        context.try_shutdown()
        return EXIT_OK
    return spin(node, context)


def spin(node: SuiteNode, context: Context) -> int:
    """Spin ``node`` alone until it finishes or the context shuts down; clean up; exit code."""
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        while context.ok() and node.exit_code is None:
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        code = node.exit_code
        _quietly(executor.shutdown)
        _quietly(node.destroy_node)
        context.try_shutdown()
    return EXIT_OK if code is None else code


def _quietly(step: Callable[[], object]) -> None:
    """Run one shutdown step; a second SIGINT during shutdown must not skip the rest."""
    try:
        step()
    except KeyboardInterrupt:
        step()
