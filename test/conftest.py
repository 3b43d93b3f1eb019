"""Shared fixtures; importing :mod:`bdi_supervisor.domains` registers the simulators the tests
run supervisors against, as the CLI and the supervisor node do.

ROS 2: every test that starts DDS (in this process or in a child) gets its own ``ROS_DOMAIN_ID``
and ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``, set here and never taken from the caller, so no
discovery traffic leaves the machine and parallel tests do not see each other.
"""

from __future__ import annotations

import itertools
import os

import pytest

import bdi_supervisor.domains  # noqa: F401  (the tests run supervisors: register the simulators)

_DOMAINS = itertools.count()
# Fast DDS maps domain d to ports 7400 + 250·d (+ offsets): domains up to 232 fit in 16 bits.
_FIRST_DOMAIN, _DOMAIN_COUNT = 100, 120


def _next_domain() -> int:
    return _FIRST_DOMAIN + (os.getpid() * 7 + next(_DOMAINS)) % _DOMAIN_COUNT


@pytest.fixture
def ros_env(monkeypatch) -> dict[str, str]:
    """Pin DDS to loopback with a fresh domain id; return the environment for child processes."""
    monkeypatch.setenv("ROS_DOMAIN_ID", str(_next_domain()))
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    monkeypatch.delenv("ROS_STATIC_PEERS", raising=False)
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)
    return dict(os.environ)


@pytest.fixture
def rclpy_context(ros_env):
    """A real rclpy context on the test's own domain (skips where rclpy is not installed)."""
    rclpy = pytest.importorskip(
        "rclpy", reason="real rclpy not installed (pip install -e '.[ros]': ros-jazzy-* wheels)")
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=int(ros_env["ROS_DOMAIN_ID"]))
    try:
        yield context
    finally:
        context.try_shutdown()
