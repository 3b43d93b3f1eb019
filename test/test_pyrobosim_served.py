"""The world the ROS world node serves (:mod:`bdi_supervisor.domains.pyrobosim.served`) against
the embedded runner's adapters: the same actions, the same mission failures and seed give the
same statuses, the same injected failures and the same world (no ROS needed)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import WORLDS

pytest.importorskip("pyrobosim")

from pyrobosim.planning.actions import TaskAction

from bdi_supervisor.domains.pyrobosim.adapters import KINDS, FailureInjector
from bdi_supervisor.domains.pyrobosim.served import serve_world
from bdi_supervisor.domains.pyrobosim.world import open_world
from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapters import Activation, invoke
from bdi_supervisor.runtime.binding import RunnerConfig

pytestmark = pytest.mark.simulation

WORLD = WORLDS / "logistics.yaml"
CLOSED = {"open": {"fridge": False, "pantry": False}}
PLACES = ("bread0", "soda0", "waste0", "table", "dumpster", "fridge", "pantry")
OBJECTS = ("bread0", "soda0", "waste0", "butter0")

actions = st.lists(st.one_of(
    st.tuples(st.just("navigate"), st.sampled_from(PLACES)),
    st.tuples(st.just("pick"), st.sampled_from(OBJECTS)),
    st.tuples(st.sampled_from(("place", "open", "close")), st.just(""))), min_size=1, max_size=7)
injections = st.fixed_dictionaries({}, optional={
    "navigate": st.fixed_dictionaries({"probability": st.sampled_from((0.0, 0.3, 0.6))},
                                      optional={"calls": st.lists(st.integers(1, 4), max_size=2)}),
    "pick": st.fixed_dictionaries({"probability": st.sampled_from((0.0, 0.5))}),
    "open": st.fixed_dictionaries({"calls": st.lists(st.integers(1, 3), max_size=2),
                                   "method": st.sampled_from(("options", "lock"))}),
})


def _parameters(kind: str, target: str) -> dict:
    if kind == "navigate":
        return {"target_location": target}
    return {"object": target} if kind == "pick" else {}


def embedded(sequence, inject, seed):
    """(action, status, injected) per call through the embedded runner's adapters."""
    with open_world(WORLD, seed=seed, overrides=CLOSED) as sim:
        injector = FailureInjector.from_config(inject, seed)
        out = []
        for kind, target in sequence:
            adapter = KINDS[kind](sim, injector=injector)
            result = invoke(adapter, Activation(kind, _parameters(kind, target)),
                            ("completed", "failure"))
            out.append((kind, result.detail["status"], result.forced))
        return out, sim.snapshot()


def served(sequence, inject, seed):
    """The same through the world node's :class:`ServedWorld` (``Robot.execute_action``)."""
    config = RunnerConfig(sim="pyrobosim", world=WORLD, world_overrides=CLOSED, inject=inject)
    with serve_world(config, seed) as world:
        out = []
        for kind, target in sequence:
            action = TaskAction(kind, robot="robot",
                                target_location=target if kind == "navigate" else None,
                                object=target if kind == "pick" else None)
            result = world.sim.robot.execute_action(action)  # as WorldROSWrapper calls it
            out.append((kind, result.status.name, world.served[-1].injected is not None))
        assert [a.number for a in world.served] == list(range(1, len(sequence) + 1))
        return out, world.sim.snapshot()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sequence=actions, inject=injections, seed=st.integers(0, 5))
def test_served_actions_are_the_embedded_runners(sequence, inject, seed):
    assert served(sequence, inject, seed) == embedded(sequence, inject, seed)


def test_a_served_action_is_recorded_and_logged():
    config = RunnerConfig(sim="pyrobosim", world=WORLD, inject={"navigate": {"calls": [1]}})
    heard = []
    with serve_world(config, 3) as world:
        world.listeners.append(heard.append)
        robot = world.sim.robot
        failed = robot.execute_action(TaskAction("navigate", target_location="bread0"))
        moved = robot.execute_action(TaskAction("navigate", target_location="bread0"))
        assert (failed.status.name, moved.status.name) == ("EXECUTION_FAILURE", "SUCCESS")
        assert world.sim.snapshot()["robot_at"] != "dining"
    assert heard == world.served
    first = heard[0].record()
    assert (first["number"], first["action"], first["target"], first["injected"]) == \
        (1, "navigate", "bread0", "options")
    assert heard[0].describe().startswith("#1 navigate bread0: EXECUTION_FAILURE [injected: ")


@pytest.mark.parametrize("config", [RunnerConfig(sim="forced"), RunnerConfig(sim="pyrobosim")])
def test_a_mission_without_a_pyrobosim_world_is_refused(config):
    with pytest.raises(InputError, match="runs no PyRoboSim world"), serve_world(config):
        pass
