"""Explicit-state oracle for well-separation (tests only; independent of the BDD code).

States are enumerated valuations; formulas are evaluated with ``formula.evaluate``. The games are
solved from the *environment's* side: the environment wins a state iff it can keep its safety
forever and satisfy every liveness clause infinitely often against a system with trivial
guarantees (a generalized Büchi game, ``nu Z. AND_i mu Y. EPre((a_i & Z') | Y')``); the system's
winning region is the complement (determinacy). The package solves the system's side with
BDDs, so agreement is a real check. Turn order is slugs': the environment picks the next input,
then the system the next output.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from bdi_supervisor.spec.formula import evaluate, variables
from bdi_supervisor.spec.gr1 import GR1Spec
from support.synthesis_checker import components

SECTIONS = ("env_init", "env_safety", "env_liveness")


def valuations(variables) -> list[dict]:
    names = [v.name for v in variables]
    ranges = [[bool(k) for k in (0, 1)] if v.kind == "bool" else list(v.values) for v in variables]
    return [dict(zip(names, combo)) for combo in itertools.product(*ranges)]


def _key(state: dict) -> tuple:
    return tuple(sorted((k, int(v)) for k, v in state.items()))


@dataclass
class Explicit:
    """The explicit game of a spec's env part (optionally only the assumptions ``keep``)."""

    spec: GR1Spec
    keep: frozenset[int] | None = None

    def __post_init__(self) -> None:
        clauses = {s: [] for s in SECTIONS}
        index = 0
        for section in SECTIONS:
            for clause in self.spec.section(section):
                if self.keep is None or index in self.keep:
                    clauses[section].append(clause.formula)
                index += 1
        self.clauses = clauses
        self.xs = valuations(self.spec.inputs)
        self.ys = valuations(self.spec.outputs)
        self.live = clauses["env_liveness"] or [None]
        self._ok: dict = {}
        outputs = {v.name for v in self.spec.outputs}
        self.reads_next_outputs = any(var.primed and var.name in outputs
                                      for f in clauses["env_safety"] for var in variables(f))

    @property
    def states(self) -> list[tuple[int, int]]:
        return [(i, j) for i in range(len(self.xs)) for j in range(len(self.ys))]

    def legal(self, s, x: int) -> bool:
        """Some next output makes next input ``x`` env-safe from ``s``."""
        if not self.reads_next_outputs:
            return self.ok(s, (x, 0))
        return any(self.ok(s, (x, y)) for y in range(len(self.ys)))

    def state(self, s: tuple[int, int]) -> dict:
        return {**self.xs[s[0]], **self.ys[s[1]]}

    def index(self, state: dict) -> tuple[int, int]:
        x = {v.name: state[v.name] for v in self.spec.inputs}
        y = {v.name: state[v.name] for v in self.spec.outputs}
        return (next(i for i, v in enumerate(self.xs) if _key(v) == _key(x)),
                next(j for j, v in enumerate(self.ys) if _key(v) == _key(y)))

    def initial(self, s) -> bool:
        return all(evaluate(f, self.state(s)) for f in self.clauses["env_init"])

    def ok(self, s, t) -> bool:
        """The move s -> t satisfies env safety."""
        key = (s, t)
        if key not in self._ok:
            cur, nxt = self.state(s), self.state(t)
            self._ok[key] = all(evaluate(f, cur, nxt) for f in self.clauses["env_safety"])
        return self._ok[key]

    def holds(self, i: int, s, t) -> bool:
        f = self.live[i]
        return True if f is None else bool(evaluate(f, self.state(s), self.state(t)))

    # ------------------------------------------------------------ games

    def epre(self, edge) -> set:
        """States where some next input makes every next output an env-safe move in ``edge``."""
        result = set()
        for s in self.states:
            for x in range(len(self.xs)):
                if all(self.ok(s, (x, y)) and edge(s, (x, y)) for y in range(len(self.ys))):
                    result.add(s)
                    break
        return result

    def env_wins(self, justice: bool = True) -> set:
        live = range(len(self.live)) if justice else [None]
        z = set(self.states)
        while True:
            new_z = set(self.states)
            for i in live:
                y: set = set()
                while True:
                    def edge(s, t, i=i, y=y, z=z):
                        return t in y or (t in z and (i is None or self.holds(i, s, t)))
                    new_y = self.epre(edge)
                    if new_y == y:
                        break
                    y = new_y
                new_z &= y
            if new_z == z:
                return z
            z = new_z

    def sys_wins(self, justice: bool = True) -> set:
        return set(self.states) - self.env_wins(justice)

    def reachable(self) -> set:
        frontier = [s for s in self.states if self.initial(s)]
        seen = set(frontier)
        while frontier:
            s = frontier.pop()
            for t in self.states:
                if t not in seen and self.ok(s, t):
                    seen.add(t)
                    frontier.append(t)
        return seen

    def all_initial(self, region: set) -> bool:
        """Every initial input valuation has an output in ``region`` (or making env_init false)."""
        return all(any(not self.initial((x, y)) or (x, y) in region for y in range(len(self.ys)))
                   for x in range(len(self.xs)))


