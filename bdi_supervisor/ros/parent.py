"""The launch that started a node: a node started by ``mission.launch.py`` ends when it is gone.

``ros2 launch`` stops its nodes with SIGINT (SIGTERM, SIGKILL after 5 s more each) while it
shuts down, but only the processes it still waits for: a launch that is killed, or whose event
loop loses a process it had started (an exception raised while the launch visits its actions
forgets every process started in that visit), exits while its nodes run on, reparented to init.
So ``mission.launch.py`` gives each node of this package the launch's process id in
:data:`LAUNCH_PID`, and a node watches that process (:class:`LaunchParent`):

- at start-up, before ROS is initialized: a launch that is already gone (the node's parent is
  another process, and the launch's process no longer exists) ends the node at once;
- on Linux the kernel sends the node SIGTERM when its parent exits (``prctl`` parent-death
  signal), which the node handles as any stop request;
- the node's spin loop also checks the parent on every turn (other systems, a node run under a
  wrapper process).

The processes of the launch files ``mission.launch.py`` includes (FlexBE onboard's) are not this
package's nodes: the launch starts them through a wrapper (:func:`write_wrapper`, their
``launch-prefix``; ``python -m bdi_supervisor.ros.parent COMMAND`` does the same) that asks for
the same signal and then becomes ``COMMAND`` (the process keeps its id and its parent).

No rclpy here: :mod:`bdi_supervisor.ros.node_main` uses it, the launch file sets the variable.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import InputError

#: environment variable: the process id of the launch that started the node
LAUNCH_PID = "BDI_LAUNCH_PID"
#: ``prctl`` option: the signal the kernel sends a process when its parent exits (Linux)
PR_SET_PDEATHSIG = 1


def launch_environment(pid: int | None = None) -> dict[str, str]:
    """The environment the launch adds to each node it starts (``pid``: the launch's own)."""
    return {LAUNCH_PID: str(os.getpid() if pid is None else pid)}


@dataclass(frozen=True)
class LaunchParent:
    """The launch process ``pid``; ``direct``: it is the node's parent (no process between)."""

    pid: int
    direct: bool

    def gone(self) -> bool:
        """Whether the launch has ended: a direct child is reparented the moment its parent
        exits; otherwise the process no longer exists (a zombie still counts as there)."""
        if self.direct:
            return os.getppid() != self.pid
        return not _exists(self.pid)

    def arm(self) -> bool:
        """Ask the kernel for SIGTERM when the parent exits (Linux, direct parent only; the
        C library is the process's own). ``False``: not armed. A parent that exited before
        this call sends nothing: check :meth:`gone` after it."""
        if not self.direct or not sys.platform.startswith("linux"):
            return False
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return False
        return prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0

    def arm_and_check(self) -> bool:
        """Arm (:meth:`arm`), then whether the launch is already gone: checked after arming,
        an exit is either signalled or seen here, never missed."""
        self.arm()
        return self.gone()

    def describe(self) -> str:
        return f"the launch (pid {self.pid}) that started this node"


def launch_parent(environ: Mapping[str, str] | None = None) -> LaunchParent | None:
    """The launch that started this process according to ``environ`` (default: the process's),
    or None where no launch of this package started it. Raises ValueError on a value that is
    not a process id."""
    value = (os.environ if environ is None else environ).get(LAUNCH_PID, "")
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"environment variable {LAUNCH_PID}={value!r}: expected the process id "
                         "of the launch that started the node")
    pid = int(value)
    if pid == 1:  # a launch that is the init process (of a container) ends with everything
        return None
    return LaunchParent(pid, direct=os.getppid() == pid)


def write_wrapper(path: Path) -> Path:
    """Write ``path``: an executable that runs :func:`main` with this Python (a
    ``launch-prefix``; the launch labels a process by the prefix's file name). Raises
    :class:`~bdi_supervisor.errors.InputError` where it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!{sys.executable}\nimport sys\n\nfrom {__name__} import main\n\n"
                        "sys.exit(main())\n")
        path.chmod(0o755)
    except OSError as error:
        raise InputError(f"cannot write the launch's process wrapper: "
                         f"{error.strerror or error}", file=str(error.filename or path)) from None
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m bdi_supervisor.ros.parent COMMAND [ARG...]``: where :data:`LAUNCH_PID` names
    this process's parent, ask for SIGTERM when it exits (exit 0 at once if it already has);
    then replace this process with ``COMMAND``. Returns only on an error (one ``error:`` line,
    exit 2 for a bad value or no command, 127 for a command that cannot run)."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(f"error: usage: python -m {__name__} COMMAND [ARG...]", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        parent = launch_parent()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if parent is not None and parent.arm_and_check():
        return ExitCode.OK
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"error: cannot run {argv[0]!r}: {error.strerror or error}", file=sys.stderr)
    return 127


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__":
    sys.exit(main())
