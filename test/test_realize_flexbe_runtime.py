"""Generated behaviors imported and run under the real flexbe_core (FlexBE 4.x) with rclpy.

Skipped where rclpy or flexbe_core is not importable (no stand-in exists anywhere in this
project). In a ROS 2 Jazzy workspace with FlexBE 4.x built and sourced, run
``python -m pytest test/test_realize_flexbe_runtime.py`` (see docs/realization.md).

Each behavior is generated twice: as is (its stock FlexBE states must import and ``create()``
must build the machine), and with every capability bound to ``ScriptedState`` (a real
EventState), so a scripted outcome sequence drives it; the states FlexBE visits must be the
supervisor machine's.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import random
import sys

import pytest
import realize_cases as cases

try:
    import flexbe_core  # noqa: F401
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
except ImportError as error:  # pragma: no cover - depends on the ROS installation
    pytest.skip(f"real flexbe_core/rclpy not importable ({error}); run this module in a ROS 2 "
                "workspace with FlexBE 4.x sourced", allow_module_level=True)

from flexbe_support.scripted_state import ScriptedState

from bdi_supervisor.catalog.model import Parameter
from bdi_supervisor.realize.machine import build_machine, edges_from_provenance
from bdi_supervisor.realize.stage import realize

pytestmark = pytest.mark.ros

SCRIPTED = "flexbe_support.scripted_state/ScriptedState"


def _cases():
    reduced, members = cases.coffee_enumerated_reduced()
    return {
        "coffee": (cases.coffee_reduced_onehot(), cases.coffee_catalog(), None),
        "vending": (cases.vending_reduced_onehot(), cases.vending_catalog(), None),
        "coffee_enum": (reduced, cases.coffee_catalog(),
                        edges_from_provenance(cases.coffee_enumerated_raw(), reduced, members)),
    }


CASES = _cases()


@pytest.fixture
def node():
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ["ROS_DOMAIN_ID"] = str(100 + os.getpid() % 100)
    context = rclpy.Context()
    rclpy.init(context=context)
    ros_node = rclpy.create_node("bdi_realize_test", context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(ros_node)  # flexbe proxies schedule clean-up on node.executor
    try:
        yield ros_node, executor
    finally:
        executor.remove_node(ros_node)
        executor.shutdown()
        ros_node.destroy_node()
        rclpy.shutdown(context=context)


def _import(result, tmp_path):
    sys.path.insert(0, str(result.path))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(result.package.names.package_path)
    finally:
        sys.path.remove(str(result.path))
    return getattr(module, result.package.names.class_name)


def _scripted(catalog):
    caps = {name: dataclasses.replace(
        cap, interface=SCRIPTED, parameters=(Parameter("outcomes", list(cap.flexbe_outcomes)),))
        for name, cap in catalog.capabilities.items()}
    return dataclasses.replace(catalog, capabilities=caps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_behavior_imports_and_creates(name, node, tmp_path):
    pytest.importorskip("flexbe_states", reason="flexbe_states (stock FlexBE states) missing")
    strategy, catalog, edges = CASES[name]
    result = realize(strategy, catalog, behavior=f"Import {name}", edges=edges,
                     out_dir=tmp_path / "behavior")
    behavior = _import(result, tmp_path)(node[0])
    machine = behavior.create()
    assert list(machine) == result.machine.state_names
    assert machine.initial_state_label == result.machine.initial


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", sorted(CASES))
def test_behavior_runs_scripted_outcomes_like_the_machine(name, seed, node, tmp_path):
    strategy, catalog, edges = CASES[name]
    scripted = _scripted(catalog)
    machine = build_machine(strategy, scripted, edges=edges)
    rng = random.Random(seed)
    # the machine's own walk under random outcomes: the expected FlexBE trace
    expected, state, final = [], machine.initial, None
    for _ in range(12):
        outcome = rng.choice(sorted(machine.state(state).outcomes))
        expected.append((state, outcome))
        target = machine.state(state).flexbe_transitions()[outcome]
        if target in machine.outcomes:
            final = target
            break
        state = target
    result = realize(strategy, scripted, behavior=f"Run {name} {seed}", edges=edges,
                     out_dir=tmp_path / "behavior")
    behavior = _import(result, tmp_path)(node[0])
    ScriptedState.script = [outcome for _, outcome in expected]
    ScriptedState.trace = []
    behavior.set_up(beh_id=0, autonomy_level=255, debug=False)
    behavior.prepare_for_execution({})
    behavior.confirm()
    sm = behavior._state_machine
    outcome = None
    for _ in range(10 * len(expected) + 10):
        outcome = sm.execute(None)
        node[1].spin_once(timeout_sec=0)
        if outcome is not None or not ScriptedState.script:
            break
    assert ScriptedState.trace == expected
    assert outcome == final
    sm.destroy()
