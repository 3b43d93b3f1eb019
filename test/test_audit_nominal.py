"""Nominal livelocks: the fair-set search against enumeration of every state set, hand-built
strategies for each part of the definition, and the shipped mission that has one.

The search (:mod:`bdi_supervisor.audit.nominal`) is checked on random graphs with random
assumption masks (some 40 of the 1,500 cases of a run need refinement rounds, most of them
finding a set after one); ``test_audit_oracle.py`` checks the auditor's use of it on random
strategies.
"""

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.audit_builders import make_catalog, one_hot, reach_from
from support.paths import MISSIONS

from bdi_supervisor import pipeline
from bdi_supervisor.audit import AuditOptions, audit, auditor
from bdi_supervisor.audit.nominal import fair_sets
from bdi_supervisor.audit.record import (
    ENVIRONMENT_SUSTAINED_LIVELOCK,
    GOAL_UNREACHABLE_TRAP,
    NOMINAL_LIVELOCK,
)
from bdi_supervisor.catalog.loader import load_catalog
from bdi_supervisor.cli.main import main
from bdi_supervisor.common import AuditVerdict
from bdi_supervisor.errors import BudgetExceeded
from bdi_supervisor.mission import load_mission
from bdi_supervisor.reduce import reduce
from bdi_supervisor.spec.formula import Not, Or, Var

# ------------------------------------------------------------------ the search on plain graphs


@st.composite
def graphs(draw):
    """Random graphs: edges (some inner), per edge a mask of assumptions met, per state the
    mask it enables (at least what its inner edges meet, plus what edges not drawn meet)."""
    n = draw(st.integers(1, 7))
    k = draw(st.integers(0, 3))
    adj, inner, meets, enabled = [], [], [], []
    for _ in range(n):
        targets = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
        adj.append(targets)
        inner.append([i for i in range(len(targets)) if draw(st.integers(0, 4))])
        meets.append([draw(st.sampled_from([0, 0, *(1 << j for j in range(k))]))
                      for _ in targets])  # sparse: refinement rounds are common
        extra = draw(st.integers(0, (1 << k) - 1)) if not draw(st.integers(0, 3)) else 0
        enabled.append(extra | _or(meets[-1][i] for i in inner[-1]))
    candidates = (list(range(n)) if draw(st.booleans())
                  else sorted(draw(st.sets(st.integers(0, n - 1)))))
    rank = draw(st.permutations(range(n)))
    return n, k, candidates, adj, inner, meets, enabled, rank


def _or(masks) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


def enumerate_fair(k, candidates, adj, inner, meets, enabled) -> list[frozenset]:
    """Every set of candidates strongly connected by inner edges, each assumption met on one
    of them or enabled by none of its states."""
    found = []
    for size in range(1, len(candidates) + 1):
        for group in itertools.combinations(candidates, size):
            inside = set(group)
            edges = [(u, adj[u][i]) for u in group for i in inner[u] if adj[u][i] in inside]
            graph = {u: [t for a, t in edges if a == u] for u in group}
            if not edges or any(reach_from(graph, u) != inside for u in group):
                continue
            met = _or(meets[u][i] for u in group for i in inner[u] if adj[u][i] in inside)
            if not _or(enabled[u] for u in group) & ~met:
                found.append(frozenset(group))
    return found


@settings(max_examples=1500, deadline=None)
@given(graphs())
def test_fair_sets_are_the_maximal_fair_sets(graph):
    _, k, candidates, adj, inner, meets, enabled, rank = graph
    found = fair_sets(candidates, adj, inner, meets, enabled, rank, k, lambda: None)
    family = enumerate_fair(k, candidates, adj, inner, meets, enabled)
    reported = [frozenset(f.states) for f in found]
    assert all(group in family for group in reported)
    assert all(any(group <= r for r in reported) for group in family)
    assert all(not a & b for a, b in itertools.combinations(reported, 2))
    for fair in found:
        members = set(fair.states)
        assert fair.entry == min(fair.states, key=lambda v: rank[v])
        here = fair.entry
        for u, i in fair.cycle:  # a closed walk of inner edges inside the set
            assert u == here and i in inner[u] and adj[u][i] in members
            here = adj[u][i]
        assert here == fair.entry and fair.cycle
        wanted = _or(enabled[u] for u in fair.states)
        assert _or(meets[u][i] for u, i in fair.cycle) & wanted == wanted
        met = _or(meets[u][i] for u in fair.states for i in inner[u] if adj[u][i] in members)
        assert fair.unmet == ((1 << k) - 1) & ~met


