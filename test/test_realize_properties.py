"""Random strategies: the written behavior, read back, is exactly the strategy (hypothesis)."""

from __future__ import annotations

import py_compile

from hypothesis import given, settings
from hypothesis import strategies as st

from bdi_supervisor.catalog.model import Capability, Catalog, Parameter
from bdi_supervisor.realize.flexbe import generate_package
from bdi_supervisor.realize.machine import build_machine
from bdi_supervisor.realize.reader import read_behavior
from bdi_supervisor.spec.gr1 import Variable
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState

FINISHED = "finished"


@st.composite
def problems(draw):
    """A catalog, and a strategy as nodes (capability index or FINISHED) with labelled edges."""
    k = draw(st.integers(1, 4))
    caps = {}
    for i in range(k):
        fails = draw(st.booleans())
        flexbe = {f"ok{i}": "completed"}
        if fails:
            flexbe.update({f"bad{i}": "failure"})
            if draw(st.booleans()):
                flexbe[f"timeout{i}"] = "failure"  # two FlexBE outcomes, one normalized
        outcomes = ("completed", "failure") if fails else ("completed",)
        levels = {o: draw(st.integers(0, 3)) for o in flexbe}
        caps[f"c{i}"] = Capability(f"c{i}", "LogState", (Parameter("text", f"cap {i}"),),
                                   outcomes=outcomes, flexbe_outcomes=flexbe, autonomy=levels)
    catalog = Catalog("random", caps, sm_outcome_mappings={FINISHED: FINISHED})
    n = draw(st.integers(1, 8))
    kinds = [draw(st.integers(0, k - 1))] + [draw(st.one_of(st.integers(0, k - 1),
                                                             st.just(FINISHED)))
                                             for _ in range(n - 1)]
    edges = {}
    for node, kind in enumerate(kinds):
        if kind == FINISHED:
            edges[node] = [({}, node)]
            continue
        cap = caps[f"c{kind}"]
        edges[node] = [({f"c{kind}_{o[0]}": True}, draw(st.integers(0, n - 1)))
                       for o in cap.outcomes]
    return catalog, kinds, edges


def _strategy(catalog, kinds, edges):
    ins = sorted(f"{c}_{o[0]}" for c, cap in catalog.capabilities.items() for o in cap.outcomes)
    outs = sorted([f"{c}_a" for c in catalog.capabilities] + [FINISHED])
    variables = [Variable(v, "env") for v in ins] + [Variable(v, "sys") for v in outs]
    states = []
    for node, kind in enumerate(kinds):
        active = FINISHED if kind == FINISHED else f"c{kind}_a"
        states.append(StrategyState(node, {v: False for v in ins}, {v: v == active for v in outs},
                                    [t for _, t in edges[node]], 0, node == 0))
    return Strategy(variables, states, "random")


def _oracle(catalog, kinds, edges):
    """Reachable capability nodes from node 0 and their FlexBE wiring, computed directly."""
    def name(node):
        return FINISHED if kinds[node] == FINISHED else f"{node}_c{kinds[node]}"

    seen, todo, expected = set(), [0], {}
    while todo:
        node = todo.pop()
        if node in seen or kinds[node] == FINISHED:
            continue
        seen.add(node)
        cap = catalog.capabilities[f"c{kinds[node]}"]
        by_outcome = {}
        for label, target in edges[node]:
            (prop,) = label
            by_outcome[prop[-1]] = target
            todo.append(target)
        expected[name(node)] = {f: name(by_outcome[n[0]]) for f, n in cap.flexbe_outcomes.items()}
    return expected


@settings(max_examples=150, deadline=None)
@given(problems())
def test_written_behavior_is_the_strategy(problem):
    catalog, kinds, edges = problem
    machine = build_machine(_strategy(catalog, kinds, edges), catalog, edges=edges)
    source = generate_package(machine, "Random", date="2026-12-02").module_source
    compile(source, "<generated>", "exec")
    read = read_behavior(source)
    assert read.classes == ["RandomSM"]
    assert read.initial == f"0_c{kinds[0]}"
    assert {s.name: s.transitions for s in read.states} == _oracle(catalog, kinds, edges)
    for state in read.states:
        cap = catalog.capabilities[f"c{state.name.split('_c')[1]}"]
        assert state.autonomy == cap.autonomy
        assert state.parameters == {"text": cap.parameters[0].value}
    assert read.outcomes == [FINISHED]


def test_py_compile_of_written_file(tmp_path):
    catalog = Catalog("one", {"c0": Capability("c0", "LogState", (Parameter("text", "x"),),
                                               flexbe_outcomes={"done": "completed"})})
    strategy = Strategy([Variable("c0_c", "env"), Variable("c0_a", "sys")], [
        StrategyState(0, {"c0_c": False}, {"c0_a": True}, [1], 0, True),
        StrategyState(1, {"c0_c": True}, {"c0_a": True}, [1])], "one")
    source = generate_package(build_machine(strategy, catalog), "One").module_source
    path = tmp_path / "one_sm.py"
    path.write_text(source)
    py_compile.compile(str(path), doraise=True)
