"""structuredslugs parser and printer: round trips, reference files, precedence, errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.reference_data import needs_reference, reference_files, reference_params
from support.synthesis_checker import compound

from bdi_supervisor.errors import InputError
from bdi_supervisor.spec.formula import (
    Add,
    And,
    Compare,
    Const,
    Iff,
    Implies,
    Not,
    Num,
    Or,
    Var,
    Xor,
)
from bdi_supervisor.spec.gr1 import SECTIONS, Variable
from bdi_supervisor.spec.io import load_spec
from bdi_supervisor.spec.structuredslugs import (
    format_formula,
    format_spec,
    parse_formula,
    parse_spec,
)

names = st.sampled_from(["a", "b", "c_a", "bd_c", "x1", "next_step"])
int_names = st.sampled_from(["x", "level", "capability"])
terms = st.recursive(
    st.one_of(st.builds(Num, st.integers(0, 20)), st.builds(Var, int_names, st.booleans())),
    lambda sub: st.builds(Add, sub, sub),
    max_leaves=4,
)
atoms = st.one_of(
    st.builds(Const, st.booleans()),
    st.builds(Var, names, st.booleans()),
    st.builds(Compare, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), terms, terms),
)

formulas = st.recursive(atoms, lambda sub: compound(sub, max_args=3), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(formulas)
def test_print_then_parse_gives_the_same_tree(formula):
    assert parse_formula(format_formula(formula)) == formula


@pytest.mark.parametrize("path", reference_params("**/*.structuredslugs"))
def test_reference_files_parse_and_round_trip(path):
    spec = load_spec(path)
    again = parse_spec(format_spec(spec))
    assert again.variables == spec.variables
    for section in SECTIONS:
        assert [c.formula for c in again.section(section)] == [c.formula
                                                               for c in spec.section(section)]
        assert [c.comment for c in again.section(section)] == [c.comment
                                                               for c in spec.section(section)]
    assert sum(spec.counts()[s] for s in SECTIONS) > 0


@needs_reference
def test_reference_files_exist():
    assert len(reference_files("**/*.structuredslugs")) >= 7


def test_precedence_follows_slugs_grammar():
    # & binds tighter than |, | tighter than ^, ^ tighter than ->, -> tighter than <->
    a, b, c = Var("a"), Var("b"), Var("c")
    assert parse_formula("a | b & c") == Or((a, And((b, c))))
    assert parse_formula("a ^ b | c") == Xor(a, Or((b, c)))
    assert parse_formula("a -> b ^ c") == Implies(a, Xor(b, c))
    assert parse_formula("a <-> b -> c") == Iff(a, Implies(b, c))
    # implication is left-associative in slugs' grammar
    assert parse_formula("a -> b -> c") == Implies(Implies(a, b), c)
    assert parse_formula("!a & b") == And((Not(a), b))


def test_operator_spellings_and_next():
    a, b = Var("a"), Var("b")
    assert parse_formula("a && b") == parse_formula("a /\\ b") == And((a, b))
    assert parse_formula("a || b") == parse_formula("a \\/ b") == Or((a, b))
    assert parse_formula("a --> b") == Implies(a, b)
    assert parse_formula("a <--> b") == Iff(a, b)
    assert parse_formula("~a") == Not(a)
    assert parse_formula("next(a & !b)") == And((Var("a", True), Not(Var("b", True))))
    assert parse_formula("X a") == Var("a", True)
    assert parse_formula("TRUE & FALSE") == And((Const(True), Const(False)))
    assert parse_formula("next(x = 3)") == Compare("=", Var("x", True), Num(3))
    assert parse_formula("(x + 1) = y'") == Compare("=", Add(Var("x"), Num(1)), Var("y", True))
    assert parse_formula("a # trailing comment") == a


def test_clauses_carry_file_and_line(tmp_path):
    path = tmp_path / "t.structuredslugs"
    path.write_text("[INPUT]\na\n[OUTPUT]\nx:0...5\n\n[SYS_TRANS]\n## keep x\nx' = "
                    "x\n[SYS_TRANS]\na -> x' = 1\n")
    spec = load_spec(path)
    assert [c.origin.line for c in spec.sys_safety] == [8, 10]
    assert spec.sys_safety[0].origin.file == str(path)
    assert spec.sys_safety[0].comment == "keep x"
    assert spec.variable("x") == Variable("x", "sys", "int", 0, 5)


def test_prefix_lines_are_accepted_like_slugs_compiler():
    spec = parse_spec("[INPUT]\na\n[OUTPUT]\nb\n[ENV_TRANS]\n| ! a ! a'\n")
    assert spec.env_safety[0].formula == Or((Not(Var("a")), Not(Var("a", True))))


@pytest.mark.parametrize("text, column", [
    ("a & & b", 5),
    ("a b", 3),
    ("(a | b", 7),
    ("a = ", 5),
    ("a ?? b", 3),
    ("next(a')", 1),
    ("a''", 1),
    ("F a", 1),
    ("3", 1),
])
def test_malformed_formulas_report_the_column(text, column):
    with pytest.raises(InputError) as info:
        parse_formula(text, file="f.structuredslugs", line=4)
    assert info.value.line == 4
    assert info.value.column == column
    assert "f.structuredslugs" in info.value.describe()


def test_undeclared_and_mistyped_names_are_errors():
    text = "[INPUT]\na\n[OUTPUT]\nx:0...3\n[SYS_TRANS]\na -> zz\n"
    with pytest.raises(InputError, match="undeclared variable 'zz'") as info:
        parse_spec(text, file="s.structuredslugs")
    assert (info.value.line, info.value.column) == (6, 6)
    with pytest.raises(InputError, match="integer variable"):
        parse_spec("[OUTPUT]\nx:0...3\n[SYS_TRANS]\nx\n")
    with pytest.raises(InputError, match="undeclared"):
        parse_spec("[OUTPUT]\nx:0...3\n[SYS_TRANS]\nx = y\n")


def test_bad_declarations_and_sections():
    with pytest.raises(InputError, match="declaration") as info:
        parse_spec("[INPUT]\nx:0..3\n")
    assert info.value.line == 2
    with pytest.raises(InputError, match="unknown section"):
        parse_spec("[INPUTS]\na\n")
    with pytest.raises(InputError, match="declared twice"):
        parse_spec("[INPUT]\na\n[OUTPUT]\na\n")
    with pytest.raises(InputError, match="empty range"):
        parse_spec("[INPUT]\nx:4...3\n")