def classify(spec: GR1Spec) -> list[str]:
    """Maoz & Ringert's Algorithm 1 (as slugs implements it) on the explicit game."""
    game = Explicit(spec)
    if not any(game.initial(s) for s in game.states):
        return ["P-all/E-ini"]
    reach = game.reachable()
    cases = []
    win_s = game.sys_wins(justice=False)
    if win_s & reach:
        if game.all_initial(win_s):
            return ["P-all/E-safe"]
        cases.append("P-reach/E-safe")
    win = game.sys_wins()
    if win & reach:
        if game.all_initial(win):
            cases.append("P-all/E-just")
        elif not cases:
            cases.append("P-reach/E-just")
    return cases


def not_separated(spec: GR1Spec, keep, reach: set) -> bool:
    """Assumptions ``keep`` are not well-separated against the pinned set ``reach``."""
    game = Explicit(spec, frozenset(keep))
    if not any(game.initial(s) for s in game.states):
        return True
    return bool(game.sys_wins() & reach)


# ---------------------------------------------------------------- witness replay


def replay(spec: GR1Spec, witness) -> None:
    """Assert that ``witness`` (a :class:`Witness`) really forces its violation on ``spec``."""
    game = Explicit(spec)
    path = [game.index(s) for s in witness.path]
    assert path, "empty path"
    assert game.initial(path[0]), f"path starts outside env_init: {witness.path[0]}"
    for s, t in itertools.pairwise(path):
        assert game.ok(s, t), f"path step violates env safety: {game.state(s)} -> {game.state(t)}"
    assert path[-1] == game.index(witness.state), "path does not end at the witness state"
    assert not witness.truncated, "strategy graph truncated"
    nodes = {n.id: n for n in witness.strategy}
    assert nodes[0].state == witness.state
    edges: dict[int, list[int]] = {k: [] for k in nodes}
    for node in witness.strategy:
        s = game.index(node.state)
        legal = [x for x in range(len(game.xs)) if game.legal(s, x)]
        assert node.stuck == (not legal), f"stuck flag wrong at {node.state}"
        answered = {}
        for move in node.moves:
            xi = next(i for i, v in enumerate(game.xs) if _key(v) == _key(move.inputs))
            yi = next(j for j, v in enumerate(game.ys) if _key(v) == _key(move.outputs))
            answered[xi] = (yi, move.next)
        assert set(answered) == set(legal), (
            f"moves do not cover the admissible inputs at {node.state}")
        for xi, (yi, nxt) in answered.items():
            if nxt is None:
                assert not game.ok(s, (xi, yi)), "a move claimed to violate env safety does not"
                continue
            assert game.ok(s, (xi, yi)), "a move leaves env safety (no successor)"
            assert game.index(nodes[nxt].state) == (xi, yi), "successor state mismatch"
            edges[node.id].append(nxt)
    safety = witness.details["kind"] != "abstract_liveness_trap"
    for component in components(edges):
        internal = [(a, b) for a in component for b in edges[a] if b in component]
        if not internal:
            continue
        assert not safety, f"safety witness has a cycle through {sorted(component)}"
        trapped = any(
            not any(game.holds(i, game.index(nodes[a].state), game.index(nodes[b].state))
                    for a, b in internal)
            for i in range(len(game.live)))
        assert trapped, f"cycle {sorted(component)} satisfies every env liveness clause"
