"""Helpers for the real-rclpy tests (imported only by tests that already skipped without rclpy)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def spin_until(executor, predicate, timeout: float = 10.0) -> bool:
    """Spin ``executor`` until ``predicate()`` holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        executor.spin_once(timeout_sec=0.05)
    return predicate()


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
