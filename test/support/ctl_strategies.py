"""Hypothesis strategies: random CTL-BDI structures and formulas."""

from __future__ import annotations

from hypothesis import strategies as st

from bdi_monitor.logic.ast import Atom, Binary, Const, Modal, Not, Temporal, Until
from bdi_monitor.structure import Automaton, Structure, World, empty_automaton, validate

PROPS = ("p", "q", "r")


@st.composite
def worlds(draw, k: int, name: str, partial: bool = True, max_states: int = 4) -> World:
    n = draw(st.integers(1, max_states))
    delta = []
    for _ in range(n):
        row = [draw(st.integers(0, n - 1)) if (not partial or draw(st.booleans()) or d == 0)
               else None for d in range(k)]
        if partial and draw(st.booleans()):  # move the guaranteed successor elsewhere
            row = row[1:] + row[:1]
        delta.append(row)
    labels = [frozenset(draw(st.sets(st.sampled_from(PROPS)))) for _ in range(n)]
    return World(name, [f"s{i}" for i in range(n)], draw(st.integers(0, n - 1)), delta, labels)


@st.composite
def automata(draw, k: int, m: int) -> Automaton:
    n = draw(st.integers(1, 3))
    tau = [[draw(st.integers(0, n - 1)) for _ in range(k)] for _ in range(n)]
    pairs = [(i, j) for i in range(m) for j in range(m)]
    out = [frozenset(draw(st.sets(st.sampled_from(pairs)))) for _ in range(n)]
    return Automaton([f"q{i}" for i in range(n)], draw(st.integers(0, n - 1)), tau, out)


@st.composite
def structures(draw, max_worlds: int = 3, modal: bool = True, max_states: int = 4,
               partial: bool = True) -> Structure:
    k = draw(st.integers(1, 3))
    m = draw(st.integers(1, max_worlds))
    ws = [draw(worlds(k, f"w{j}", partial, max_states)) for j in range(m)]
    if modal:
        b = draw(automata(k, m))
        shared = draw(st.booleans())  # exercise the shared-tracker encoding (I = B)
        i = (Automaton(b.states, b.initial, b.tau, draw(automata(k, m)).out[:1] * len(b.states))
             if shared else draw(automata(k, m)))
        autos = {"B": b, "D": draw(automata(k, m)), "I": i}
    else:
        autos = {r: empty_automaton(k) for r in ("B", "D", "I")}
    return validate(Structure([f"d{d}" for d in range(k)], ws, autos,
                              draw(st.integers(0, m - 1)), propositions=frozenset(PROPS)))


def formulas(modal: bool = True, depth: int = 4, props: tuple[str, ...] = PROPS):
    leaves = st.one_of(st.sampled_from([Atom(p) for p in props]),
                       st.sampled_from([Const(True), Const(False)]))

    def extend(children):
        options = [
            st.builds(Not, children),
            st.builds(Binary, st.sampled_from(["&", "|", "->", "<->"]), children, children),
            st.builds(Temporal, st.sampled_from(["EX", "AX", "EF", "AF", "EG", "AG"]), children),
            st.builds(Until, st.sampled_from(["E", "A"]), children, children),
        ]
        if modal:
            options.append(st.builds(Modal, st.sampled_from(["bel", "des", "int"]), children))
        return st.one_of(options)

    return st.recursive(leaves, extend, max_leaves=2 ** depth)
