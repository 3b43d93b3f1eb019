"""Spec generation: each rule in both encodings, on the reference catalogs (shipped copies)."""


import pytest
from support.paths import ROOT
from support.reference_data import REFERENCE, needs_reference

from bdi_supervisor.catalog.loader import load_catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.mission.model import MissionFormula, Request
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import Var, evaluate, variables
from bdi_supervisor.spec.gr1 import SECTIONS
from bdi_supervisor.spec.structuredslugs import (
    format_formula,
    format_spec,
    parse_formula,
    parse_spec,
)
from bdi_supervisor.specgen.generate import generate, generate_spec

CATALOGS = ROOT / "config" / "catalogs"
MISSIONS = ROOT / "config" / "missions"


def mf(text, key="request"):
    return MissionFormula(text, parse_formula(text), key)


def spec_of(catalog, ics=(), goals=(), sm=(), **options):
    catalog = load_catalog(CATALOGS / f"{catalog}.yaml")
    request = Request(tuple(mf(t) for t in ics), tuple(mf(t) for t in goals), tuple(sm))
    return generate(catalog, request, options=SynthesisOptions(**options))


def texts(spec, section, rule=None, capability=None):
    return [format_formula(c.formula) for c in spec.section(section)
            if (rule is None or c.origin.rule == rule)
            and (capability is None or c.origin.capability == capability)]


COFFEE_X = dict(ics=["bd_a"], goals=["br_c"])


def test_coffee_extended_one_hot_sp_counts_match_the_reference():
    spec = spec_of("coffee_extended", **COFFEE_X)
    counts = spec.counts()
    assert (counts["inputs"], counts["outputs"]) == (6, 8)
    assert (counts["env_init"], counts["sys_init"], counts["env_safety"],
            counts["sys_liveness"]) == (6, 8, 12, 1)
    assert counts["sys_safety"] == 31
    assert [v.name for v in spec.inputs] == ["bd_c", "bd_f", "br_c", "br_f", "gr_c", "gr_f"]
    assert [v.name for v in spec.outputs] == ["bd_a", "bd_m", "bd_p", "br_a", "br_p", "gr_a",
                                              "gr_m", "gr_p"]


def test_mission_file_gives_the_same_spec():
    mission = load_mission(MISSIONS / "coffee_extended.yaml")
    ours = generate_spec(mission)
    direct = spec_of("coffee_extended", **COFFEE_X)
    for section in SECTIONS:
        assert [c.formula for c in ours.section(section)] == [c.formula
                                                              for c in direct.section(section)]


# ---------------------------------------------------------------- one-hot rules

def test_outcome_rules_one_hot():
    spec = spec_of("coffee_extended", **COFFEE_X)
    assert texts(spec, "env_safety", "exactly-one-outcome", "bd") == ["bd_a -> bd_c' | bd_f'"]
    assert texts(spec, "env_safety", "at-most-one-outcome", "bd") == ["bd_a -> !(bd_c' & bd_f')"]
    assert texts(spec, "env_safety", "no-outcome-unless-active", "gr") == ["!gr_a -> !gr_c'",
                                                                           "!gr_a -> !gr_f'"]
    assert texts(spec, "env_init") == ["!bd_c", "!bd_f", "!br_c", "!br_f", "!gr_c", "!gr_f"]
    base = spec_of("coffee", **COFFEE_X)  # single outcome: forced completion
    assert texts(base, "env_safety", "exactly-one-outcome", "br") == ["br_a -> br_c'"]
    assert texts(base, "env_safety", "at-most-one-outcome") == []


