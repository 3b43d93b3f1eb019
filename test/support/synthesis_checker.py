"""Test oracles for synthesis, independent of the BDD code.

- :func:`evaluate` — a formula's value on explicit valuations (the formula module's own,
  re-exported; :func:`evaluate3` is the three-valued variant the enumeration prunes with).
- :func:`check_strategy` — explicit-state check of a Mealy strategy against its spec (slugs'
  semantics): initial states, one successor per admissible next input and none otherwise,
  safety on every edge, and every cycle satisfying all env liveness satisfies all sys liveness.
- :func:`random_specs` — a hypothesis strategy of small well-formed GR(1) specs;
  :func:`compound` its connective step (shared with the parser's round-trip test).
- :func:`components` — strongly connected components of an explicit graph (also used by
  ``ws_oracle``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from hypothesis import strategies as st

from bdi_supervisor.graph import tarjan_scc
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
    evaluate,
    has_prime,
)
from bdi_supervisor.spec.formula import variables as variables_of
from bdi_supervisor.spec.gr1 import Clause, GR1Spec, Variable
from bdi_supervisor.synthesis.strategy import Strategy

_OPS = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _all(clauses, cur, nxt=None) -> bool:
    return all(evaluate(c.formula, cur, nxt) for c in clauses)


def evaluate3(node, cur: dict, nxt: dict):
    """Kleene three-valued evaluation: names missing from ``cur``/``nxt`` are unknown (None)."""
    if isinstance(node, (Const, Num)):
        return node.value
    if isinstance(node, Var):
        return (nxt if node.primed else cur).get(node.name)
    if isinstance(node, Add):
        a, b = evaluate3(node.left, cur, nxt), evaluate3(node.right, cur, nxt)
        return None if a is None or b is None else a + b
    if isinstance(node, Compare):
        a, b = evaluate3(node.left, cur, nxt), evaluate3(node.right, cur, nxt)
        return None if a is None or b is None else _OPS[node.op](a, b)
    if isinstance(node, Not):
        a = evaluate3(node.arg, cur, nxt)
        return None if a is None else not a
    if isinstance(node, (And, Or)):
        values = [evaluate3(a, cur, nxt) for a in node.args]
        absorbing = isinstance(node, Or)
        if absorbing in values:
            return absorbing
        return None if None in values else not absorbing
    a, b = evaluate3(node.left, cur, nxt), evaluate3(node.right, cur, nxt)
    if isinstance(node, Implies):
        if a is False or b is True:
            return True
        return None if a is None or b is None else False
    if a is None or b is None:
        return None
    return (a == b) if isinstance(node, Iff) else (a != b)


def simplify(node, cur: dict):
    """``node`` with the unprimed variables of ``cur`` substituted and constants folded."""
    if isinstance(node, Var):
        return Const(cur[node.name]) if not node.primed and node.name in cur and isinstance(
            cur[node.name], bool) else node
    if isinstance(node, Not):
        arg = simplify(node.arg, cur)
        return Const(not arg.value) if isinstance(arg, Const) else Not(arg)
    if isinstance(node, (And, Or)):
        absorbing = isinstance(node, Or)
        args = []
        for a in node.args:
            a = simplify(a, cur)
            if isinstance(a, Const):
                if a.value == absorbing:
                    return Const(absorbing)
                continue
            args.append(a)
        if not args:
            return Const(not absorbing)
        return args[0] if len(args) == 1 else type(node)(tuple(args))
    if isinstance(node, (Implies, Iff, Xor)):
        a, b = simplify(node.left, cur), simplify(node.right, cur)
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(bool(evaluate(type(node)(a, b), {}, {})))
        if isinstance(node, Implies) and (a == Const(False) or b == Const(True)):
            return Const(True)
        return type(node)(a, b)
    if isinstance(node, Compare):
        value = evaluate3(node, cur, {})
        return Const(value) if value is not None else node
    return node


def solutions(clauses, variables: list[Variable], cur: dict, primed: bool):
    """Valuations of ``variables`` (read primed or not) satisfying every clause, by
    backtracking in declaration order; after each assignment the clauses reading that
    variable are evaluated (three-valued) and prune the branch when False."""
    names = [v.name for v in variables]
    position = {n: k for k, n in enumerate(names)}
    due: list[list] = [[] for _ in range(len(names) + 1)]
    residuals = []
    for clause in clauses:
        formula = simplify(clause.formula, cur) if primed else clause.formula
        if formula == Const(False):
            return
        if formula != Const(True):
            residuals.append(formula)
    for formula in residuals:
        read = [position[v.name] for v in variables_of(formula)
                if v.primed == primed and v.name in position]
        for k in {r + 1 for r in read} or {0}:
            due[k].append(formula)

    def holds(formulas, partial) -> bool:
        view = (cur, partial) if primed else ({**cur, **partial}, {})
        return all(evaluate3(f, *view) is not False for f in formulas)

    def rec(k: int, partial: dict):
        if not holds(due[k], partial):
            return
        if k == len(variables):
            yield dict(partial)
            return
        var = variables[k]
        for value in ([False, True] if var.kind == "bool" else list(var.values)):
            partial[var.name] = value
            yield from rec(k + 1, partial)
            del partial[var.name]

    yield from rec(0, {})


def valuations(variables: list[Variable]):
    """Every valuation of ``variables`` within their declared ranges."""
    domains = [[False, True] if v.kind == "bool" else list(v.values) for v in variables]
    for combo in itertools.product(*domains):
        yield dict(zip((v.name for v in variables), combo))


def components(edges: Mapping[int, Sequence[int]]) -> list[set[int]]:
    """Strongly connected components of ``node -> successors`` (every node a key), by the
    auditor's iterative Tarjan (:func:`bdi_supervisor.graph.tarjan_scc`)."""
    order = list(edges)
    position = {v: k for k, v in enumerate(order)}
    component, count = tarjan_scc([[position[w] for w in edges[v]] for v in order])
    groups: list[set[int]] = [set() for _ in range(count)]
    for k, c in enumerate(component):
        groups[c].add(order[k])
    return groups


