"""Shipped missions through synthesis, audit and reduction (coffee: 4 → 3 as the reference says)."""

import dataclasses

import pytest

from bdi_supervisor.mission.loader import load_mission
from bdi_supervisor.pipeline.audit_reduce import audit_mission
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis import synthesize as synthesis


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
@pytest.mark.parametrize("liveness", ["system-goal", "fair-outcome"])
@pytest.mark.parametrize("pending", [True, False])
def test_coffee_reduces_four_to_three(encoding, liveness, pending, tmp_path):
    mission = load_mission("config/missions/coffee.yaml")
    options = dataclasses.replace(mission.synthesis, encoding=encoding, liveness=liveness,
                                  pending=pending)
    mission = dataclasses.replace(mission, synthesis=options)
    spec = generate_spec(mission)
    strategy = synthesis.synthesize(spec).strategy
    stages = audit_mission(strategy, mission, spec, out_dir=tmp_path)
    assert stages.raw_audit.verdict == "PASS", stages.raw_audit.to_json()
    assert (len(strategy.states), len(stages.reduced.states)) == (4, 3)
    assert stages.reduced_audit.verdict == "PASS" and stages.deployable
