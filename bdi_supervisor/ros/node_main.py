"""One ``main()`` shape for every executable: init, build the node, spin, shut down cleanly.

A node that cannot start (bad parameter, bad mission file) raises :class:`ParameterError` or
:class:`~bdi_supervisor.errors.InputError` from its constructor; the process prints one line
``error: <node>: <what>`` and exits 2, no traceback. A node ends the process by calling
:meth:`SuiteNode.finish` with an exit code (otherwise it spins until SIGINT/SIGTERM). Shutdown
order is executor → node → context (the other order leaves an executor thread running during
``rclpy.shutdown()``).

SIGINT and SIGTERM are a stop request (:data:`STOP`), not an exception: :func:`run` installs
handlers that record the signal, and the spin loop polls it (within 0.1 s), then shuts down in
order and returns 0. Python's default SIGINT handling raises ``KeyboardInterrupt`` wherever the
main thread happens to be; in the spin loop that is often inside rclpy's per-callback objects,
where it is lost ("Exception ignored in: Future.__del__", and the node spins on until killed) or
leaves half-built ones that print a traceback. Long work that must stop at once (synthesis, the
monitor's launch-time model check) runs inside :func:`interruptible`, where a signal raises
``KeyboardInterrupt``; if that one is lost too, the recorded request still ends the process as
soon as the work returns. A signal that arrives before :func:`run` (while Python imports rclpy,
the first few tenths of a second) gets Python's default handling.

A node that ``mission.launch.py`` started also ends when that launch is gone
(:mod:`bdi_supervisor.ros.parent`): before ROS is initialized if it already is, else on the
kernel's SIGTERM at the launch's exit (Linux) or at the spin loop's next turn, so that no node
outlives a launch that was killed or lost track of it.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

import rclpy
from rclpy.context import Context
from rclpy.exceptions import (
    InvalidParameterTypeException,
    InvalidParameterValueException,
    ParameterUninitializedException,
)
from rclpy.executors import (
    ExternalShutdownException,
    MultiThreadedExecutor,
    SingleThreadedExecutor,
)
from rclpy.logging import get_logger
from rclpy.node import Node

from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import InputError
from bdi_supervisor.ros.parent import LaunchParent, launch_parent

STARTUP_ERRORS = (InputError, InvalidParameterTypeException, InvalidParameterValueException,
                  ParameterUninitializedException)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: longest wait of the spin loop: the latency of a stop request
POLL_SECONDS = 0.1


class ParameterError(ValueError):
    """A node parameter that is missing or invalid: names the parameter, what was found and
    what is expected."""

    def __init__(self, name: str, found: object, expected: str) -> None:
        super().__init__(f"parameter '{name}': found {found!r}; expected {expected}")
        self.name = name


class StopRequest:
    """The process's SIGINT/SIGTERM handling while a node runs (see the module docstring)."""

    def __init__(self) -> None:
        #: the first stop signal received since :meth:`install`, else ``None``
        self.signal: int | None = None
        self._interruptible = 0
        self._previous: dict[int, object] = {}

    def install(self) -> bool:
        """Handle the stop signals (main thread only; elsewhere: ``False``, nothing changed)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self.signal = None
        for number in STOP_SIGNALS:
            self._previous.setdefault(number, signal.signal(number, self._on_signal))
        return True

    def restore(self) -> None:
        """Put back the handlers :meth:`install` replaced."""
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    @property
    def requested(self) -> bool:
        """A stop signal arrived while the handlers are installed (a signal recorded by an
        earlier in-process :func:`run` does not stop a node built later)."""
        return bool(self._previous) and self.signal is not None

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Run the block so that a stop signal interrupts it with ``KeyboardInterrupt``
        (also raised on entry if a stop was already requested)."""
        self._interruptible += 1
        try:
            if self.requested:
                raise KeyboardInterrupt
            yield
        finally:
            self._interruptible -= 1

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        if self.signal is None:
            self.signal = number
        if self._interruptible:
            raise KeyboardInterrupt


#: the one stop request of this process (signal handlers are per process)
STOP = StopRequest()
interruptible = STOP.interruptible


class SuiteNode(Node):
    """A node that may end its process with an exit code."""

    exit_code: int | None = None
    #: executor threads :func:`spin` gives the node (more than one: a multi-threaded executor,
    #: for callbacks that wait, in a reentrant callback group)
    threads: int = 1

    def finish(self, code: int) -> None:
        """Ask :func:`run` to stop spinning and exit with ``code``."""
        self.exit_code = code

    def on_stop(self) -> None:
        """Called when spinning ends, before the executor shuts down: end the work callbacks
        still wait for (the executor's shutdown waits for them)."""


def run(factory: Callable[[Context], SuiteNode], name: str,
        args: list[str] | None = None, threads: int = 1) -> int:
    """Run the node made by ``factory(context)`` until it finishes or is stopped.

    ``args=None``: the process's own command line; the stop handlers then stay installed
    through interpreter exit. With explicit ``args`` (in-process callers) the previous
    handlers are put back on return. ``threads`` > 1: callbacks run on that many threads (a
    node whose callbacks block, in a reentrant callback group).
    """
    STOP.install()
    try:
        return _run(factory, name, sys.argv if args is None else args, threads)
    finally:
        if args is not None:
            STOP.restore()


def _run(factory: Callable[[Context], SuiteNode], name: str, args: list[str],
         threads: int = 1) -> int:
    try:
        parent = launch_parent()
    except ValueError as error:
        print(f"error: {name}: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if parent is not None and parent.arm_and_check():
        get_logger(name).warning(f"{parent.describe()} is gone: not starting")
        return ExitCode.OK
    context = Context()
    rclpy.init(args=args, context=context)
    try:
        node = factory(context)
    except (ParameterError, *STARTUP_ERRORS) as error:
        print(f"error: {name}: {error}", file=sys.stderr)
        context.try_shutdown()
        return ExitCode.BAD_INPUT
    except (KeyboardInterrupt, ExternalShutdownException):
        why = signal.Signals(STOP.signal).name if STOP.requested else "shutdown"
        get_logger(name).info(f"stopped while starting up ({why})")
        context.try_shutdown()
        return ExitCode.OK
    return spin(node, context, threads, parent)


def spin(node: SuiteNode, context: Context, threads: int = 1,
         parent: LaunchParent | None = None) -> int:
    """Spin ``node`` alone until it finishes, a stop is requested, the context shuts down or
    ``parent`` (the launch that started it) is gone; clean up; return the exit code."""
    threads = max(threads, node.threads)
    executor = (SingleThreadedExecutor(context=context) if threads <= 1 else
                MultiThreadedExecutor(num_threads=threads, context=context))
    executor.add_node(node)
    try:
        while (context.ok() and node.exit_code is None and not STOP.requested
               and not (parent is not None and parent.gone())):
            executor.spin_once(timeout_sec=POLL_SECONDS)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass  # an interruptible callback was stopped, or the context was shut down
    finally:
        code = node.exit_code
        if parent is not None and parent.gone():
            node.get_logger().warning(f"{parent.describe()} is gone: stopping")
        elif STOP.requested:
            node.get_logger().info(f"stopping on {signal.Signals(STOP.signal).name}")
        node.on_stop()
        if threads > 1:
            # rclpy's MultiThreadedExecutor.shutdown destroys its guard condition without
            # waiting for the callbacks it handed to its threads; one that has not yet signalled
            # it then fails ("exception was never retrieved: cannot use Destroyable"): let them
            time.sleep(POLL_SECONDS)
        executor.shutdown()
        node.destroy_node()
        context.try_shutdown()
    return ExitCode.OK if code is None else code
