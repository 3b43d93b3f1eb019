"""Hand-built strategies for every defect class of the auditor, positive and negative."""

import json

import pytest
from support.audit_builders import COFFEE, coffee_strategy, enumerated, make_catalog, one_hot

from bdi_supervisor.audit import AuditOptions, audit, infer_encoding
from bdi_supervisor.audit.protocol import ProtocolView
from bdi_supervisor.audit.record import (
    BOUNDED_FAILURE_VIOLATION,
    DEADLOCK,
    ENVIRONMENT_SUSTAINED_LIVELOCK,
    GOAL_UNREACHABLE_TRAP,
    NOMINAL_LIVELOCK,
    PROTOCOL_VIOLATION,
)
from bdi_supervisor.common import AuditVerdict
from bdi_supervisor.reduce import reduce
from bdi_supervisor.spec.formula import Not, Or, Var
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

CF = ("completed", "failure")
#: a mission with a terminal outcome: bd (may fail) → gr (may fail) → br → finished
MISSION = make_catalog({"bd": (CF,), "gr": (CF,), "br": (("completed",),)})


def mission_ok():
    """bd retries on failure, gr falls back to bd on failure, br completes → finished."""
    return one_hot(MISSION, [
        ("", "bd_a bd_p", [1, 5]),           # 0
        ("bd_c", "gr_a gr_p", [2, 3]),       # 1
        ("gr_c", "br_a", [4]),               # 2
        ("gr_f", "bd_a bd_p", [1, 5]),       # 3
        ("br_c", "finished", []),            # 4 terminal
        ("bd_f", "bd_a bd_p", [1, 5]),       # 5 retry of bd
    ])


def kinds(record):
    return record.defect_kinds


def test_coffee_passes_with_recurrence_goal():
    record = audit(coffee_strategy(), COFFEE, ["br_c"])
    assert record.verdict == AuditVerdict.PASS and record.complete
    assert record.encoding == "one-hot" and record.mode == "full"


def test_mission_passes_and_record_is_json():
    strategy = mission_ok()
    record = audit(strategy, MISSION)  # goals default to the SM outcomes
    assert record.goals == ["finished"]
    assert record.verdict == AuditVerdict.PASS, record.to_json()
    data = json.loads(record.to_json())
    assert data["verdict"] == "PASS" and data["format"] == "bdi_supervisor/audit"


# ------------------------------------------------------------------ protocol


def test_two_activations_at_once():
    strategy = one_hot(COFFEE, [("", "bd_a gr_a", [1]), ("bd_c", "bd_a", [1])])
    record = audit(strategy, COFFEE, ["bd_c"])
    assert kinds(record) == [PROTOCOL_VIOLATION]
    assert "at once" in record.defects[0].message


def test_outcome_of_another_capability():
    strategy = one_hot(COFFEE, [("", "bd_a", [1]), ("gr_c", "bd_a", [1])])
    record = audit(strategy, COFFEE, ["gr_c"])
    assert PROTOCOL_VIOLATION in kinds(record)
    defect = record.defects[0]
    assert "of gr observed while bd is pending" in defect.message
    assert [step.state for step in defect.trace] == [0, 1]
    assert defect.trace[-1].inputs == {"gr_c": True}


def test_no_outcome_after_activation_and_outcome_with_nothing_pending():
    strategy = one_hot(COFFEE, [("bd_c", "bd_a", [1]), ("", "bd_a", [1])])
    messages = [d.message for d in audit(strategy, COFFEE, ["bd_a"]).defects]
    assert any("initial state 0 observes bd_c" in m for m in messages)
    assert any("no outcome of pending capability bd" in m for m in messages)


def test_outcome_after_sm_outcome_is_a_violation():
    strategy = one_hot(MISSION, [("", "br_a", [1]), ("br_c", "finished", [2]),
                                 ("br_c", "finished", [2])])
    record = audit(strategy, MISSION)
    assert kinds(record) == [PROTOCOL_VIOLATION]
    assert "with no capability pending" in record.defects[0].message


