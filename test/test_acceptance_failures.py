"""Every case study's acceptance run recovers from seeded failures, and the trial rows count
them (``execute.run_failures``, ``execute.run_recoveries``); the mission's ``acceptance``
section and how a run's recoveries are counted."""

from __future__ import annotations

import dataclasses

import pytest
from support.expected_verdicts import overrides, unhurried
from support.paths import MISSIONS

from bdi_supervisor import pipeline
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.runtime.acceptance import acceptance_mission, recovered
from bdi_supervisor.runtime.adapters import Outcome
from bdi_supervisor.runtime.executor import RunResult, Step
from bdi_supervisor.sweep.trial import run_trial

#: the paper's case studies (and the reference modellings): those whose capabilities can fail
FAILING = ("two_rivers", "two_rivers_reference", "logistics_p0", "logistics_p0_reference",
           "logistics_p1", "logistics_p1_reference", "quadcopter_crazyflie")


def _acceptance(name: str, encoding: str = "enumerated", config: str = "S") -> dict:
    mission = unhurried(load_mission(MISSIONS / f"{name}.yaml"))
    run = pipeline.run(mission, overrides=overrides(encoding, config),
                       stages=[*pipeline.STAGES, pipeline.stage_execute], explain=False)
    return {s.name: s for s in run.stages}["execute"].record


@pytest.mark.parametrize("name", FAILING)
def test_the_acceptance_run_recovers_from_seeded_failures(name):
    record = _acceptance(name)
    assert record["executable"], record
    assert record["run_failures"] > 0
    assert record["run_recoveries"] == record["run_failures"]
    expected = "aborted" if name.startswith("quadcopter") else "finished"
    assert record["run_outcome"] == record["expected_outcome"] == expected


@pytest.mark.parametrize("name", ["coffee", "vending"])
def test_coffee_and_vending_cannot_fail(name):
    """Their capabilities have no failure outcome: there is nothing to seed."""
    mission = load_mission(MISSIONS / f"{name}.yaml")
    assert not any(cap.failure_capable for cap in mission.catalog.capabilities.values())
    assert _acceptance(name)["run_failures"] == 0


def test_a_trial_row_counts_the_failures():
    row = run_trial({"mission": str(MISSIONS / "logistics_p0.yaml"), "encoding": "enumerated",
                     "liveness": "system-goal", "pending": False,
                     "declaration_order": "alphabetic", "seed": 0, "reordering": True,
                     "reordering_threshold": None, "repeat": 0, "time_budget_s": None,
                     "node_budget": None, "execute": True})
    assert row["execute.status"] == "OK"
    assert row["execute.run_failures"] == row["execute.run_recoveries"] > 0


def test_the_section_replaces_the_runners_failures_and_keeps_the_rest():
    mission = load_mission(MISSIONS / "two_rivers.yaml")
    assert acceptance_mission(mission)[0].section("runner") == mission.section("runner")
    changed = dataclasses.replace(mission, sections={**mission.sections, "acceptance": {
        "seed": 9, "force": "move=failure"}})
    seeded, ending = acceptance_mission(changed)
    runner = seeded.section("runner")
    assert ending == "finished" and runner["seed"] == 9 and runner["force"] == "move=failure"
    assert "random" not in runner and "reasons" not in runner
    assert runner["max_steps"] == mission.section("runner")["max_steps"]


@pytest.mark.parametrize("section, key, message", [
    ({"colour": 1}, "acceptance.colour", "unknown acceptance key"),
    ({"random": {"move": 2}}, "acceptance.random.move", "expected a number"),
    ({"seed": -1}, "acceptance.seed", "integer"),
    ({"ending": "landed"}, "acceptance.ending", "cannot end in this outcome"),
])
def test_a_bad_acceptance_section_is_located(section, key, message):
    mission = load_mission(MISSIONS / "two_rivers.yaml")
    bad = dataclasses.replace(mission, sections={**mission.sections, "acceptance": section})
    with pytest.raises(InputError, match=message) as info:
        acceptance_mission(bad)
    assert info.value.key == key and info.value.file == mission.file


def _step(index: int, capability: str, outcome: str) -> Step:
    return Step(index, f"{index}_{capability}", index, capability, {}, 1,
                Outcome(outcome, ""), None, None, 0.0, 0.0)


def test_a_failure_counts_as_recovered_when_its_capability_completes_later():
    steps = [_step(0, "soda", "failure"), _step(1, "snack", "failure"),
             _step(2, "snack", "completed"), _step(3, "pay", "completed")]
    run = RunResult("step_limit", None, steps)
    assert len(run.recoveries()) == 2
    assert recovered(run, ended_as_expected=False) == 1  # soda never completed again
    assert recovered(run, ended_as_expected=True) == 2