def check_strategy(spec: GR1Spec, strategy: Strategy, initial: str = "all",
                   complete_states: int | None = None) -> list[str]:
    """Problems found (empty list: the strategy is winning for ``spec``).

    ``complete_states`` limits the (expensive) enumeration of all admissible inputs to the
    first that many reachable states; every edge is still checked for admissibility, safety
    and liveness."""
    problems: list[str] = []
    inputs, outputs = spec.inputs, spec.outputs
    states = strategy.states
    full = [{**s.inputs, **s.outputs} for s in states]
    for s, val in zip(states, full):
        for var in spec.variables:
            value = val.get(var.name)
            ok = isinstance(value, bool) if var.kind == "bool" else (
                isinstance(value, int) and var.low <= value <= var.high)
            if not ok:
                problems.append(f"state {s.id}: {var.name}={value!r} out of its type")
    if problems:
        return problems
    # initial states
    initial_by_input: dict[tuple, list[int]] = {}
    for s, val in zip(states, full):
        if s.initial:
            if not (_all(spec.env_init, val) and _all(spec.sys_init, val)):
                problems.append(f"initial state {s.id} violates an init condition")
            initial_by_input.setdefault(tuple(sorted(s.inputs.items())), []).append(s.id)
    output_names = {v.name for v in outputs}
    reads_outputs = any(v.name in output_names for c in spec.env_init
                        for v in variables_of(c.formula))
    for x in solutions(spec.env_init, inputs, {}, primed=False):
        if reads_outputs and not all(_all(spec.env_init, {**x, **y}) for y in valuations(outputs)):
            continue  # the system may pick outputs that falsify env_init (vacuous)
        found = initial_by_input.get(tuple(sorted(x.items())), [])
        if not found:
            problems.append(f"no initial state for initial input {x}")
        if initial == "per-input" and len(found) > 1:
            problems.append(f"several initial states for input {x}")
    # reachable part: successors per admissible input, safety on every edge
    reachable = {s.id for s in states if s.initial}
    frontier = list(reachable)
    while frontier:
        sid = frontier.pop()
        for t in states[sid].successors:
            if t not in reachable:
                reachable.add(t)
                frontier.append(t)
    edges: dict[int, list[int]] = {}
    for count, sid in enumerate(sorted(reachable)):
        s, cur = states[sid], full[sid]
        seen = [tuple(sorted(states[t].inputs.items())) for t in s.successors]
        if len(set(seen)) != len(seen):
            problems.append(f"state {sid}: two successors for one input")
        for t in s.successors:
            if not _all(spec.env_safety, cur, full[t]):
                problems.append(f"edge {sid}->{t}: input not admissible")
        if complete_states is None or count < complete_states:
            admissible = [tuple(sorted(x.items()))
                          for x in solutions(spec.env_safety, inputs, cur, primed=True)]
            if sorted(seen) != sorted(admissible):
                problems.append(f"state {sid}: successor inputs {seen} != admissible {admissible}")
        for t in s.successors:
            if not _all(spec.sys_safety, cur, full[t]):
                problems.append(f"edge {sid}->{t} violates sys safety")
        edges[sid] = list(s.successors)
    # liveness: no cycle meeting every env liveness while avoiding some sys goal
    env_live = [c.formula for c in spec.env_liveness] or [Const(True)]
    for j, goal in enumerate(c.formula for c in spec.sys_liveness):
        kept = {s: [t for t in ts if not evaluate(goal, full[s], full[t])]
                for s, ts in edges.items()}
        for members in components(kept):
            inner = [(s, t) for s in members for t in kept[s] if t in members]
            if inner and all(any(evaluate(a, full[s], full[t]) for s, t in inner)
                             for a in env_live):
                problems.append(f"cycle through {sorted(members)[:8]} satisfies all env "
                                f"liveness but never sys liveness {j}")
                break
    return problems