def test_enumerated_undeclared_outcome_and_start_slot():
    # capabilities sorted: bd=1, br=2, gr=3; br only completes
    ok = enumerated(MISSION, [
        ("", "capability=0", [1]),
        ("completed", "capability=2", [2]),   # generic outcome leaving slot 0 is tolerated
        ("completed", "capability=2 finished", [2]),
    ])
    assert infer_encoding(ok) == "enumerated"
    assert audit(ok, MISSION).verdict == AuditVerdict.PASS
    bad = enumerated(MISSION, [
        ("", "capability=2", [1, 2]),
        ("completed", "capability=2 finished", [1]),
        ("failure", "capability=2 finished", [1]),
    ])
    record = audit(bad, MISSION)
    assert kinds(record) == [PROTOCOL_VIOLATION]
    assert "failure is not declared by br" in record.defects[0].message


def test_protocol_view_enumerated_slots_and_begin_game():
    catalog = make_catalog({"b": (CF,), "a": (CF,), "begin_game": (("completed",),)})
    view = ProtocolView(catalog, "enumerated")
    assert view.slots == {1: "a", 2: "b", 0: "begin_game"}
    assert view.activated({"capability": 2}) == ["b"]
    assert [o.outcome for o in view.observed({"failure": True})] == ["failure"]
    assert ProtocolView(COFFEE).activated({"gr_a": True, "bd_a": False}) == ["gr"]


# ------------------------------------------------------------------ deadlock


def test_state_without_successor_is_a_deadlock_but_terminal_outcome_is_not():
    strategy = one_hot(COFFEE, [("", "bd_a", [1]), ("bd_c", "gr_a", [])])
    record = audit(strategy, COFFEE, ["gr_c"])
    assert DEADLOCK in kinds(record)
    assert record.defects[0].states == [1]
    terminal = one_hot(MISSION, [("", "br_a", [1]), ("br_c", "finished", [])])
    assert audit(terminal, MISSION).verdict == AuditVerdict.PASS
    strict = audit(terminal, MISSION, options=AuditOptions(terminal_outcomes_absorbing=False))
    assert kinds(strict) == [DEADLOCK]


def test_missing_failure_branch_is_a_deadlock():
    strategy = one_hot(MISSION, [("", "bd_a bd_p", [1]), ("bd_c", "finished", [])])
    record = audit(strategy, MISSION)
    assert kinds(record) == [DEADLOCK]
    assert record.defects[0].details == {"missing_outcome": "failure"}


# ------------------------------------------------------------------ bounded failures

RETRY = make_catalog({"gr": (CF, 2), "bd": (CF,)})


def test_retrying_forever_exceeds_the_bound():
    strategy = one_hot(RETRY, [
        ("", "gr_a gr_p", [1, 2]),
        ("gr_c", "finished", []),
        ("gr_f", "gr_a gr_p", [1, 2]),
    ])
    record = audit(strategy, RETRY)
    assert kinds(record) == [BOUNDED_FAILURE_VIOLATION]
    defect = record.defects[0]
    assert defect.details == {"bound": 2, "streak": 3}
    # three failures observed on the way: 0 -f-> 2 -f-> 2 -f-> 2
    assert [s.state for s in defect.trace] == [0, 2, 2, 2]


def test_giving_up_after_the_bound_passes():
    catalog = make_catalog({"gr": (CF, 2), "bd": (CF,)}, sm_outcomes=("finished", "failed"))
    strategy = one_hot(catalog, [
        ("", "gr_a gr_p", [1, 2]),
        ("gr_c", "finished", []),
        ("gr_f", "gr_a gr_p", [1, 3]),         # first failure: retry
        ("gr_f", "failed", []),                # second failure: give up
    ])
    record = audit(strategy, catalog)
    assert BOUNDED_FAILURE_VIOLATION not in kinds(record)
    assert record.verdict == AuditVerdict.PASS


