"""CTL-BDI parser: round trips, precedence, and error positions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from support.ctl_strategies import formulas

from bdi_monitor.logic import Atom, Binary, Modal, Not, Temporal, Until, parse, to_text
from bdi_monitor.logic.ast import walk
from bdi_supervisor.errors import InputError


@settings(max_examples=200, deadline=None)
@given(formulas())
def test_text_round_trip(f):
    assert parse(to_text(f)) == f
    assert all(str(g) == to_text(g) for g in walk(f))  # str() of every node kind is the text


def test_precedence_and_associativity():
    p, q, r = Atom("p"), Atom("q"), Atom("r")
    assert parse("p & q | r") == Binary("|", Binary("&", p, q), r)
    assert parse("p -> q -> r") == Binary("->", p, Binary("->", q, r))
    assert parse("p <-> q -> r") == Binary("<->", p, Binary("->", q, r))
    assert parse("!p & q") == Binary("&", Not(p), q)
    assert parse("AG bel p -> EF q") == Binary("->", Temporal("AG", Modal("bel", p)),
                                               Temporal("EF", q))
    assert parse("A[p U E[q U r]]") == Until("A", p, Until("E", q, r))
    assert parse("int des !(p)") == Modal("int", Modal("des", Not(p)))


@pytest.mark.parametrize("text, line, column, found", [
    ("AG(p -> ", 1, 9, "end of input"),
    ("E[p q]", 1, 5, "'q'"),
    ("p & & q", 1, 5, "'&'"),
    ("p $ q", 1, 3, "'$'"),
    ("(p & q", 1, 7, "end of input"),
    ("p q", 1, 3, "'q'"),
    ("EF\n  (p &\n   zz)", 3, 4, "'zz'"),
    ("p U q", 1, 3, "'U'"),
    ("E(p U q)", 1, 2, "'('"),
])
def test_errors_point_at_the_offending_token(text, line, column, found):
    with pytest.raises(InputError) as info:
        parse(text, {"p", "q", "r"}, key="properties[0]")
    error = info.value
    assert (error.line, error.column, error.found) == (line, column, found)
    assert error.key == "properties[0]"
    assert f"line {line}, column {column}" in str(error)
