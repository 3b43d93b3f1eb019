"""Shipped missions through synthesis, audit and reduction (coffee: 4 → 3 as the reference says)."""

import dataclasses

import pytest
from support.expected_verdicts import unhurried
from support.paths import MISSIONS

from bdi_supervisor.mission.loader import load_mission
from bdi_supervisor.pipeline.audit_reduce import audit_mission
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis import synthesize as synthesis


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
@pytest.mark.parametrize("liveness", ["system-goal", "fair-outcome"])
@pytest.mark.parametrize("pending", [True, False])
def test_coffee_reduces_four_to_three(encoding, liveness, pending, tmp_path):
    mission = load_mission(MISSIONS / "coffee.yaml")
    options = dataclasses.replace(mission.synthesis, encoding=encoding, liveness=liveness,
                                  pending=pending)
    mission = dataclasses.replace(mission, synthesis=options)
    spec = generate_spec(mission)
    strategy = synthesis.synthesize(spec).strategy
    stages = audit_mission(strategy, mission, spec, out_dir=tmp_path)
    assert stages.raw_audit.verdict == "PASS", stages.raw_audit.to_json()
    assert (len(strategy.states), len(stages.reduced.states)) == (4, 3)
    assert stages.reduced_audit.verdict == "PASS" and stages.deployable


@pytest.mark.parametrize("name, encoding", [("two_rivers", "one-hot"), ("two_rivers", "enumerated"),
                                            ("logistics_p0", "enumerated")])
def test_fair_outcome_pending_trap_is_logging_forever_with_the_failure_pending(name, encoding):
    """The Fair-Outcome + pending trap, read off the real strategy: after a failure the strategy
    repeats `log_failed` forever while the failed capability stays pending and is never selected
    again, so the environment cannot complete it and the assumption "a pending capability
    eventually completes" fails: a vacuous win that never reaches `finished`."""
    from bdi_supervisor.realize.machine import capability_order

    mission = unhurried(load_mission(MISSIONS / f"{name}.yaml"))
    options = dataclasses.replace(mission.synthesis, encoding=encoding,
                                  liveness="fair-outcome", pending=True)
    mission = dataclasses.replace(mission, synthesis=options)
    spec = generate_spec(mission)
    strategy = synthesis.synthesize(spec).strategy
    record = audit_mission(strategy, mission, spec, out_dir=None).raw_audit
    assert record.defect_kinds == ["GOAL_UNREACHABLE_TRAP"]
    order = capability_order(mission.catalog)

    def active(state):
        if encoding == "one-hot":
            return [c for c in mission.catalog.capabilities if state.outputs.get(f"{c}_a")]
        index = state.outputs.get("capability", 0)
        return [order[index - 1]] if index else []

    for defect in record.defects:
        for sid in defect.states:
            state = strategy.state(sid)
            assert active(state) == ["log_failed"]
            assert state.successors == [sid]  # a closed cycle: logging forever
            assert any(v for k, v in state.outputs.items() if k.endswith("_p"))  # still pending
