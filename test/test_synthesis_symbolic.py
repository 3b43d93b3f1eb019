"""Symbolic layer: formula encoding matches explicit evaluation; predecessors; budgets; CLI."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from support.synthesis_checker import evaluate

from bdi_supervisor.cli.main import main
from bdi_supervisor.common import Realizability
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import Add, Compare, Not, Num, Var
from bdi_supervisor.spec.gr1 import Clause, GR1Spec, Variable
from bdi_supervisor.spec.structuredslugs import parse_spec
from bdi_supervisor.synthesis import strategy as strategy_io
from bdi_supervisor.synthesis.symbolic import build_game
from bdi_supervisor.synthesis.synthesize import synthesize

INTS = [Variable("x", "env", "int", 3, 7), Variable("y", "sys", "int", 0, 2),
        Variable("z", "sys", "int", -2, 1)]


def terms():
    leaves = st.one_of(
        st.builds(Var, st.sampled_from(["x", "y", "z"]), st.booleans()),
        st.builds(Num, st.integers(-3, 9)),
    )
    return st.recursive(leaves, lambda sub: st.builds(Add, sub, sub), max_leaves=3)


@settings(max_examples=40, deadline=None)
@given(op=st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), left=terms(), right=terms())
def test_integer_comparisons_match_exact_arithmetic(op, left, right):
    spec = GR1Spec(variables=list(INTS))
    game = build_game(spec, reordering=False)
    formula = Compare(op, left, right)
    u = game.encode(formula)
    for cur_values in itertools.product(*(v.values for v in INTS)):
        for nxt_values in itertools.product(*(v.values for v in INTS)):
            cur = dict(zip("xyz", cur_values))
            nxt = dict(zip("xyz", nxt_values))
            bits = {**game.assignment(cur), **game.assignment(nxt, primed=True)}
            assert (game.bdd.let(bits, u) == game.true) == evaluate(formula, cur, nxt)


def test_range_limits_exclude_out_of_range_bit_patterns():
    spec = GR1Spec(variables=[Variable("x", "env", "int", 3, 7)])
    game = build_game(spec)
    assert game.env_init.count(nvars=len(game.pre_in)) == 5
    assert game.sys_init == game.true


def counter_spec() -> GR1Spec:
    """The system must count x up to 3 and back, one step at a time."""
    x = Var("x")
    spec = GR1Spec(variables=[Variable("go", "env"), Variable("x", "sys", "int", 0, 3)])
    spec.sys_init = [Clause(Compare("=", x, Num(0)))]
    spec.sys_safety = [Clause(Compare("<=", Var("x", True), Add(x, Num(1)))),
                       Clause(Compare("<=", x, Add(Var("x", True), Num(1))))]
    spec.sys_liveness = [Clause(Compare("=", x, Num(3))), Clause(Compare("=", x, Num(0)))]
    return spec


def test_predecessor_operators():
    game = build_game(counter_spec())
    three = game.encode(Compare("=", Var("x"), Num(3)))
    two_or_more = game.encode(Compare(">=", Var("x"), Num(2)))
    assert game.cpre_states(three) == two_or_more
    assert game.upre(game.prime(three)) == game.false  # the env cannot force anything
    assert game.pre_exists(game.prime(three)) == two_or_more
    assert game.image(game.encode(Compare("=", Var("x"), Num(0)))) == game.encode(
        Compare("<=", Var("x"), Num(1)))


def test_joint_predecessors_respect_environment_safety_on_the_next_inputs():
    """``pre_exists`` keeps env safety tied to the move it takes: with ``a' | b`` the environment
    can set ``a`` false next only from a state where ``b`` holds."""
    spec = parse_spec("[INPUT]\na\nb\n\n[OUTPUT]\ny\n\n[ENV_TRANS]\na' | b\n")
    game = build_game(spec)
    not_a = game.encode(Not(Var("a")))
    assert game.pre_exists(game.prime(not_a)) == game.encode(Var("b"))


def test_budgets_give_incomplete():
    result = synthesize(counter_spec(), SynthesisOptions(node_budget=1))
    assert result.status == Realizability.INCOMPLETE and "node" in result.incomplete_reason
    result = synthesize(counter_spec(), SynthesisOptions(max_states=2))
    assert result.status == Realizability.INCOMPLETE
    assert "strategy state" in result.incomplete_reason


def test_reorder_threshold_and_no_reordering_agree():
    a = synthesize(counter_spec(), SynthesisOptions(reorder_threshold=10))
    b = synthesize(counter_spec(), SynthesisOptions(reordering=False))
    assert a.realizable and b.realizable
    assert a.strategy.states == b.strategy.states


def test_max_growth_reaches_cudd_and_keeps_the_strategy():
    game = build_game(counter_spec(), max_growth=1.2)
    assert game.bdd.configure()["max_growth"] == 1.2
    assert build_game(counter_spec()).bdd.configure()["max_growth"] == 1.05
    tight = synthesize(counter_spec(), SynthesisOptions())
    loose = synthesize(counter_spec(), SynthesisOptions(max_growth=1.2))
    assert tight.realizable and loose.realizable
    assert tight.strategy.states == loose.strategy.states


def test_all_states_on_the_command_line_solves_over_every_state(tmp_path, capsys):
    """``--all-states``: the same verdict and strategy, no reachable states counted; by
    default the record counts the reachable states (x may step by one from 0: all 4 values)."""
    spec = tmp_path / "counter.structuredslugs"
    spec.write_text("[INPUT]\ngo\n\n[OUTPUT]\nx:0...5\n\n[SYS_INIT]\nx = 0\n\n[SYS_TRANS]\n"
                    "x' <= x + 1\nx <= x' + 1\nx' <= 3\n\n[SYS_LIVENESS]\nx = 3\nx = 0\n")
    records = {}
    for flags in ([], ["--all-states"]):
        strategy = tmp_path / f"strategy{len(flags)}.json"
        assert main(["solve", str(spec), "--json", "--strategy", str(strategy), *flags]) == 0
        records[len(flags)] = json.loads(capsys.readouterr().out)
    inside, every = records[0], records[1]
    assert inside["options"]["reachable"] and not every["options"]["reachable"]
    assert inside["metrics"]["reachable_states"] == 2 * 4  # go free, x in 0..3
    assert every["metrics"]["reachable_states"] == every["metrics"]["reachable_steps"] == 0
    assert (tmp_path / "strategy0.json").read_text() == (tmp_path / "strategy1.json").read_text()


def test_max_growth_is_validated(tmp_path, capsys):
    spec = tmp_path / "counter.structuredslugs"
    spec.write_text("[OUTPUT]\nx\n\n[SYS_LIVENESS]\nx\n")
    for bad in ("0.5", "nan", "inf"):
        assert main(["solve", str(spec), "--max-growth", bad]) == 2
        assert "max_growth" in capsys.readouterr().err
    assert main(["solve", str(spec), "--max-growth", "1.2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["max_growth"] == 1.2


def test_cli_solve(tmp_path, capsys):
    spec = tmp_path / "counter.structuredslugs"
    spec.write_text("[INPUT]\ngo\n\n[OUTPUT]\nx:0...3\n\n[SYS_INIT]\nx = 0\n\n[SYS_TRANS]\n"
                    "x' <= x + 1\nx <= x' + 1\n\n[SYS_LIVENESS]\nx = 3\nx = 0\n")
    out = tmp_path / "strategy.json"
    assert main(["solve", str(spec), "--json", "--strategy", str(out)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "REALIZABLE"
    assert record["metrics"]["strategy_states"] == len(strategy_io.load(out).states)
    spec.write_text(spec.read_text().replace("x <= x' + 1\n", "x <= x' + 1\nx' != 3\n"))
    assert main(["solve", str(spec)]) == 1
    assert "liveness" in capsys.readouterr().out
    spec.write_text("[OUTPUT]\nx\n[SYS_TRANS]\nx & & y\n")
    assert main(["solve", str(spec)]) == 2
    assert "error:" in capsys.readouterr().err
