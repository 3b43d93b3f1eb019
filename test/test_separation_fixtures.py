"""Well-separation on the reference fixtures: hand-derived verdicts, the explicit oracle, replay."""

from __future__ import annotations

import json

import pytest
from support.reference_data import REFERENCE, needs_reference, reference_files
from support.ws_oracle import Explicit, classify, not_separated, replay

from bdi_supervisor.common import Separation
from bdi_supervisor.separation import SeparationOptions, well_separation
from bdi_supervisor.spec.io import load_spec

FIXTURES = REFERENCE / "well_separation"
ALL = [p.name for p in reference_files("well_separation/*.slugsin")]
pytestmark = needs_reference

# Verdicts derived by hand from Maoz–Ringert's Def. 2 and Algorithm 1; the trivial guarantee
# means sys_init/sys_trans/sys_liveness are ignored, outputs are free.
HAND = {
    # everything TRUE: the environment can always move and its liveness TRUE always holds
    "well_separated_trivial.slugsin": [],
    # env_init is "env & !env": no initial state at all
    "env_init_contradiction.slugsin": ["P-all/E-ini"],
    # break_env (an output) demands safe' and !safe': the system sets it in the first state,
    # whatever the initial input, so env safety fails from every initial state
    "env_safety_forced_initial.slugsin": ["P-all/E-safe"],
    # p demands p' and !p': stuck once p holds; p starts false and only the environment sets it,
    # so the stuck state is reachable but not forced initially
    "env_safety_forced_some_state.slugsin": ["P-reach/E-safe"],
    # p starts false; hold freezes p; the system holds forever, so GF p fails from the start
    "env_liveness_prevented_initial.slugsin": ["P-all/E-just"],
    # the same trap, but p starts true (holding keeps it true, GF p holds); !p is reachable
    "env_liveness_prevented_reachable.slugsin": ["P-reach/E-just"],
    # as prevented_initial, with the justice clause p' read on the transition
    "env_liveness_next_input.slugsin": ["P-all/E-just"],
    # lift_DROP and mot_BWD together demand cargo' and !cargo': set both at once
    "forklift_cargo_conflict.slugsin": ["P-all/E-safe"],
    # no env safety: the environment visits a station whenever it likes
    "forklift_findstat_only.slugsin": [],
    # mot_STOP away from a station keeps it away; initially atStation may be true
    "forklift_findstat_samepos.slugsin": ["P-reach/E-just"],
    # G atStation as an assumption: "away" is unreachable, so the trap does not count
    "forklift_findstat_samepos_station_invariant.slugsin": [],
    # p & break_env is stuck and reachable (not initial: p starts false); holding at !p keeps GF p
    # false from every initial state
    "incomparable_reach_safe_all_just.slugsin": ["P-reach/E-safe", "P-all/E-just"],
    # r never becomes true so the decoy conflict is unreachable; holding at !p traps GF p
    "core_reach_pinned_to_original.slugsin": ["P-all/E-just"],
    "no_env_liveness_section.slugsin": [],
    # env safety "!sys": the system outputs sys and the environment cannot move
    "no_input_variables.slugsin": ["P-all/E-safe"],
    "no_output_variables.slugsin": [],
    "no_sys_liveness_section.slugsin": [],
}
BASIC = ["well_separated_trivial.slugsin", "env_init_contradiction.slugsin",
         "env_safety_forced_initial.slugsin", "env_safety_forced_some_state.slugsin",
         "env_liveness_prevented_initial.slugsin", "env_liveness_prevented_reachable.slugsin"]


def analyse(name: str, **options):
    return well_separation(load_spec(FIXTURES / name), SeparationOptions(**options))


def test_every_fixture_has_a_hand_verdict():
    assert set(ALL) == set(HAND), "new fixture: derive its verdict by hand"
    assert set(BASIC) <= set(HAND)


@pytest.mark.parametrize("name", ALL)
def test_fixture_verdict(name):
    record = analyse(name)
    assert record.status in set(Separation) and record.complete
    assert record.cases == HAND[name]
    assert record.status == ("NON_WELL_SEPARATED" if HAND[name] else "WELL_SEPARATED")


@pytest.mark.parametrize("name", ALL)
def test_fixture_agrees_with_explicit_oracle(name):
    assert analyse(name).cases == classify(load_spec(FIXTURES / name))


@pytest.mark.parametrize("name", [n for n in ALL if HAND[n] and HAND[n] != ["P-all/E-ini"]])
def test_fixture_witnesses_replay(name):
    spec = load_spec(FIXTURES / name)
    record = well_separation(spec)
    assert record.witness_available and record.witness is record.witnesses[0]
    assert [w.case for w in record.witnesses] == record.cases
    for witness in record.witnesses:
        replay(spec, witness)
        assert witness.implicated_assumptions
        if witness.case.startswith("P-all"):
            assert len(witness.path) == 1