def test_failure_streak_reset_by_another_capability():
    catalog = make_catalog({"gr": (CF, 1), "bd": (CF,)})
    # gr fails, bd runs, gr fails again, bd, ...: never two gr failures in one streak
    alternating = one_hot(catalog, [
        ("", "gr_a gr_p", [1, 2]),
        ("gr_c", "finished", []),
        ("gr_f", "bd_a bd_p", [3, 4]),
        ("bd_c", "gr_a gr_p", [1, 2]),
        ("bd_f", "gr_a gr_p", [1, 2]),
    ])
    record = audit(alternating, catalog)
    assert record.verdict == AuditVerdict.PASS, record.to_json()
    # immediate retry instead: the second failure breaks bound 1
    retry = one_hot(catalog, [("", "gr_a gr_p", [1, 2]), ("gr_c", "finished", []),
                              ("gr_f", "gr_a gr_p", [1, 2])])
    assert kinds(audit(retry, catalog)) == [BOUNDED_FAILURE_VIOLATION]


def test_product_budget_gives_incomplete_not_pass():
    strategy = one_hot(RETRY, [("", "gr_a gr_p", [1, 2]), ("gr_c", "finished", []),
                               ("gr_f", "gr_a gr_p", [1, 2])])
    record = audit(strategy, RETRY, options=AuditOptions(max_product_states=1))
    assert record.verdict == AuditVerdict.INCOMPLETE and not record.complete
    assert "product states" in record.incomplete_reason


def test_time_budget_gives_incomplete():
    record = audit(coffee_strategy(), COFFEE, ["br_c"], AuditOptions(time_budget_s=0.0))
    assert record.verdict == AuditVerdict.INCOMPLETE


def test_no_goal_is_incomplete():
    record = audit(coffee_strategy(), COFFEE)
    assert record.verdict == AuditVerdict.INCOMPLETE and "no goal" in record.incomplete_reason


# ------------------------------------------------------------------ traps


def test_cycle_without_path_to_goal_is_a_trap():
    strategy = one_hot(MISSION, [
        ("", "br_a", [1]),
        ("br_c", "br_a", [1]),   # br forever, never finished
    ])
    record = audit(strategy, MISSION)
    assert kinds(record) == [GOAL_UNREACHABLE_TRAP]
    assert record.defects[0].states == [1]
    assert [s.state for s in record.defects[0].trace] == [0, 1]


def test_cycle_with_an_exit_is_not_a_trap():
    strategy = mission_ok()  # bd retry loop 5 -> 5 exits via bd_c
    record = audit(strategy, MISSION)
    assert GOAL_UNREACHABLE_TRAP not in kinds(record)


#: the Fair-Outcome + pending shape: `move` may fail; after a failure the strategy cycles through
#: three capabilities that always complete, with `move` still pending and never selected again
PARKING = make_catalog({"move": (CF,), "log": (("completed",),), "report": (("completed",),),
                        "wait": (("completed",),)})


def _parking(exit_from_cycle: bool = False):
    """``exit_from_cycle``: `wait` may also fail, and its failure leads back to `move`."""
    catalog = PARKING if not exit_from_cycle else make_catalog(
        {"move": (CF,), "log": (("completed",),), "report": (("completed",),), "wait": (CF,)})
    rows = [
        ("", "move_a move_p", [1, 2]),             # 0
        ("move_c", "finished", []),                # 1 goal (terminal)
        ("move_f", "log_a move_p", [3]),           # 2 log the failure
        ("log_c", "report_a move_p", [4]),         # 3 ┐
        ("report_c", "wait_a move_p", [5]),        # 4 │ the closed three-state cycle
        ("wait_c", "log_a move_p", [3]),           # 5 ┘
    ]
    if exit_from_cycle:
        rows[4] = ("report_c", "wait_a move_p wait_p", [5, 6])
        rows.append(("wait_f", "move_a move_p", [1, 2]))  # 6 back to move
    return catalog, one_hot(catalog, rows)


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
def test_closed_three_state_cycle_is_a_trap(encoding):
    catalog, strategy = _parking()
    if encoding == "enumerated":  # capabilities numbered alphabetically: log 1, move 2, ...
        strategy = enumerated(catalog, [
            ("", "capability=2", [1, 2]),
            ("completed", "finished", []),
            ("failure", "capability=1", [3]),
            ("completed", "capability=3", [4]),
            ("completed", "capability=4", [5]),
            ("completed", "capability=1", [3]),
        ])
    record = audit(strategy, catalog)
    assert record.verdict == AuditVerdict.FAIL and kinds(record) == [GOAL_UNREACHABLE_TRAP]
    (trap,) = record.defects
    assert trap.states == [3, 4, 5]
    # the counterexample leads from the initial state into the cycle through the failure
    assert [s.state for s in trap.trace] == [0, 2, 3]