# ------------------------------------------------------------------ hand-built strategies

CF = ("completed", "failure")
#: vending in small: prep → pay → (soda | snack); soda may fail, the goal is soda's completion
SHOP = make_catalog({"prep": (("completed",),), "pay": (CF,), "soda": (CF,),
                     "snack": (CF,)}, sm_outcomes=("finished", "aborted"))
PENDING = [Or((Not(Var(f"{c}_p")), Var(f"{c}_c", True))) for c in ("pay", "soda", "snack")]


def _vacuous_shop():
    """After a failed soda, snacks are sold round after round with soda pending; soda is tried
    again only after a snack fails (the vending_extended Fair-Outcome + pending strategy)."""
    return one_hot(SHOP, [
        ("", "prep_a", [1]),                          # 0
        ("prep_c", "pay_a pay_p", [2, 8]),            # 1
        ("pay_c", "soda_a soda_p", [3, 4]),           # 2
        ("soda_c", "finished", []),                   # 3
        ("soda_f", "prep_a soda_p", [5]),             # 4
        ("prep_c", "pay_a pay_p soda_p", [6, 9]),     # 5
        ("pay_c", "snack_a snack_p soda_p", [10, 7]), # 6
        ("snack_f", "soda_a soda_p", [3, 4]),         # 7: soda again after a failed snack
        ("pay_f", "pay_a pay_p", [2, 8]),             # 8
        ("pay_f", "pay_a pay_p soda_p", [6, 9]),      # 9
        ("snack_c", "prep_a soda_p", [5]),            # 10: and round again
    ])


def test_the_vacuous_snack_loop_is_a_nominal_livelock():
    strategy = _vacuous_shop()
    record = audit(strategy, SHOP, ["finished", "aborted"], AuditOptions(env_liveness=PENDING))
    assert record.verdict == AuditVerdict.FAIL
    assert record.defect_kinds == [NOMINAL_LIVELOCK] and record.warning_kinds == []
    (defect,) = record.defects
    assert defect.states == [5, 6, 10]
    assert [s.state for s in defect.trace] == [0, 1, 2, 4, 5]
    assert defect.trace[3].inputs == {"soda_f": True}
    assert [s.state for s in defect.cycle] == [6, 10, 5]
    assert defect.details["capabilities"] == ["pay", "snack", "prep"]
    assert defect.details["pending"] == ["soda"]
    assert defect.details["unmet_assumptions"] == ["(!soda_p | soda_c')"]
    # a failed payment (5 → 9) only retries the payment: the goal comes back after a snack fails
    assert [(e["from"], e["to"], e["failure"], e["outcome"])
            for e in defect.details["exits"]] == [(6, 7, True, "failure")]
    assert "pay → snack → prep → pay" in defect.message and "soda pending" in defect.message
    # a warning when the mission says so, nothing when off; the reduced strategy has it too
    warned = audit(strategy, SHOP, ["finished"],
                   AuditOptions(env_liveness=PENDING, nominal_livelock="warning"))
    assert warned.verdict == AuditVerdict.PASS and warned.warning_kinds == [NOMINAL_LIVELOCK]
    off = audit(strategy, SHOP, ["finished"], AuditOptions(env_liveness=PENDING,
                                                           nominal_livelock="off"))
    assert off.verdict == AuditVerdict.PASS and off.warnings == []
    reduced = audit(reduce(strategy), SHOP, ["finished"], AuditOptions(env_liveness=PENDING))
    assert reduced.mode == "structural" and reduced.defect_kinds == [NOMINAL_LIVELOCK]


def test_retrying_soda_at_once_is_no_livelock():
    """The same shop retrying soda right after its failure: every nominal cycle reaches the
    goal (the failure loop soda_f → prep → pay → soda needs soda to fail: an environment-
    sustained livelock at most)."""
    strategy = one_hot(SHOP, [
        ("", "prep_a", [1]),
        ("prep_c", "pay_a pay_p", [2, 5]),
        ("pay_c", "soda_a soda_p", [3, 4]),
        ("soda_c", "finished", []),
        ("soda_f", "prep_a soda_p", [1]),
        ("pay_f", "pay_a pay_p", [2, 5]),
    ])
    record = audit(strategy, SHOP, ["finished"], AuditOptions(env_liveness=PENDING))
    assert record.verdict == AuditVerdict.PASS and NOMINAL_LIVELOCK not in record.warning_kinds