def test_env_init_contradiction_has_no_witness():
    record = analyse("env_init_contradiction.slugsin")
    assert not record.witness_available
    assert record.witness_unavailable_reason == "unsat_env_init"
    assert record.violated_assumption_type == "env_init"
    assert [a.section for a in record.responsible_assumptions] == ["env_init", "env_init"]


def test_violated_type_and_names_follow_comments():
    record = analyse("forklift_cargo_conflict.slugsin")
    assert record.violated_assumption_type == "env_safety"
    assert {a.name for a in record.responsible_assumptions} == {"dropCargo", "clearCargo"}
    witness = record.witness
    assert witness.details["kind"] == "one_step_safety_violation"
    assert witness.outputs == {"mot_BWD": True, "lift_DROP": True}


def test_liveness_witness_names_the_trapped_clause():
    record = analyse("forklift_findstat_samepos.slugsin")
    assert record.violated_assumption_type == "env_liveness"
    assert record.witness.details["liveness_kept_false"] == ["findStat"]
    assert record.witness.state == {"atStation": False, "mot_STOP": True}
    assert {a.name for a in record.responsible_assumptions} == {"findStat", "samePos"}


def _core_names(record):
    return [a.name for a in record.core_assumptions]


def test_core_is_pinned_to_the_original_reach_set():
    name = "core_reach_pinned_to_original.slugsin"
    spec = load_spec(FIXTURES / name)
    record = well_separation(spec, SeparationOptions(core=True))
    assert record.core_complete and record.core_mode.startswith("delta_debugging")
    assert sorted(_core_names(record)) == ["holdFreezeFalse", "visitP"]
    reach = Explicit(spec).reachable()
    kept = [a.source_index for a in record.core_assumptions]
    assert not_separated(spec, kept, reach)
    for drop in kept:
        assert not not_separated(spec, [k for k in kept if k != drop], reach)
    # recomputing reach per candidate would accept the decoys (dropping the gates frees r)
    decoys = [k for k, c in enumerate(spec.env_init + spec.env_safety + spec.env_liveness)
              if c.comment.startswith("decoy")]
    assert not not_separated(spec, decoys, reach)
    assert not_separated(spec, decoys, Explicit(spec, frozenset(decoys)).reachable())


@pytest.mark.parametrize("name", [n for n in ALL if HAND[n]])
def test_fixture_cores_are_one_minimal(name):
    spec = load_spec(FIXTURES / name)
    record = well_separation(spec, SeparationOptions(core=True))
    kept = [a.source_index for a in record.core_assumptions]
    reach = Explicit(spec).reachable()
    assert record.core_complete and not_separated(spec, kept, reach)
    for drop in kept:
        assert not not_separated(spec, [k for k in kept if k != drop], reach)


def test_record_json_has_the_reference_fields():
    record = analyse("incomparable_reach_safe_all_just.slugsin", core=True)
    data = json.loads(record.to_json())
    for key in ("format_version", "tool", "status", "complete", "cases", "violated_assumption_type",
                "responsible_assumptions", "responsible_assumption_mode", "witness_available",
                "witness_unavailable_reason", "witness", "core_mode", "core_enabled",
                "core_complete", "core_assumptions", "checks", "timing", "warnings"):
        assert key in data
    assert data["witness"]["source_region"] == "direct_safety_violation_reachable"
    assert data["witness"]["details"]["kind"] == "one_step_safety_violation"
    for phase in ("total", "reachability", "safety_winning", "liveness_winning",
                  "diagnostics_and_witness", "core_minimization"):
        assert data["timing"][phase] >= 0.0
    assert data["timing"]["total"] >= data["timing"]["safety_winning"]
    for size in ("reachable_states_bdd_size", "safety_winning_states_bdd_size",
                 "direct_safety_violation_states_bdd_size", "full_winning_states_bdd_size"):
        assert data["checks"][size] >= 1


def test_budget_gives_analysis_incomplete():
    record = analyse("forklift_findstat_only.slugsin", time_budget_s=0.0)
    assert record.status == "ANALYSIS_INCOMPLETE"
    assert not record.complete and record.incomplete_reason == "time"
    assert record.warnings


def test_witness_can_be_disabled():
    record = analyse("forklift_cargo_conflict.slugsin", witness=False)
    assert record.cases == ["P-all/E-safe"]
    assert not record.witness_available
    assert record.witness_unavailable_reason == "witness_disabled"