def test_three_state_cycle_with_an_environment_exit_is_not_a_trap():
    catalog, strategy = _parking(exit_from_cycle=True)
    record = audit(strategy, catalog)
    assert GOAL_UNREACHABLE_TRAP not in kinds(record)
    # it is a livelock: an environment that always completes `wait` keeps the robot there
    assert record.warning_kinds == [ENVIRONMENT_SUSTAINED_LIVELOCK]


def test_trap_survives_reduction_and_is_found_again():
    catalog, strategy = _parking()
    reduced = reduce(strategy)
    record = audit(reduced, catalog)
    assert kinds(record) == [GOAL_UNREACHABLE_TRAP]
    assert len(record.defects[0].states) == 3


def test_recurrence_goal_needs_a_cycle_through_it():
    # br_c is seen once, then the strategy loops on bd only
    strategy = one_hot(COFFEE, [("", "br_a", [1]), ("br_c", "bd_a", [2]), ("bd_c", "bd_a", [2])])
    record = audit(strategy, COFFEE, ["br_c"])
    assert kinds(record) == [GOAL_UNREACHABLE_TRAP] and record.defects[0].states == [2]


def _masked_trap():
    """A: br_c -> G, br_f -> T; G -> T; T -> T. G and T are bisimilar (same outputs, same
    successor), so reduction merges them; the merged state's arrival labels include br_c."""
    catalog = make_catalog({"br": (CF,), "w": (("completed",),)}, sm_outcomes=())
    strategy = one_hot(catalog, [
        ("", "br_a br_p", [1, 2]),    # A
        ("br_c", "w_a", [3]),          # G
        ("br_f", "w_a br_p", [3]),     # T (pending bit differs: masked by the reducer)
        ("w_c", "w_a", [3]),           # T's loop
    ])
    return catalog, strategy


def test_trap_that_label_union_reduction_would_mask():
    catalog, raw = _masked_trap()
    raw_record = audit(raw, catalog, ["br_c"])
    assert kinds(raw_record) == [GOAL_UNREACHABLE_TRAP]
    reduced = reduce(raw)
    assert len(reduced.states) < len(raw.states)
    merged = [ids for ids in reduced.metadata["provenance"].values() if len(ids) > 1]
    assert merged, "G and T are merged"
    # our reduced strategy keeps edge labels: the trap is still found
    assert kinds(audit(reduced, catalog, ["br_c"])) == [GOAL_UNREACHABLE_TRAP]
    # the reference's label-on-state union (merged arrival labels OR-ed) hides it
    union_states = []
    for state in reduced.states:
        raws = reduced.metadata["provenance"][str(state.id)]
        inputs = {name: any(raw.states[r].inputs[name] for r in raws) for name in state.inputs}
        union_states.append(StrategyState(state.id, inputs, state.outputs, state.successors,
                                          state.rank, state.initial))
    union = Strategy(reduced.variables, union_states, metadata={"reduced": True})
    assert GOAL_UNREACHABLE_TRAP not in kinds(audit(union, catalog, ["br_c"]))


# ------------------------------------------------------------------ livelocks

FAIR_GR = Or((Not(Var("gr_a")), Var("gr_c", True)))   # GF(!gr_a | gr_c')
FAIR_BD = Or((Not(Var("bd_a")), Var("bd_c", True)))


