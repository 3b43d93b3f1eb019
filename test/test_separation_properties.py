"""Property tests: well-separation on random small specs agrees with the explicit-state oracle."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ws_oracle import Explicit, classify, not_separated, replay

from bdi_supervisor.separation import SeparationOptions, well_separation
from bdi_supervisor.spec.formula import And, Compare, Const, Iff, Implies, Not, Num, Or, Var
from bdi_supervisor.spec.gr1 import Clause, GR1Spec, Origin, Variable


def _atoms(variables, primed_inputs: bool):
    options = []
    for var in variables:
        for primed in (False, True) if (primed_inputs and var.owner == "env") else (False,):
            if var.kind == "bool":
                options.append(st.just(Var(var.name, primed)))
            else:
                options.append(st.integers(var.low, var.high).map(
                    lambda k, v=var, p=primed: Compare("=", Var(v.name, p), Num(k))))
    options.append(st.sampled_from([Const(True), Const(False)]))
    return st.one_of(options)


def _formulas(variables, primed_inputs: bool):
    return st.recursive(
        _atoms(variables, primed_inputs),
        lambda sub: st.one_of(
            sub.map(Not),
            st.lists(sub, min_size=2, max_size=3).map(lambda a: And(tuple(a))),
            st.lists(sub, min_size=2, max_size=3).map(lambda a: Or(tuple(a))),
            st.tuples(sub, sub).map(lambda t: Implies(*t)),
        ),
        max_leaves=5,
    )


@st.composite
def specs(draw) -> GR1Spec:
    inputs = [Variable(f"x{k}", "env") for k in range(draw(st.integers(1, 2)))]
    outputs = [Variable(f"y{k}", "sys") for k in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):
        inputs.append(Variable("n", "env", "int", 0, 2))
    elif draw(st.booleans()):
        outputs.append(Variable("m", "sys", "int", 1, 3))
    variables = inputs + outputs
    line = iter(range(1, 100))

    def clauses(strategy, low, high):
        return [Clause(f, Origin("file", file="random", line=next(line)))
                for f in draw(st.lists(strategy, min_size=low, max_size=high))]

    safety = clauses(_formulas(variables, True), 0, 3)
    if outputs and draw(st.booleans()):
        # "holding freezes an input": the shape of pending-memory traps
        hold = draw(st.sampled_from([v for v in outputs if v.kind == "bool"] or [None]))
        frozen = inputs[0]
        if hold is not None:
            keep = Iff(Var(frozen.name), Var(frozen.name, True))
            safety.append(Clause(Implies(Var(hold.name), keep),
                                 Origin("file", file="random", line=next(line))))
    return GR1Spec(
        variables=variables,
        env_init=clauses(_formulas(inputs, False), 0, 2),
        env_safety=safety,
        env_liveness=clauses(_formulas(variables, True), 0, 2),
        name="random",
    )


FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(specs())
def test_cases_agree_with_explicit_solver(spec):
    record = well_separation(spec)
    assert record.complete
    assert record.cases == classify(spec)
    assert (record.status == "WELL_SEPARATED") == (not record.cases)


@FAST
@given(specs())
def test_witnesses_force_the_violation(spec):
    record = well_separation(spec, SeparationOptions(witness_max_nodes=512))
    for witness in record.witnesses:
        replay(spec, witness)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_core_is_one_minimal_against_pinned_reach(spec):
    record = well_separation(spec, SeparationOptions(core=True, witness=False))
    if not record.cases:
        assert record.core_assumptions == []
        return
    reach = Explicit(spec).reachable()
    kept = [a.source_index for a in record.core_assumptions]
    assert record.core_complete
    assert not_separated(spec, kept, reach)
    for drop in kept:
        assert not not_separated(spec, [k for k in kept if k != drop], reach)
