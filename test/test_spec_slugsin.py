"""slugsin export/import: slugs' bit encoding, limit clauses, buffers, integer folding."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.reference_data import REFERENCE, needs_reference, reference_params

from bdi_supervisor.errors import InputError
from bdi_supervisor.spec.formula import Compare, Var, evaluate
from bdi_supervisor.spec.gr1 import SECTIONS, GR1Spec, Variable
from bdi_supervisor.spec.io import load_spec
from bdi_supervisor.spec.slugsin import (
    bit_names,
    format_prefix,
    format_slugsin,
    limit_formula,
    parse_prefix,
    parse_slugsin,
    to_boolean,
)
from bdi_supervisor.spec.structuredslugs import parse_formula, parse_spec


def _bits_of(var: Variable, value: int) -> dict[str, bool]:
    return {name: bool((value - var.low) >> i & 1) for i, name in enumerate(bit_names(var))}


def test_bit_names_follow_slugs():
    assert bit_names(Variable("x", "sys", "int", 0, 3)) == ["x@0.0.3", "x@1"]
    assert bit_names(Variable("x", "sys", "int", 3, 107)) == [
        f"x@{i}" + (".3.107" if i == 0 else "") for i in range(7)]
    assert Variable("c", "sys", "int", 0, 4).bits == 3
    assert Variable("c", "sys", "int", 5, 5).bits == 1


def test_limit_clause_has_the_compiler_shape():
    var = Variable("x", "sys", "int", 0, 2)
    assert format_prefix(limit_formula(var, False)) == "| ! x@1 | ! x@0.0.2 0"
    assert format_prefix(limit_formula(Variable("y", "env", "int", 0, 4), True)) == \
        "| ! y@2' & ! y@1' | ! y@0.0.4' 0"


def test_limits_go_to_owner_init_and_trans_current_and_next():
    spec = parse_spec("[INPUT]\ny:0...4\n[OUTPUT]\nx:1...4\n[SYS_TRANS]\nx' = x\n")
    flat = to_boolean(spec)
    assert [c.comment for c in flat.env_init] == ["Variable limits: 0<=y<=4"]
    assert [c.comment for c in flat.env_safety] == ["Variable limits: 0<=y<=4",
                                                    "Variable limits: 0<=y'<=4"]
    assert flat.sys_init == []  # 1..4 is four values: no limit clause
    text = format_slugsin(spec)
    assert "[OUTPUT]\nx@0.1.4\nx@1\n" in text


INT_VARS = [Variable("x", "sys", "int", 0, 5), Variable("y", "env", "int", 2, 4),
            Variable("z", "sys", "int", -1, 1)]
term_text = st.sampled_from(["x", "y", "z", "x'", "y'", "0", "1", "3", "7"])


@settings(max_examples=60, deadline=None)
@given(st.lists(term_text, min_size=1, max_size=3),
       st.sampled_from(["=", "!=", "<", "<=", ">", ">="]),
       st.lists(term_text, min_size=1, max_size=2))
def test_bit_blasted_comparisons_agree_with_integer_semantics(left, op, right):
    names = {v.name: v for v in INT_VARS}
    formula = parse_formula(f"{' + '.join(left)} {op} {' + '.join(right)}", names=names)
    spec = GR1Spec(variables=list(INT_VARS))
    spec.sys_safety.append(spec_clause(formula))
    blasted = to_boolean(spec).sys_safety[0].formula
    for values in itertools.product(*(v.values for v in INT_VARS), repeat=2):
        now = dict(zip("xyz", values[:3]))
        nxt = dict(zip("xyz", values[3:]))
        bits_now, bits_next = {}, {}
        for var in INT_VARS:
            bits_now.update(_bits_of(var, now[var.name]))
            bits_next.update(_bits_of(var, nxt[var.name]))
        assert bool(evaluate(blasted, bits_now, bits_next)) == bool(evaluate(formula, now, nxt))


def spec_clause(formula):
    from bdi_supervisor.spec.gr1 import Clause
    return Clause(formula)


def test_prefix_memory_buffers_and_references():
    f = parse_prefix("$ 3 | a b & ? 0 c ! ? 1")
    env = {"a": True, "b": False, "c": True}
    assert evaluate(f, env) is False
    with pytest.raises(InputError) as info:
        parse_prefix("& a", file="f.slugsin", line=3)
    assert info.value.line == 3
    with pytest.raises(InputError, match="refers to no earlier"):
        parse_prefix("$ 1 ? 0")
    with pytest.raises(InputError, match="after a complete formula") as info:
        parse_prefix("a b")
    assert info.value.column == 3


def test_slugsin_round_trip_folds_integers_back():
    text = ("[INPUT]\na\nlevel:3...9\n[OUTPUT]\nx:0...2\n[ENV_INIT]\nlevel = 3\n"
            "[SYS_TRANS]\na -> x' = x + 1 | x = 2\nlevel' <= level + 1\n[SYS_LIVENESS]\nx = 2\n")
    spec = parse_spec(text)
    back = parse_slugsin(format_slugsin(spec))
    assert back.variables == spec.variables
    rng = random.Random(1)
    for section in SECTIONS:
        assert len(back.section(section)) == len(spec.section(section))
        for ours, theirs in zip(spec.section(section), back.section(section)):
            for _ in range(200):
                now = {"a": rng.random() < .5, "level": rng.randint(3, 9), "x": rng.randint(0, 2)}
                nxt = {"a": rng.random() < .5, "level": rng.randint(3, 9), "x": rng.randint(0, 2)}
                expected = bool(evaluate(theirs.formula, now, nxt))
                assert bool(evaluate(ours.formula, now, nxt)) == expected


def test_unfoldable_bits_stay_boolean():
    spec = parse_slugsin("[OUTPUT]\nx@0.0.3\n[SYS_INIT]\nx@0.0.3\n")  # x@1 missing
    assert spec.variables == [Variable("x@0.0.3", "sys")]
    assert spec.sys_init[0].formula == Var("x@0.0.3")


@pytest.mark.parametrize("path", reference_params("**/*.slugsin"))
def test_reference_slugsin_files_parse_and_reexport(path):
    spec = load_spec(path)
    again = parse_slugsin(format_slugsin(spec))
    for section in SECTIONS:
        assert [c.formula for c in again.section(section)] == [c.formula
                                                               for c in spec.section(section)]
    named = [c for s in SECTIONS for c in spec.section(s) if c.comment]
    assert all(c.origin.line for c in named)


@needs_reference
def test_well_separation_fixture_names_clauses():
    spec = load_spec(REFERENCE / "well_separation" / "forklift_cargo_conflict.slugsin")
    assert [c.comment.split(":")[0] for c in spec.env_safety] == ["dropCargo", "clearCargo"]
    assert spec.env_liveness[0].comment == "findStat"


def test_structuredslugs_compare_is_not_prefix():
    assert isinstance(parse_spec("[OUTPUT]\nx:0...3\n[SYS_INIT]\nx = 1\n").sys_init[0].formula,
                      Compare)
