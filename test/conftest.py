"""Shared fixtures; importing :mod:`bdi_supervisor.domains` registers the simulators the tests
run supervisors against, as the CLI and the supervisor node do.

ROS 2: every test that starts DDS (in this process or in a child) gets its own ``ROS_DOMAIN_ID``
and ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``, set here and never taken from the caller, so no
discovery traffic leaves the machine and parallel tests do not see each other (pytest-xdist
workers draw from disjoint blocks of domains: :func:`ros_helpers.next_domain`).
"""

from __future__ import annotations

import os

import pytest
from support import reference_data
from support.ros_helpers import next_domain

import bdi_supervisor.domains  # noqa: F401  (the tests run supervisors: register the simulators)


def pytest_configure(config) -> None:
    # a test process (each xdist worker) starts on a domain of its own block, so a child that
    # starts DDS without the ros_env fixture still stays off the other workers' domains
    os.environ["ROS_DOMAIN_ID"] = str(next_domain())
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    if reference_data.REQUIRED and not reference_data.PRESENT:  # CI: one line, no test runs
        raise pytest.UsageError(f"{reference_data.REQUIRED_VAR} is set but "
                                f"{reference_data.MISSING}")


#: where the skips for want of the reference inputs are kept apart from the other skips
NO_REFERENCE = "skipped: no reference inputs"


@pytest.hookimpl(hookwrapper=True)
def pytest_terminal_summary(terminalreporter) -> None:
    """The skips for want of the reference inputs as one line (what they are and where they
    go) instead of one line per test; counted apart in the final line."""
    skipped = terminalreporter.stats.get("skipped", [])
    absent = [r for r in skipped if reference_data.MISSING in str(r.longrepr)]
    if absent:
        terminalreporter.stats["skipped"] = [r for r in skipped if r not in absent]
        terminalreporter.stats[NO_REFERENCE] = absent
        terminalreporter.write_line(reference_data.summary(len(absent)), yellow=True)
    yield


@pytest.fixture
def ros_env(monkeypatch) -> dict[str, str]:
    """Pin DDS to loopback with a fresh domain id; return the environment for child processes."""
    monkeypatch.setenv("ROS_DOMAIN_ID", str(next_domain()))
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