def test_mutex_one_hot_includes_sm_outcomes():
    spec = spec_of("vending", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    mutex = texts(spec, "sys_safety", "one-activation")
    assert mutex[0] == "beer_a' | pay_a' | prep_pay_a' | select_a' | snack_a' | soda_a' | finished'"
    assert "!(soda_a' & finished')" in mutex
    assert len(mutex) == 1 + 7 * 6 // 2


def test_preconditions_and_memory_substitution():
    spec = spec_of("coffee_extended", **COFFEE_X)
    assert texts(spec, "sys_safety", "precondition") == ["!(!gr_m' & !bd_m') -> !bd_a'",
                                                         "!gr_m' -> !br_a'",
                                                         "!bd_m' -> !gr_a'"]
    base = spec_of("coffee", **COFFEE_X)  # precondition on an outcome: a one-step window
    assert texts(base, "sys_safety", "precondition", "gr") == ["!bd_c' -> !gr_a'"]
    vending = spec_of("vending", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    assert texts(vending, "sys_safety", "precondition",
                 "soda") == ["!(select_m' & item' = 1) -> !soda_a'"]


def test_postconditions_setters_and_frames():
    spec = spec_of("coffee_extended", **COFFEE_X)
    assert texts(spec, "sys_safety", "postcondition") == [
        "bd_c' -> bd_m'", "bd_c' -> !gr_m'", "bd_f' -> !bd_m'", "br_c' -> !gr_m'", "br_f' -> gr_m'",
        "gr_c' -> !bd_m'", "gr_c' -> gr_m'", "gr_f' -> bd_m'"]
    assert texts(spec, "sys_safety", "frame") == [
        "!(bd_c' | bd_f' | gr_c' | gr_f') & bd_m -> bd_m'",
        "!(bd_c' | bd_f' | gr_c' | gr_f') & !bd_m -> !bd_m'",
        "!(bd_c' | br_c' | br_f' | gr_c') & gr_m -> gr_m'",
        "!(bd_c' | br_c' | br_f' | gr_c') & !gr_m -> !gr_m'"]
    vending = spec_of("vending", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    # `@item` makes select a setter without a formula; integers get one frame rule
    frames = texts(vending, "sys_safety", "frame")
    assert frames[0] == "!(beer_c' | pay_c' | select_c' | snack_c' | soda_c') -> item' = item"
    assert "!soda_c' & !soda_m -> !soda_m'" in frames


def test_transition_relations():
    spec = spec_of("vending", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    assert texts(spec, "sys_safety", "transition-relation") == [
        "pay_c' -> select_a'", "select_c' -> soda_a' | beer_a' | snack_a'"]


def test_request_initial_conditions_replace_defaults():
    spec = spec_of("vending", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    init = texts(spec, "sys_init")
    assert init[0] == "prep_pay_a" and "!prep_pay_a" not in init
    assert "!finished" in init and "!soda_a" in init
    assert texts(spec, "sys_safety", "sm-outcome-absorbing") == ["finished -> finished'"]


def test_goal_rules_with_and_without_sm_outcomes():
    spec = spec_of("vending", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    assert texts(spec, "sys_safety", "goal-success") == ["!soda_m & soda_m' -> finished'"]
    assert texts(spec, "sys_safety", "goal-required") == ["!soda_m' & !finished -> !finished'"]
    base = spec_of("coffee", **COFFEE_X)  # no SM outcome, nothing failure-capable: GF br_c
    assert texts(base, "sys_liveness") == ["br_c"]
    split = spec_of("coffee", ics=["bd_a"], goals=["br_c & gr_c"])
    assert texts(split, "sys_liveness") == ["br_c", "gr_c"]


@pytest.mark.parametrize("failure", ["failed", "failure", "aborted", "canceled"])
def test_a_failure_sm_outcome_is_never_the_success_outcome(failure):
    catalog = load_catalog(CATALOGS / "vending.yaml")
    catalog.sm_outcome_mappings = {failure: failure, "finished": "finished"}
    request = Request((mf("prep_pay_a"),), (mf("soda"),), (failure, "finished"))
    spec = generate(catalog, request)
    assert texts(spec, "sys_safety", "goal-success") == ["!soda_m & soda_m' -> finished'"]
    assert texts(spec, "sys_init", "sm-outcome-initial") == [f"!{failure}", "!finished"]


def test_system_goal_liveness():
    spec = spec_of("coffee_extended", **COFFEE_X)
    assert texts(spec, "sys_liveness") == [
        "br_c | !(bd_a -> bd_c') | !(br_a -> br_c') | !(gr_a -> gr_c')"]
    vending = spec_of("vending_extended", ics=["prep_pay_a"], goals=["soda"], sm=["finished"])
    assert texts(vending, "sys_liveness") == [
        "finished | !(beer_a -> beer_c') | !(pay_a -> pay_c') | !(snack_a -> snack_c') | !(soda_a "
        "-> soda_c')"]
    assert texts(vending, "env_liveness") == []


def test_fair_outcome_liveness_with_and_without_pending():
    f = spec_of("coffee_extended", liveness="fair-outcome", pending=False, **COFFEE_X)
    assert texts(f, "env_liveness") == ["!bd_a | bd_c'", "!br_a | br_c'", "!gr_a | gr_c'"]
    assert texts(f, "sys_liveness") == ["br_c"]
    fp = spec_of("coffee_extended", liveness="fair-outcome", pending=True, **COFFEE_X)
    assert texts(fp, "env_liveness") == ["!bd_p | bd_c'", "!br_p | br_c'", "!gr_p | gr_c'"]
    vending = spec_of("vending_extended", ics=["prep_pay_a"], goals=["soda"], sm=["finished"],
                      liveness="fair-outcome")
    assert texts(vending, "sys_liveness") == ["finished"]


def test_pending_rules():
    spec = spec_of("coffee_extended", **COFFEE_X)
    assert texts(spec, "sys_safety", capability="bd")[-4:] == [
        "bd_a' -> bd_p'", "bd_a & bd_f' -> bd_p'", "!bd_a' & bd_a & bd_c' -> !bd_p'",
        "!(bd_a | bd_a') -> (bd_p' <-> bd_p)"]
    assert "!bd_p" in texts(spec, "sys_init")
    no = spec_of("coffee_extended", pending=False, **COFFEE_X)
    assert not any(v.name.endswith("_p") for v in no.variables)
    base = spec_of("coffee", **COFFEE_X)  # nothing failure-capable: no pending variables
    assert not any(v.name.endswith("_p") for v in base.variables)


def test_origins_name_capability_and_rule():
    spec = spec_of("coffee_extended", **COFFEE_X)
    for section in SECTIONS:
        for clause in spec.section(section):
            assert clause.origin.rule, clause
            if (clause.origin.source == "capability"
                    and clause.origin.rule not in ("memory-initial",)):
                assert clause.origin.capability or clause.origin.key
    pre = next(c for c in spec.sys_safety if c.origin.rule == "precondition")
    assert pre.origin.label() == "bd:precondition"


# ---------------------------------------------------------------- enumerated

def test_enumerated_variables_and_activation():
    spec = spec_of("coffee_extended", encoding="enumerated", **COFFEE_X)
    cap = spec.variable("capability")
    assert (cap.kind, cap.low, cap.high, cap.owner) == ("int", 0, 3, "sys")
    assert "1: bd" in cap.comment and "3: gr" in cap.comment
    assert [v.name for v in spec.inputs] == ["completed", "failure"]
    # the request's initial activation is kept (reference quirk: it forces capability=0)
    assert texts(spec, "sys_init")[0] == "capability = 1"
    none = spec_of("coffee_extended", encoding="enumerated", goals=["br_c"])
    assert texts(none, "sys_init")[0] == "capability = 0"


def test_enumerated_outcome_rules_and_exclusivity():
    spec = spec_of("coffee_extended", encoding="enumerated", **COFFEE_X)
    assert texts(spec, "env_safety", "exactly-one-outcome",
                 "bd") == ["capability = 1 -> completed' | failure'"]
    assert "!(completed' & failure')" in texts(spec, "env_safety")
    assert "capability = 0 -> !completed' & !failure'" in texts(spec, "env_safety")
    assert texts(spec, "env_safety", "no-outcome-unless-active", "bd") == []
    vending = spec_of("vending", encoding="enumerated", ics=["prep_pay_a"], goals=["soda"],
                      sm=["finished"])
    # SM outcomes stay exclusive with activations: slot 0 exactly when an SM outcome holds
    assert texts(vending, "sys_safety", "one-activation") == ["capability' = 0 <-> finished'"]


def test_enumerated_primes_are_right():
    spec = spec_of("coffee_extended", encoding="enumerated", **COFFEE_X)
    assert texts(spec, "sys_safety", "postcondition",
                 "bd")[0] == "capability = 1 & completed' -> bd_m'"
    assert texts(spec, "sys_safety", "precondition", "gr") == ["!bd_m' -> !(capability' = 3)"]
    assert texts(spec, "sys_liveness") == [
        "capability = 2 & completed' | !(capability = 1 -> completed') | !(capability = 2 -> "
        "completed') | !(capability = 3 -> completed')"]
    vending = spec_of("vending", encoding="enumerated", ics=["prep_pay_a"], goals=["soda"],
                      sm=["finished"])
    numbers = {"beer": 1, "pay": 2, "prep_pay": 3, "select": 4, "snack": 5, "soda": 6}
    assert texts(vending, "sys_safety", "transition-relation") == [
        f"capability = {numbers['pay']} & completed' -> capability' = {numbers['select']}",
        "capability = 4 & completed' -> capability' = 6 | capability' = 1 | capability' = 5"]


def test_enumerated_matches_one_hot_semantics_on_a_transition():
    """Rule by rule: the enumerated clause holds on a step iff the one-hot clause does."""
    one = spec_of("coffee_extended", **COFFEE_X)
    enum = spec_of("coffee_extended", encoding="enumerated", **COFFEE_X)
    caps = {"bd": 1, "br": 2, "gr": 3}
    by_origin = {}
    for section in ("sys_safety",):
        for c in enum.section(section):
            by_origin.setdefault((c.origin.rule, c.origin.capability, c.origin.key),
                                 []).append(c.formula)
    import itertools
    mem = ["bd_m", "gr_m", "bd_p", "br_p", "gr_p"]
    rng = __import__("random").Random(3)
    samples = [tuple(rng.random() < 0.5 for _ in range(10)) for _ in range(48)]
    checked = 0
    for rule_clause in one.sys_safety:
        key = (rule_clause.origin.rule, rule_clause.origin.capability, rule_clause.origin.key)
        if rule_clause.origin.rule in ("one-activation",):
            continue
        candidates = by_origin.get(key, [])
        index = [c for c in one.sys_safety
                 if (c.origin.rule, c.origin.capability, c.origin.key) == key].index(rule_clause)
        enum_formula = candidates[index]
        for now_cap, next_cap, outcome in itertools.product(caps, caps, ("completed", "failure")):
            for bits in samples:
                now = dict(zip(mem, bits[:5]))
                nxt = dict(zip(mem, bits[5:]))
                one_now = {**now, **{f"{c}_a": c == now_cap for c in caps},
                           **{f"{c}_{t}": False for c in caps for t in "cf"}}
                one_next = {**nxt, **{f"{c}_a": c == next_cap for c in caps},
                            **{f"{c}_{t}": c == now_cap and t == outcome[0] for c in caps
                               for t in "cf"}}
                e_now = {**now, "capability": caps[now_cap], "completed": False, "failure": False}
                e_next = {**nxt, "capability": caps[next_cap], "completed": outcome == "completed",
                          "failure": outcome == "failure"}
                assert bool(evaluate(rule_clause.formula, one_now, one_next)) == \
                    bool(evaluate(enum_formula, e_now, e_next)), key
        checked += 1
    assert checked == 27


# ---------------------------------------------------------------- all missions, all treatments

CONFIGS = [(e, lv, p) for e in ("one-hot", "enumerated") for lv in ("system-goal", "fair-outcome")
           for p in (False, True)]


@pytest.mark.parametrize("mission", sorted(MISSIONS.glob("*.yaml")), ids=lambda p: p.stem)
@pytest.mark.parametrize("encoding, liveness, pending", CONFIGS)
def test_every_mission_generates_and_round_trips(mission, encoding, liveness, pending):
    spec = generate_spec(load_mission(mission), encoding=encoding, liveness=liveness,
                         pending=pending)
    again = parse_spec(format_spec(spec))
    assert again.variables == spec.variables
    for section in SECTIONS:
        assert [c.formula for c in again.section(section)] == [c.formula
                                                               for c in spec.section(section)]
    declared = {v.name for v in spec.variables}
    assert all(v.name in declared for s in SECTIONS for c in spec.section(s)
               for v in variables(c.formula))
    assert spec.sys_liveness or spec.env_liveness or liveness == "system-goal"


def test_declaration_order_options():
    alpha = spec_of("coffee_extended", **COFFEE_X)
    written = spec_of("coffee_extended", declaration_order="as-written", **COFFEE_X)
    r1 = spec_of("coffee_extended", declaration_order="random", seed=1, **COFFEE_X)
    r1b = spec_of("coffee_extended", declaration_order="random", seed=1, **COFFEE_X)
    r2 = spec_of("coffee_extended", declaration_order="random", seed=2, **COFFEE_X)
    names = [v.name for v in alpha.variables]
    assert [v.name for v in alpha.inputs] == sorted(v.name for v in alpha.inputs)
    assert [v.name for v in alpha.outputs] == sorted(v.name for v in alpha.outputs)
    written_names = [v.name for v in written.variables]
    assert written_names[:2] == ["bd_c", "bd_f"] and names != written_names
    assert r1.variables == r1b.variables and {v.name for v in r1.variables} == set(names)
    assert [v.name for v in r1.variables] != [v.name for v in r2.variables]
    assert [c.formula for c in r1.sys_safety] == [c.formula for c in alpha.sys_safety]


@needs_reference
def test_reference_catalog_gives_the_same_spec_as_ours():
    catalog = load_catalog(REFERENCE / "flexbe_synthesis" / "coffee_maker" / "capabilities"
                           / "coffee_capabilities_extended.yaml")
    ours = spec_of("coffee_extended", **COFFEE_X)
    theirs = generate(catalog, Request((mf("bd_a"),), (mf("br_c"),)))
    assert [c.formula for c in theirs.sys_safety] == [c.formula for c in ours.sys_safety]


def test_bad_request_names_are_located():
    catalog = load_catalog(CATALOGS / "coffee_extended.yaml")
    bad = Request((MissionFormula("bd_x", Var("bd_x"), "request.initial_conditions[0]", 6),))
    with pytest.raises(InputError, match="undefined name 'bd_x'") as info:
        generate(catalog, bad, file="m.yaml")
    assert (info.value.file, info.value.line, info.value.key) == ("m.yaml", 6,
                                                                  "request.initial_conditions[0]")
    primed = Request((), (), ())
    primed_bd = MissionFormula("bd_a'", parse_formula("bd_a'"), "constraints.env_safety[0]", 9)
    constraints = {"env_safety": (primed_bd,)}
    with pytest.raises(InputError, match="next value of system variable"):
        generate(catalog, primed, constraints, file="m.yaml")
    with pytest.raises(InputError, match="current state"):
        generate(catalog, Request((), (), ()),
                 {"sys_safety": (MissionFormula("br_c -> bd_a'", parse_formula("br_c -> bd_a'"),
                                                "k", 3),)},
                 SynthesisOptions(encoding="enumerated"))
