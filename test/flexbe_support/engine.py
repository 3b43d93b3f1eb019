"""Running generated behaviors in the test process the way ``flexbe_onboard`` runs them.

Imported only where rclpy and flexbe_core are importable (the callers skip otherwise).
"""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager

import rclpy
from flexbe_core.proxy import shutdown_proxies
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
        for _ in range(20):
            executor.spin_once(timeout_sec=0.001)
        executor.remove_node(node)
        executor.shutdown()
        node.destroy_node()
        if initialized_here:
            rclpy.try_shutdown()


def import_behavior(realization):
    """The behavior class of a realized package (imported from its folder)."""
    sys.path.insert(0, str(realization.path))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(realization.package.names.package_path)
    finally:
        sys.path.remove(str(realization.path))
    return getattr(module, realization.package.names.class_name)
