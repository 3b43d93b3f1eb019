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
from support import reference_data, ros_stack
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


#: the skips summed up in one line each instead of one line per test: the key they are kept
#: apart under (counted apart in the final line), which ones, the line
GROUPED_SKIPS = (
    ("skipped: no reference inputs", lambda reason: reference_data.MISSING in reason,
     reference_data.summary),
    ("skipped: no ROS 2", ros_stack.is_ros_skip, ros_stack.summary),
)


@pytest.hookimpl(hookwrapper=True)
def pytest_terminal_summary(terminalreporter) -> None:
    """The skips for want of the reference inputs, and those for want of ROS 2, as one line
    each (what is missing and where it comes from) instead of one line per test (``-v``: one
    per test, each with its reason)."""
    for key, wanted, summary in GROUPED_SKIPS if terminalreporter.verbosity <= 0 else ():
        skipped = terminalreporter.stats.get("skipped", [])
        group = [r for r in skipped if wanted(str(r.longrepr))]
        if group:
            terminalreporter.stats["skipped"] = [r for r in skipped if r not in group]
            terminalreporter.stats[key] = group
            terminalreporter.write_line(summary(len(group)), yellow=True)
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
