"""Helpers for the real-rclpy tests: a fresh ``ROS_DOMAIN_ID`` per test, start/stop/spin (none
of them imports rclpy)."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

from support.paths import ROOT

# Fast DDS maps domain d to ports 7400 + 250·d (+ offsets): domains up to 232 fit in 16 bits.
FIRST_DOMAIN, DOMAIN_COUNT = 100, 120
_DOMAINS = itertools.count()
#: domains that something living across tests holds (:func:`held_domain`)
_HELD: set[int] = set()


def domain_block() -> tuple[int, int]:
    """(first domain, number of domains) of this test process: the pytest-xdist workers of one
    run (``PYTEST_XDIST_WORKER`` ``gwN`` of ``PYTEST_XDIST_WORKER_COUNT``) get disjoint blocks;
    a run without workers gets all of them."""
    first_domain, domain_count = domain_range()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    size = max(1, domain_count // workers)
    return first_domain + (index * size) % domain_count, size


def domain_range() -> tuple[int, int]:
    """(first domain, number of domains) the tests may use: :data:`FIRST_DOMAIN` and
    :data:`DOMAIN_COUNT`, or ``BDI_TEST_DOMAINS=FIRST:COUNT`` (test runs started side by side on
    one machine, each given its own range, never meet)."""
    value = os.environ.get("BDI_TEST_DOMAINS", "")
    if not value:
        return FIRST_DOMAIN, DOMAIN_COUNT
    first, _, count = value.partition(":")
    first_domain, domain_count = int(first), int(count)
    if not (first_domain >= 0 and domain_count >= 1 and first_domain + domain_count <= 233):
        raise ValueError(f"BDI_TEST_DOMAINS={value!r}: expected FIRST:COUNT within 0..232")
    return first_domain, domain_count


def next_domain() -> int:
    """A fresh ``ROS_DOMAIN_ID`` for one test, from this process's :func:`domain_block`, starting
    at an offset drawn from the run (xdist's run id, else the pid) so that two test runs started
    at the same time on one machine rarely meet; never a domain that :func:`held_domain` holds
    (the block is reused in turn, and a module's server must not answer a later test)."""
    first, size = domain_block()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or str(os.getpid())
    for _ in range(size):
        domain = first + (zlib.crc32(run.encode()) + next(_DOMAINS)) % size
        if domain not in _HELD:
            return domain
    raise RuntimeError(f"every ROS domain of this test process ({first}..{first + size - 1}) "
                       "is held; give the tests more (BDI_TEST_DOMAINS=FIRST:COUNT)")


@contextlib.contextmanager
def held_domain() -> Iterator[int]:
    """A domain for what lives across tests (a module-scoped server or drone): until the block
    ends, :func:`next_domain` gives it to no other test."""
    domain = next_domain()
    _HELD.add(domain)
    try:
        yield domain
    finally:
        _HELD.discard(domain)


def spin_until(executor, predicate, timeout: float = 10.0) -> bool:
    """Spin ``executor`` until ``predicate()`` holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        executor.spin_once(timeout_sec=0.05)
    return predicate()


def latest_status(arrays, name: str):
    """The newest status called ``name`` in the received ``DiagnosticArray`` messages ``arrays``
    (a :class:`bdi_supervisor.ros.status.Status`), or None before the first one."""
    from bdi_supervisor.ros import diagnostics

    for array in reversed(arrays):
        for status in array.status:
            if status.name == name:
                return diagnostics.from_message(status)
    return None


def start_node(module: str, ros_args: list[str], env: dict[str, str]) -> subprocess.Popen:
    """Start ``python -m module --ros-args ...`` from this tree with the test's DDS environment."""
    env = {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
           "PYTHONUNBUFFERED": "1"}
    assert env["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "LOCALHOST" and env["ROS_DOMAIN_ID"]
    return subprocess.Popen([sys.executable, "-m", module, "--ros-args", *ros_args], env=env,
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop(process: subprocess.Popen, number: int = signal.SIGINT,
         timeout: float = 30.0) -> tuple[int, str]:
    """Send SIGINT (as launch does) or ``number``, wait; return the exit code and the output.

    ``timeout`` only guards against a hung process (killed, and said so in the output): nodes
    stop within about a second (``bdi_supervisor.ros.node_main``)."""
    if process.poll() is None:
        process.send_signal(number)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        output += f"\n[test] killed: still running {timeout:.0f} s after the signal\n"
    return process.returncode, output


#: ``ros2 launch <file> name:=value ...`` as ros2launch runs it (``launch_a_launch_file``): the
#: real ``launch.LaunchService`` including the file; exits with the service's return code
LAUNCH_RUNNER = """
import sys
import launch
from launch.launch_description_sources import AnyLaunchDescriptionSource
path, args = sys.argv[1], sys.argv[2:]
service = launch.LaunchService(argv=args, noninteractive=True)
service.include_launch_description(launch.LaunchDescription([
    launch.actions.IncludeLaunchDescription(
        AnyLaunchDescriptionSource(path),
        launch_arguments=[tuple(a.split(':=', 1)) for a in args])]))
sys.exit(service.run())
"""


def ament_prefix(folder: Path, package: str, scripts: dict[str, str]) -> Path:
    """An ament prefix where ``launch_ros`` finds ``package``'s executables: the resource
    marker and ``lib/<package>/<name>`` scripts running ``module.main()`` (what the console
    scripts of an install do; the modules come from ``PYTHONPATH``, i.e. this tree)."""
    marker = folder / "share" / "ament_index" / "resource_index" / "packages" / package
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    (folder / "share" / package).mkdir(exist_ok=True)
    lib = folder / "lib" / package
    lib.mkdir(parents=True, exist_ok=True)
    for name, module in scripts.items():
        script = lib / name
        script.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import main\n"
                          "sys.exit(main())\n")
        script.chmod(0o755)
    return folder


def start_launch(launch_file: Path, args: list[str], env: dict[str, str]) -> subprocess.Popen:
    """Run ``launch_file`` with the real launch service in a child process (own process group,
    so a stop reaches the launch and not this test)."""
    assert env["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "LOCALHOST" and env["ROS_DOMAIN_ID"]
    env = {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
           "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-c", LAUNCH_RUNNER, str(launch_file), *args],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


class TimedOutput:
    """A child process's output read line by line as it comes (a thread), each line with the
    ``time.monotonic()`` it was read at: for how long after a log line a process ended."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.lines: list[tuple[float, str]] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            with self._changed:
                self.lines.append((time.monotonic(), line))
                self._changed.notify_all()

    def wait_for(self, text: str, timeout: float) -> float | None:
        """The read time of the first line containing ``text`` (waiting up to ``timeout`` s),
        or None."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for when, line in self.lines:
                    if text in line:
                        return when
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                    return None
                self._changed.wait(min(left, 0.1))

    def wait_exit(self, timeout: float) -> tuple[int | None, float]:
        """Wait up to ``timeout`` s: (exit code or None, the monotonic time it was seen)."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, time.monotonic()
        return code, time.monotonic()

    def stop(self, number: int = signal.SIGINT, timeout: float = 30.0) -> tuple[int, str]:
        """As :func:`stop` (the signal to the process group of a launch started with its own
        session): the exit code and the whole output."""
        self._signal(number)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.process.wait()
        self._reader.join(timeout=10)
        self._end_group()
        return self.process.returncode, self.text()

    def _end_group(self) -> None:
        """Kill what is left of the group of a launch that has ended (a node the launch service
        did not wait for), so that no test leaves a process behind. A process started without
        its own session leads no group: there is no such group, and nothing is signalled."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def _signal(self, number: int) -> None:
        """Signal the process, or its whole group where it leads one (a launch)."""
        with contextlib.suppress(ProcessLookupError):
            if self.process.poll() is not None:
                return
            if os.getpgid(self.process.pid) == self.process.pid:
                os.killpg(self.process.pid, number)
            else:
                self.process.send_signal(number)

    def text(self) -> str:
        with self._changed:
            return "".join(line for _, line in self.lines)


def node_modules() -> dict[str, str]:
    """Every ROS executable (the nodes, world nodes included) → the module whose ``main()`` it
    runs, for :func:`ament_prefix`: :data:`bdi_supervisor.ros.executables.NODES`, which
    setup.py's console scripts of a ROS install name."""
    from bdi_supervisor.ros.executables import NODES

    return dict(NODES)
