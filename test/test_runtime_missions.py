"""Shipped missions end to end: exhaustive forced outcomes and PyRoboSim logistics runs.

Each supervisor comes from the real pipeline (spec → synthesis → audit → reduce → machine).
"""

from __future__ import annotations

import pytest
from support.paths import MISSIONS
from support.supervisors import prepared

from bdi_supervisor.realize.machine import build_machine
from bdi_supervisor.runtime.forced import exhaustive_check
from bdi_supervisor.runtime.session import RunOptions, run_supervisor

FOOD = ("bread0", "snacks0", "soda0", "butter0")
WASTE = ("waste0", "waste1")
EXHAUSTIVE = ["coffee_extended", "vending_extended", "two_rivers", "logistics_p0", "logistics_p1"]


@pytest.mark.parametrize("name", EXHAUSTIVE)
@pytest.mark.parametrize("which", ["raw", "reduced"])
def test_every_declared_outcome_at_every_state_follows_the_strategy(name, which):
    mission, prep = prepared(name)
    assert prep.audit == "PASS"
    strategy = prep.raw if which == "raw" else prep.reduced
    from bdi_supervisor.realize.stage import mission_outcomes

    machine = (prep.machine if which == "reduced" else
               build_machine(strategy, mission.catalog, sm_outcomes=mission_outcomes(mission)))
    checks = exhaustive_check(machine, strategy, mission.catalog)
    declared = sum(len(mission.catalog.capabilities[s.capability].outcomes)
                   for s in machine.states)
    assert len(checks) == declared > 0
    failures = [c for c in checks if c.outcome != "completed"]
    assert failures, "no failure outcome was exercised"
    assert [c for c in checks if not c.ok] == []


def delivered(truth: dict) -> bool:
    objects = truth["objects"]
    return (all(objects.get(o) == "table_tabletop" for o in FOOD)
            and all(objects.get(o) == "dumpster_disposal" for o in WASTE)
            and truth["holding"] is None)


def run_logistics(name: str, seed: int | None = None):
    pytest.importorskip("pyrobosim")
    mission, prep = prepared(name)
    records = []
    result = run_supervisor(mission, prep.machine, prep.reduced,
                            options=RunOptions(seed=seed), callbacks=[records.append])
    return result, records


@pytest.mark.simulation
@pytest.mark.parametrize("name", ["logistics_p0", "logistics_p1"])
def test_pyrobosim_delivers_every_item_without_failures(name):
    result, records = run_logistics(name)
    assert result.status == "goal_reached" and result.sm_outcome == "finished"
    assert result.recoveries() == []
    assert delivered(records[-1]["ground_truth"])
    picked = [s.parameters["object"] for s in result.steps if s.capability == "pick"]
    assert sorted(picked) == sorted(FOOD + WASTE)
    if name == "logistics_p1":
        opened = {s.capability for s in result.steps if s.capability.startswith("open_")}
        assert opened == {"open_fridge", "open_pantry"}
        assert records[-1]["ground_truth"]["open"]["fridge"] is True
    final = records[-1]["beliefs"]
    assert all(final[f"{key}_done"]["value"] is True
               for key in ("bread", "snacks", "soda", "butter", "waste0", "waste1"))


@pytest.mark.simulation
@pytest.mark.parametrize("name, kinds", [
    ("logistics_p0_faults", {"goto_item", "pick"}),
    ("logistics_p1_faults", {"goto_item", "pick", "open_fridge"}),
])
def test_pyrobosim_recovers_from_seeded_injected_failures(name, kinds):
    result, records = run_logistics(name)
    assert result.status == "goal_reached" and result.sm_outcome == "finished"
    recoveries = result.recoveries()
    assert kinds <= {s.capability for s in recoveries}
    assert all(s.outcome.forced and s.outcome.layer == "injection" for s in recoveries)
    # every recovery transition is the one the machine (and the audited strategy) prescribes
    _, prep = prepared(name)
    for step in recoveries:
        assert step.next == prep.machine.state(step.state).transitions["failure"].target
    outcome_records = [r for r in records if r["event"] == "outcome" and r["last_outcome"]]
    assert any(r["last_outcome"]["outcome"] == "failure" and r["last_outcome"]["forced"]
               for r in outcome_records)
    assert delivered(records[-1]["ground_truth"])
    again, _ = run_logistics(name)
    assert [(s.state, s.outcome.outcome) for s in again.steps] == \
        [(s.state, s.outcome.outcome) for s in result.steps]


@pytest.mark.parametrize("seed", range(5))
def test_two_rivers_crossings_failing_in_high_wind_still_bring_everything_across(seed):
    mission, prep = prepared("two_rivers")
    records = []
    result = run_supervisor(mission, prep.machine, prep.reduced,
                            options=RunOptions(seed=seed), callbacks=[records.append])
    assert result.status == "goal_reached" and result.sm_outcome == "finished"
    assert records[-1]["desires"] == [{"goal": mission.request.goals[0].text, "satisfied": True}]
    beliefs = records[-1]["beliefs"]
    assert {beliefs[x]["value"] for x in ("wolf", "goat", "corn", "farmer")} == {"far"}
    winds = [s for s in result.recoveries() if "high wind" in s.outcome.reason]
    assert winds == result.recoveries()
    if seed == 0:
        assert winds, "seed 0 has no failed crossing; pick another seed for this check"
    # the goat is never left with the wolf or the corn without the farmer
    for record in records:
        b = {k: v["value"] for k, v in record["beliefs"].items()}
        if b["goat"] in (b["wolf"], b["corn"]):
            assert b["goat"] == b["farmer"]


@pytest.mark.simulation
def test_cli_runs_p1_with_faults_end_to_end(tmp_path, capsys):
    import json

    from bdi_supervisor.cli.main import main

    pytest.importorskip("pyrobosim")
    log = tmp_path / "bdi.jsonl"
    code = main(["run", str(MISSIONS / "logistics_p1_faults.yaml"), "--seed", "2",
                 "--bdi-log", str(log), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0, record["result"]["reason"]
    assert record["audit"] == "PASS"
    counts = record["counts"]
    assert counts["raw"] > counts["reduced"] >= counts["realized"] > 0
    assert record["result"]["recoveries"]
    lines = log.read_text().splitlines()
    assert json.loads(lines[-1])["status"] == "goal_reached"
    assert delivered(json.loads(lines[-1])["ground_truth"])