def test_a_loop_that_needs_a_failure_is_not_nominal():
    # soda fails → prep → pay → soda again: the cycle passes a failure on every round
    strategy = one_hot(SHOP, [
        ("", "soda_a soda_p", [1, 2]),
        ("soda_c", "finished", []),
        ("soda_f", "prep_a soda_p", [3]),
        ("prep_c", "soda_a soda_p", [1, 2]),
    ])
    record = audit(strategy, SHOP, ["finished"])
    assert NOMINAL_LIVELOCK not in record.defect_kinds
    assert record.warning_kinds == [ENVIRONMENT_SUSTAINED_LIVELOCK]


#: an operator whose question has two success answers and one failure answer
DESK_YAML = """
name: desk
state_outcome_mappings: {gladly: completed, sure: completed, refused: failure}
sm_outcome_mappings: {finished: finished, aborted: aborted}
capabilities:
  ask:
    interface: OperatorDecisionState
    parameters: {outcomes: [gladly, sure, refused], hint: "Serve?", suggestion: sure}
  serve:
    interface: LogState
    parameters: {text: Serving}
"""


def test_success_answers_are_nominal_and_failure_outcomes_are_not_goals(tmp_path):
    """Both of the operator's success answers normalize to ``completed`` (nominal), ``refused``
    to ``failure``; reaching the failure SM outcome ``aborted`` is not the goal, and a state that
    asserts an SM outcome ends the run (it is no livelock)."""
    (tmp_path / "desk.yaml").write_text(DESK_YAML)
    desk = load_catalog(tmp_path / "desk.yaml")
    assert desk.capabilities["ask"].flexbe_outcomes == {
        "gladly": "completed", "sure": "completed", "refused": "failure"}
    looping = one_hot(desk, [
        ("", "ask_a ask_p", [1, 2]),
        ("ask_c", "serve_a", [3]),
        ("ask_f", "aborted", []),           # gives up, by design, after a failure
        ("serve_c", "ask_a ask_p", [1, 2]),  # served, and asked again: never finished
    ])
    record = audit(looping, desk, ["finished", "aborted"])
    assert record.defect_kinds == [NOMINAL_LIVELOCK] and record.defects[0].states == [1, 3]
    ends = one_hot(desk, [
        ("", "ask_a ask_p", [1, 2]),
        ("ask_c", "finished", []),
        ("ask_f", "aborted", []),
    ])
    assert audit(ends, desk, ["finished", "aborted"]).verdict == AuditVerdict.PASS


def test_a_recurrence_goal_on_the_cycle_is_reached():
    """coffee-like: the goal is an outcome on the cycle (GF br_c); nothing to report."""
    cafe = make_catalog({"bd": (CF,), "br": (CF,)}, sm_outcomes=())
    strategy = one_hot(cafe, [
        ("", "bd_a bd_p", [1, 0]),
        ("bd_c", "br_a br_p", [0, 1]),
    ])
    record = audit(strategy, cafe, ["br_c"])
    assert NOMINAL_LIVELOCK not in record.defect_kinds + record.warning_kinds


def test_a_trap_is_not_also_a_nominal_livelock():
    strategy = one_hot(SHOP, [  # pays for ever, nothing is ever sold
        ("", "prep_a", [1]),
        ("prep_c", "pay_a pay_p", [2, 3]),
        ("pay_c", "prep_a", [1]),
        ("pay_f", "pay_a pay_p", [2, 3]),
    ])
    assert audit(strategy, SHOP, ["finished"]).defect_kinds == [GOAL_UNREACHABLE_TRAP]


