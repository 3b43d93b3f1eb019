"""Running generated behaviors in the test process the way ``flexbe_onboard`` runs them.

Imported only where rclpy and flexbe_core are importable (the callers skip otherwise).
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import rclpy
from flexbe_core.core import PreemptableState
from flexbe_core.proxy import ProxyActionClient, ProxyServiceCaller, shutdown_proxies
from rclpy.executors import SingleThreadedExecutor


@contextmanager
def onboard_node(name: str):
    """(node, executor): a node in rclpy's default context on a SingleThreadedExecutor, as
    onboard sets it up (flexbe_core's spin loop polls ``rclpy.ok()`` of the default context;
    its proxies schedule clean-up on ``node.executor``); FlexBE's proxies shut down after."""
    initialized_here = not rclpy.ok()
    if initialized_here:
        rclpy.init()
    node = rclpy.create_node(name)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        yield node, executor
    finally:
        shutdown_proxies()
        # flexbe_core's shutdown leaves a None per service and action topic (onboard never calls
        # it between behaviors): the next behavior in this process must set its clients up anew
        ProxyServiceCaller._services.clear()
        ProxyActionClient._clients.clear()
        for _ in range(20):
            executor.spin_once(timeout_sec=0.001)
        executor.remove_node(node)
        executor.shutdown()
        node.destroy_node()
        if initialized_here:
            rclpy.try_shutdown()


def initialize_core(node) -> None:
    """flexbe_core's proxies and states on ``node``, as a behavior's constructor sets them up
    (``initialize_flexbe_core`` on FlexBE 3.x/4.x, ``set_node`` on 2.x): for a state built alone."""
    try:
        from flexbe_core import initialize_flexbe_core
    except ImportError:  # FlexBE 2.x
        from flexbe_core import set_node as initialize_flexbe_core
    initialize_flexbe_core(node)


def import_behavior(realization):
    """The behavior class of a realized package (imported from its folder)."""
    sys.path.insert(0, str(realization.path))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(realization.package.names.package_path)
    finally:
        sys.path.remove(str(realization.path))
    return getattr(module, realization.package.names.class_name)


@dataclass
class BehaviorRun:
    """What FlexBE did: the container outcome (``preempted`` after the time limit), the trace of
    (state, FlexBE outcome) it acted on, and the seconds from ``execute()`` to its return."""

    outcome: str | None
    trace: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0


def _record(state, trace: list) -> None:
    inner = state.execute  # the chain flexbe_core's state classes bind per instance

    def execute(*args, **kwargs):
        outcome = inner(*args, **kwargs)
        if outcome is not None and outcome != "preempted":  # a preemption is the run's outcome
            trace.append((state.name, outcome))
        return outcome

    state.execute = execute


def run_behavior(behavior, executor, limit: float, autonomy: int = 255) -> BehaviorRun:
    """Set up, prepare, confirm and execute ``behavior`` (constructed with the executor's node)
    at ``autonomy`` on a worker thread while this one spins the executor (flexbe_core's proxies
    complete their futures there); preempt it after ``limit`` seconds."""
    PreemptableState.preempt = False
    behavior.set_up(beh_id=0, autonomy_level=autonomy, debug=False)
    behavior.prepare_for_execution({})
    run = BehaviorRun(None)
    for state in behavior._state_machine._states:
        _record(state, run.trace)
    behavior.confirm()
    result: list = []
    start = time.monotonic()
    worker = threading.Thread(target=lambda: result.append(behavior.execute()), daemon=True)
    worker.start()
    while worker.is_alive() and time.monotonic() - start < limit:
        executor.spin_once(timeout_sec=0.02)
    if worker.is_alive():
        behavior.preempt()
        while worker.is_alive() and time.monotonic() - start < limit + 5.0:
            executor.spin_once(timeout_sec=0.02)
    run.seconds = time.monotonic() - start
    PreemptableState.preempt = False
    run.outcome = result[0] if result else None
    return run