def _retry_strategy():
    """bd → gr; gr retries on failure; gr_c → br → finished."""
    return one_hot(MISSION, [
        ("", "bd_a bd_p", [1, 5]),
        ("bd_c", "gr_a gr_p", [2, 3]),
        ("gr_c", "br_a", [4]),
        ("gr_f", "gr_a gr_p", [2, 3]),
        ("br_c", "finished", []),
        ("bd_f", "bd_a bd_p", [1, 5]),
    ])


def test_retry_loop_is_fair_only_without_assumptions():
    strategy = _retry_strategy()
    unconstrained = audit(strategy, MISSION)
    assert unconstrained.verdict == AuditVerdict.PASS  # a warning, not a defect, by default
    assert unconstrained.warning_kinds == [ENVIRONMENT_SUSTAINED_LIVELOCK]
    assert sorted(tuple(w.states) for w in unconstrained.warnings) == [(3,), (5,)]
    fair = audit(strategy, MISSION, options=AuditOptions(env_liveness=[FAIR_GR, FAIR_BD]))
    assert fair.verdict == AuditVerdict.PASS and fair.warnings == []


def test_environment_sustained_livelock_with_an_exit():
    # gr_c sends the robot back to bd; only bd_f leads on to br. An environment that always
    # completes (which satisfies both fairness assumptions) keeps it cycling bd → gr → bd.
    strategy = one_hot(MISSION, [
        ("", "bd_a bd_p", [1, 5]),
        ("bd_c", "gr_a gr_p", [2, 3]),
        ("gr_c", "bd_a bd_p", [1, 5]),
        ("gr_f", "gr_a gr_p", [2, 3]),
        ("br_c", "finished", []),
        ("bd_f", "br_a", [4]),
    ])
    options = AuditOptions(env_liveness=[FAIR_GR, FAIR_BD], livelock="defect",
                           nominal_livelock="off")
    record = audit(strategy, MISSION, options=options)
    assert record.verdict == AuditVerdict.FAIL and kinds(record) == [ENVIRONMENT_SUSTAINED_LIVELOCK]
    assert record.defects[0].states == [1, 2, 3]
    assert GOAL_UNREACHABLE_TRAP not in kinds(record)
    # callables work as assumptions too
    as_callable = AuditOptions(env_liveness=[lambda s, d: not s.get("gr_a") or d.get("gr_c")],
                               livelock="defect", nominal_livelock="off")
    assert kinds(audit(strategy, MISSION, options=as_callable)) == [ENVIRONMENT_SUSTAINED_LIVELOCK]
    off = AuditOptions(livelock="off", nominal_livelock="off")
    assert audit(strategy, MISSION, options=off).warnings == []
    # an assumption the cycle can never meet makes it unfair: no environment-sustained livelock
    never = AuditOptions(env_liveness=[Var("br_c", True)], livelock="defect",
                         nominal_livelock="off")
    assert audit(strategy, MISSION, options=never).verdict == AuditVerdict.PASS
    # the cycle bd → gr → bd needs no failure at all: a nominal livelock (by default a defect),
    # also when the assumption can never be met there (the environment never gets the chance)
    for liveness in ([FAIR_GR, FAIR_BD], [Var("br_c", True)]):
        record = audit(strategy, MISSION, options=AuditOptions(env_liveness=liveness))
        assert record.verdict == AuditVerdict.FAIL and kinds(record) == [NOMINAL_LIVELOCK]
        assert record.defects[0].states == [1, 2]


def test_reduced_strategy_is_audited_structurally():
    reduced = reduce(mission_ok())
    record = audit(reduced, MISSION)
    assert record.mode == "structural" and record.verdict == AuditVerdict.PASS
    assert "product_states" not in record.stats


def test_unknown_livelock_mode_rejected():
    with pytest.raises(ValueError):
        audit(coffee_strategy(), COFFEE, ["br_c"], AuditOptions(livelock="maybe"))
