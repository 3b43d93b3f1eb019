"""Budgets bound the whole synthesis (encoding, fixpoints, extraction) and keep partial metrics.

The clock is replaced by one that jumps when the solver reports progress, so the tests name the
phase a time budget stops without depending on the machine's speed.
"""

from __future__ import annotations

import time

import pytest
from support.paths import MISSIONS

from bdi_supervisor.common import Realizability
from bdi_supervisor.mission import load_mission
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.synthesize import synthesize


@pytest.fixture(scope="module")
def spec():
    """Mid-size: 60 BDD variables, 10 env liveness assumptions, dozens of Y levels."""
    return generate_spec(load_mission(MISSIONS / "logistics_p0.yaml"), liveness="fair-outcome",
                         pending=True)


@pytest.fixture(scope="module")
def small():
    return generate_spec(load_mission(MISSIONS / "coffee_extended.yaml"))


class JumpingClock:
    """``time.monotonic`` stand-in: real time plus the jumps made so far."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.real = time.monotonic

    def __call__(self) -> float:
        return self.real() + self.offset

    def jump(self, seconds: float) -> None:
        self.offset += seconds


def test_time_budget_stops_the_fixpoint_with_its_counters(spec, monkeypatch):
    clock = JumpingClock()
    monkeypatch.setattr(time, "monotonic", clock)
    events = []

    def progress(event):
        if "pass" not in event:
            return  # the phase events
        events.append(event)
        if len(events) == 2:  # after the second Y level: an hour passes
            clock.jump(3600)

    result = synthesize(spec, SynthesisOptions(time_budget=600), progress=progress)
    assert result.status == Realizability.INCOMPLETE and result.strategy is None
    assert result.incomplete_reason.startswith("time budget of 600")
    assert "realizability" in result.incomplete_reason
    m = result.metrics
    assert m.stopped_in == "realizability"
    assert m.z_passes == 1 and m.y_levels == 3 and m.x_iterations > 0
    assert m.peak_nodes > 0 and m.peak_live_nodes > 0 and m.bdd_variables > 0
    assert m.realizability_seconds > 0 and m.encoding_seconds > 0


def test_time_budget_stops_the_extraction(spec, monkeypatch):
    clock = JumpingClock()
    monkeypatch.setattr(time, "monotonic", clock)

    def progress(event):
        if event.get("phase") == "extraction":
            clock.jump(3600)

    result = synthesize(spec, SynthesisOptions(time_budget=600), progress=progress)
    assert result.status == Realizability.INCOMPLETE and result.metrics.stopped_in == "extraction"
    assert "(the spec is realizable)" in result.incomplete_reason
    m = result.metrics
    assert m.z_passes > 1 and m.y_levels > 0 and m.x_iterations > 0 and m.winning_nodes > 0


def test_node_budget_stops_the_encoding(spec):
    result = synthesize(spec, SynthesisOptions(node_budget=1))
    assert result.status == Realizability.INCOMPLETE
    assert "node budget of 1" in result.incomplete_reason
    m = result.metrics
    assert m.stopped_in == "encoding" and "encoding" in result.incomplete_reason
    assert m.x_iterations == 0 and m.peak_nodes > 1


def test_strategy_state_budget_names_the_extraction(small):
    result = synthesize(small, SynthesisOptions(max_states=3))
    assert result.status == Realizability.INCOMPLETE and result.metrics.stopped_in == "extraction"
    assert "strategy state budget of 3" in result.incomplete_reason


def test_a_generous_budget_completes(small):
    result = synthesize(small, SynthesisOptions(time_budget=3600, node_budget=10**9))
    assert result.status == Realizability.REALIZABLE and result.metrics.stopped_in is None
    assert result.incomplete_reason is None and result.strategy is not None