def test_an_assumption_the_environment_can_meet_refines_the_set():
    """Sensors ``door`` and ``light``; the environment must open the door infinitely often
    (GF door'). Where the door can open (state 4) it leads to the goal, so a fair environment
    does not stay on a loop through 4 without opening it: that state drops out. The loop
    1 → 2 → 1 never offers the door: on it the environment keeps every promise it can keep, and
    the robot never finishes."""
    shop = make_catalog({"prep": (("completed",),), "pay": (CF,)}, sm_outcomes=("finished",))
    rows = [
        ("", "prep_a", [1, 3]),                  # 0
        ("prep_c", "pay_a pay_p", [4, 2, 5]),    # 1
        ("pay_c", "prep_a", [1]),                # 2: the light stayed off
        ("prep_c door", "finished", []),         # 3
        ("pay_c light", "prep_a", [1, 3]),       # 4: the door may open here
        ("pay_f", "pay_a pay_p", [4, 2, 5]),     # 5
    ]
    door = AuditOptions(env_liveness=[Var("door", True)])
    strategy = one_hot(shop, rows, extra_inputs=("door", "light"))
    record = audit(strategy, shop, ["finished"], door)
    assert record.defect_kinds == [NOMINAL_LIVELOCK] and record.defects[0].states == [1, 2]
    assert record.defects[0].details["unmet_assumptions"] == ["door'"]
    # without the loop through 2, the only nominal loop passes the door: no livelock
    rows[1] = ("prep_c", "pay_a pay_p", [4, 5])
    rows[5] = ("pay_f", "pay_a pay_p", [4, 5])
    strategy = one_hot(shop, rows, extra_inputs=("door", "light"))
    assert audit(strategy, shop, ["finished"], door).verdict == AuditVerdict.PASS
    # and without the assumption, the environment may keep the door shut: a livelock
    record = audit(strategy, shop, ["finished"])
    assert record.defect_kinds == [NOMINAL_LIVELOCK] and record.defects[0].states == [1, 4]


# ------------------------------------------------------------------ the shipped mission


def test_vending_extended_fair_outcome_pending_is_refused():
    """vending_extended FP: after a failed soda the strategy sells snacks with soda pending;
    the audit refuses it, naming the loop, the pending soda and the prefix through soda_f."""
    mission = load_mission(MISSIONS / "vending_extended.yaml")
    for encoding in ("one-hot", "enumerated"):
        run = pipeline.run(mission, overrides={"liveness": "fair-outcome", "pending": True,
                                               "encoding": encoding})
        raw = run.audit.raw_audit
        assert raw.verdict == AuditVerdict.FAIL and raw.defect_kinds == [NOMINAL_LIVELOCK]
        assert run.audit.stopped == "raw strategy failed the audit"
        (defect,) = raw.defects
        assert defect.details["pending"] == ["soda"]
        *selling, other = defect.details["capabilities"]  # one-hot sells snacks, enumerated beer
        assert selling == ["prep_pay", "pay", "select"] and other in ("snack", "beer")
        assert any(step.inputs == {"failure": True} or step.inputs == {"soda_f": True}
                   for step in defect.trace)
        assert all(e["failure"] for e in defect.details["exits"])


def test_the_cli_names_the_nominal_livelock(tmp_path, capsys):
    """synthesize and run name the defect, the loop, the pending capability and the failures
    that leave the loop; audit.json holds the lasso (prefix, cycle) and its details."""
    argv = ["vending_extended", "--liveness", "fair-outcome", "--pending"]
    assert main(["synthesize", *argv, "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "audit FAIL: the raw strategy is not deployable: NOMINAL_LIVELOCK ×1" in out
    assert "prep_pay → pay → select → snack → prep_pay, soda pending" in out
    assert ("it runs prep_pay, pay, select, snack again and again while every outcome "
            "succeeds; the goal comes back only after snack → failure") in out
    record = json.loads((tmp_path / "vending_extended" / "one-hot-FP" / "audit.json").read_text())
    assert record["defect_kinds"] == [NOMINAL_LIVELOCK]
    (defect,) = record["defects"]
    assert defect["cycle"][-1]["state"] == defect["trace"][-1]["state"]
    assert defect["details"]["pending"] == ["soda"]
    assert main(["run", *argv]) == 1
    assert "NOMINAL_LIVELOCK ×1" in capsys.readouterr().err  # refused: on stderr


def test_a_budget_that_runs_out_in_the_search_is_incomplete(monkeypatch):
    """The refinement checks the audit's deadline every round: running out there is
    INCOMPLETE, never a pass."""
    def out_of_time(*args, **kwargs):
        raise BudgetExceeded("time", 0.0)

    monkeypatch.setattr(auditor, "fair_sets", out_of_time)
    record = audit(_vacuous_shop(), SHOP, ["finished"], AuditOptions(env_liveness=PENDING))
    assert record.verdict == AuditVerdict.INCOMPLETE and "time" in record.incomplete_reason
    calls = []
    with pytest.raises(BudgetExceeded):
        fair_sets([0], [[0]], [[0]], [[0]], [0], [0], 0,
                  lambda: calls.append(1) or out_of_time())
    assert calls == [1]