# ---------------------------------------------------------------- random specs


def compound(sub: st.SearchStrategy, max_args: int = 2) -> st.SearchStrategy:
    """One connective over formulas drawn from ``sub`` (``&``/``|`` with 2..``max_args``
    arguments): the recursive step of every random formula strategy here."""
    many = st.lists(sub, min_size=2, max_size=max_args).map(tuple)
    return st.one_of(
        st.builds(Not, sub), st.builds(And, many), st.builds(Or, many),
        st.builds(Xor, sub, sub), st.builds(Implies, sub, sub), st.builds(Iff, sub, sub),
    )


@st.composite
def random_specs(draw, max_bools: int = 2, ints: bool = True) -> GR1Spec:
    """Small well-formed specs: env_safety reads next inputs only, inits read current values."""
    variables: list[Variable] = []
    for owner, prefix in (("env", "e"), ("sys", "s")):
        for k in range(draw(st.integers(1 if owner == "sys" else 0, max_bools))):
            variables.append(Variable(f"{prefix}{k}", owner))
        if ints and draw(st.booleans()):
            low = draw(st.integers(0, 2))
            high = low + draw(st.integers(1, 3))
            variables.append(Variable(f"{prefix}n", owner, "int", low, high))

    def atoms(primed_owners: set[str], unprimed: bool):
        leaves = []
        for var in variables:
            for primed in (False, True):
                if (primed and var.owner not in primed_owners) or (not primed and not unprimed):
                    continue
                if var.kind == "bool":
                    leaves.append(st.just(Var(var.name, primed)))
                else:
                    ref = Var(var.name, primed)
                    leaves.append(st.builds(
                        lambda op, c, r=ref: Compare(op, r, Num(c)),
                        st.sampled_from(["=", "!=", "<", ">="]),
                        st.integers(var.low - 1, var.high + 1)))
                    if var.owner in primed_owners and unprimed:
                        other = Var(var.name, not primed)
                        leaves.append(st.builds(
                            lambda op, r=ref, o=other: Compare(op, Add(r, Num(1)), o),
                            st.sampled_from(["=", "<=", ">"])))
        return st.one_of(leaves) if leaves else st.just(Const(True))

    def formulas(primed_owners: set[str], unprimed: bool = True):
        return st.recursive(atoms(primed_owners, unprimed), compound, max_leaves=4)

    env_only = [v for v in variables if v.owner == "env"]

    def clauses(strategy, n):
        return [Clause(f) for f in draw(st.lists(strategy, max_size=n))]

    spec = GR1Spec(variables=variables, name="random")
    if env_only:
        saved = variables
        variables = env_only
        spec.env_init = clauses(formulas(set()), 1)
        variables = saved
    spec.sys_init = clauses(formulas(set()), 2)
    spec.env_safety = clauses(formulas({"env"}), 2)
    spec.sys_safety = clauses(formulas({"env", "sys"}), 2)
    spec.env_liveness = clauses(formulas({"env", "sys"}), 2)
    spec.sys_liveness = clauses(formulas({"env", "sys"}), 2)
    assert not any(has_prime(c.formula) for c in spec.env_init + spec.sys_init)
    return spec
