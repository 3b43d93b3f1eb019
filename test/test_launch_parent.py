"""The launch a node watches (``bdi_supervisor.ros.parent``), without ROS: the environment
variable's checks, when a launch counts as gone, and the ``launch-prefix`` wrapper that starts
the included launch files' processes (a process whose parent exits gets SIGTERM from the
kernel, on Linux)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.paths import ROOT

from bdi_supervisor.ros.parent import LAUNCH_PID, LaunchParent, launch_parent

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def test_the_launch_is_read_from_the_environment():
    assert launch_parent({}) is None and launch_parent({LAUNCH_PID: ""}) is None
    mine = launch_parent({LAUNCH_PID: str(os.getppid())})
    assert mine == LaunchParent(os.getppid(), direct=True) and not mine.gone()
    assert launch_parent({LAUNCH_PID: "1"}) is None  # a launch that is a container's init
    other = launch_parent({LAUNCH_PID: str(os.getpid())})  # alive, not the parent: a wrapper
    assert other == LaunchParent(os.getpid(), direct=False) and not other.gone()


@pytest.mark.parametrize("value", ["x", "-3", "0", "12 ", "1e3"])
def test_a_value_that_is_no_process_id_is_refused(value):
    with pytest.raises(ValueError, match=f"{LAUNCH_PID}=.*expected the process id"):
        launch_parent({LAUNCH_PID: value})


def test_a_launch_that_exited_is_gone():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: the process id names nothing now (reuse within this test: unlikely)
    assert LaunchParent(child.pid, direct=False).gone()
    assert LaunchParent(child.pid, direct=True).gone()  # this process's parent is another one


def run_prefix(args: list[str], pid: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bdi_supervisor.ros.parent", *args],
                          env={**ENV, LAUNCH_PID: pid}, capture_output=True, text=True,
                          timeout=60)


def test_the_prefix_becomes_the_command():
    done = run_prefix([sys.executable, "-c", "import os; print(os.getpid(), os.getppid())"],
                      str(os.getpid()))
    assert done.returncode == 0, done.stderr
    ppid = int(done.stdout.split()[1])
    assert ppid == os.getpid()  # the command is this test's child itself: nothing in between


@pytest.mark.parametrize(("args", "pid", "code", "says"), [
    ([], "5", 2, "usage"),
    (["true"], "abc", 2, "expected the process id"),
    (["no-such-command-here"], "", 127, "cannot run 'no-such-command-here'"),
])
def test_the_prefix_refuses_in_one_line(args, pid, code, says):
    done = run_prefix(args, pid)
    assert done.returncode == code
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and says in lines[0], done.stderr


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and is no zombie), read from /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death "
                    "signal and /proc are Linux's")
def test_a_command_under_the_prefix_ends_with_its_parent(tmp_path):
    """A parent process starts ``sleep 60`` through the prefix and is killed: the kernel stops
    the sleep (without the prefix it would run on, its parent init)."""
    pid_file = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c", f"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-m", "bdi_supervisor.ros.parent", "sleep", "60"],
                         env={{**os.environ, "{LAUNCH_PID}": str(os.getpid())}})
open({str(pid_file)!r}, "w").write(str(child.pid))
time.sleep(60)
"""], env=ENV)
    deadline = time.monotonic() + 30
    while not (pid_file.is_file() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    sleeper = int(pid_file.read_text())
    while running(sleeper) and b"sleep" not in Path(f"/proc/{sleeper}/cmdline").read_bytes():
        time.sleep(0.05)  # the prefix has not yet become the command
    assert running(sleeper)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while running(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(sleeper)
