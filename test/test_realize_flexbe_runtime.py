"""Generated behaviors imported and run under the real flexbe_core (FlexBE 4.x) with rclpy.

Skipped where rclpy or flexbe_core is not importable (no stand-in exists anywhere in this
project). In a ROS 2 Jazzy workspace with FlexBE 4.x built and sourced, run
``python -m pytest test/test_realize_flexbe_runtime.py`` (see docs/realization.md).

The behaviors run the way ``flexbe_onboard`` runs them: rclpy's default context, one node added
to a ``SingleThreadedExecutor``, the behavior constructed with that node (its ``__init__`` calls
``initialize_flexbe_core(node)``), then ``set_up`` / ``prepare_for_execution`` / ``confirm`` and
``execute()`` (the state machine's own ``spin``) on a worker thread while the main thread spins
the executor, and ``shutdown_proxies()`` at the end.

Each behavior is generated twice: as is (its stock FlexBE states must import and ``create()``
must build the machine), and with every capability bound to ``ScriptedState`` (a real
EventState), so a scripted outcome sequence drives it; the states FlexBE visits must be the
supervisor machine's.
"""

from __future__ import annotations

import os
import random
import threading
import time

import pytest
from support import realize_cases as cases
from support.ros_stack import STACK_MISSING

try:
    import rclpy  # noqa: F401  (skip without it)
    from flexbe_core.core import PreemptableState
except ImportError as error:  # pragma: no cover - depends on the ROS installation
    pytest.skip(STACK_MISSING.format(what=f"FlexBE's flexbe_core or rclpy ({error})"),
                allow_module_level=True)

from flexbe_support.engine import import_behavior, onboard_node
from flexbe_support.scripted_state import ScriptedState
from support.ros_helpers import next_domain

from bdi_supervisor.realize.machine import build_machine, edges_from_provenance
from bdi_supervisor.realize.stage import realize

pytestmark = pytest.mark.ros

SCRIPTED = "flexbe_support.scripted_state.ScriptedState"


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
    """A node as onboard sets it up (:func:`flexbe_support.engine.onboard_node`)."""
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ["ROS_DOMAIN_ID"] = str(next_domain())
    with onboard_node("bdi_realize_test") as ros:
        yield ros


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_behavior_imports_and_creates(name, node, tmp_path):
    pytest.importorskip("flexbe_states", reason=STACK_MISSING.format(what="FlexBE's flexbe_states"))
    strategy, catalog, edges = CASES[name]
    result = realize(strategy, catalog, behavior=f"Import {name}", edges=edges,
                     out_dir=tmp_path / "behavior")
    behavior = import_behavior(result)(node[0])
    machine = behavior.create()
    assert list(machine) == result.machine.state_names
    assert machine.initial_state_label == result.machine.initial


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", sorted(CASES))
def test_behavior_runs_scripted_outcomes_like_the_machine(name, seed, node, tmp_path):
    strategy, catalog, edges = CASES[name]
    scripted = cases.bind_states(catalog, SCRIPTED)
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
    behavior = import_behavior(result)(node[0])
    ScriptedState.script = [outcome for _, outcome in expected]
    ScriptedState.trace = []
    PreemptableState.preempt = False
    behavior.set_up(beh_id=0, autonomy_level=255, debug=False)
    behavior.prepare_for_execution({})
    behavior.confirm()
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(behavior.execute()), daemon=True)
    worker.start()
    deadline = time.monotonic() + 2.0 * len(expected) + 10.0
    while worker.is_alive() and time.monotonic() < deadline:
        node[1].spin_once(timeout_sec=0.05)
    if worker.is_alive():
        behavior.preempt()
        worker.join(5.0)
    PreemptableState.preempt = False
    assert ScriptedState.trace == expected
    # an exhausted script preempts the behavior (machines without a container outcome never end)
    assert outcome == [final if final is not None else "preempted"]
