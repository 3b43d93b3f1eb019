"""Concrete witnesses: a reachable state, the path to it, and the system's forcing strategy.

The strategy is read off the winning-region fixpoint's path predicates (slugs' order, from
:func:`bdi_supervisor.synthesis.gr1.solve`): in a state, the rank is the first predicate whose
controllable predecessor holds, and every admissible next input gets an answer inside that
predicate. Ranks never increase along a play; a safety witness's ranks strictly decrease down to
states where no next input satisfies env safety, a liveness witness may stay at one rank forever
only on moves where that rank's env liveness clause is false.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bdi_supervisor.separation.record import AssumptionRef, WitnessMove, WitnessNode
from bdi_supervisor.spec.gr1 import Clause
from bdi_supervisor.synthesis.symbolic import Function, SymbolicGame

#: nodes with more admissible next inputs than this are left unexpanded (``truncated``)
MAX_MOVES = 256


def pick_state(game: SymbolicGame, region: Function) -> dict | None:
    """One full state (named values of every variable) of ``region``, or ``None``."""
    if region == game.false:
        return None
    bits = game.bdd.pick(region, care_vars=set(game.pre_vars))
    return game.decode(bits)


def split(game: SymbolicGame, state: dict) -> tuple[dict, dict]:
    """(inputs, outputs) of a named state."""
    inputs = {name: state[name] for name in game.names_of("env")}
    outputs = {name: state[name] for name in game.names_of("sys")}
    return inputs, outputs


def path_to(game: SymbolicGame, layers: list[Function], target: Function) -> list[dict]:
    """States from an initial state to one state of ``target`` (first layer that meets it)."""
    hits = [layer & target for layer in layers]
    depth = next((k for k, hit in enumerate(hits) if hit != game.false), None)
    if depth is None:
        return []
    hit = hits[depth]
    state = pick_state(game, hit)
    path = [state]
    for layer in reversed(layers[:depth]):
        before = layer & game.pre_exists(game.prime(game.state_cube(state)))
        state = pick_state(game, before)
        path.append(state)
    path.reverse()
    return path


@dataclass
class StrategyGraph:
    """The explored forcing strategy (see the module docstring)."""

    nodes: list[WitnessNode] = field(default_factory=list)
    truncated: bool = False


class ForcingStrategy:
    """Positional strategy of the system from the path predicates of a solved game."""

    def __init__(self, game: SymbolicGame, paths: list[Function], assumptions: int,
                 liveness: bool) -> None:
        self.game = game
        self.paths = paths
        self.assumptions = max(1, assumptions)
        self.liveness = liveness
        self._regions: list[Function | None] = [None] * len(paths)

    def region(self, k: int) -> Function:
        if self._regions[k] is None:
            self._regions[k] = self.game.cpre(self.paths[k])
        return self._regions[k]

    def rank(self, cube: Function) -> int | None:
        for k in range(len(self.paths)):
            if cube & self.region(k) != self.game.false:
                return k
        return None

    def explore(self, start: dict, max_nodes: int) -> StrategyGraph:
        """The strategy graph from ``start``, breadth first, at most ``max_nodes`` nodes."""
        game = self.game
        graph = StrategyGraph()
        ids: dict[tuple, int] = {}
        queue: list[dict] = []

        def node_id(state: dict) -> int | None:
            key = tuple(sorted(state.items()))
            if key in ids:
                return ids[key]
            if len(ids) >= max_nodes:
                graph.truncated = True
                return None
            ids[key] = len(ids)
            queue.append(state)
            return ids[key]

        node_id(start)
        while queue:
            state = queue.pop(0)
            cube = game.state_cube(state)
            k = self.rank(cube)
            node = WitnessNode(id=ids[tuple(sorted(state.items()))], state=state,
                               rank=-1 if k is None else k,
                               assumption=(k % self.assumptions) if self.liveness and k is not None
                               else None,
                               stuck=False)
            graph.nodes.append(node)
            if k is None:
                continue
            legal = game.exists(game.pre_vars + game.post_out,
                                cube & game.env_trans & game.sys_trans)
            node.stuck = legal == game.false
            if game.bdd.count(legal, nvars=len(game.post_in)) > MAX_MOVES:
                graph.truncated = True
                continue
            for bits in game.bdd.pick_iter(legal, care_vars=set(game.post_in)):
                inputs = game.decode(bits, primed=True, names=game.names_of("env"))
                moves = cube & game.state_cube(inputs, primed=True) & game.sys_trans
                violate = moves & ~game.env_trans
                if game.env_reads_next_outputs and violate != game.false:
                    answer = pick_move(game, violate)
                    node.moves.append(WitnessMove(inputs, answer, None))
                    continue
                answer = pick_move(game, moves & game.env_trans & self.paths[k])
                successor = {**inputs, **answer}
                target = node_id(successor)
                node.moves.append(WitnessMove(inputs, answer, target))
        graph.nodes.sort(key=lambda n: n.id)
        return graph


def pick_move(game: SymbolicGame, moves: Function) -> dict:
    answers = game.exists(game.pre_vars + game.post_in, moves)
    bits = game.bdd.pick(answers, care_vars=set(game.post_out)) or {}
    return game.decode(bits, primed=True, names=game.names_of("sys"))


def constraining(game: SymbolicGame, nodes: list[WitnessNode],
                 safety: list[tuple[AssumptionRef, Clause]]) -> list[AssumptionRef]:
    """The env safety clauses that forbid some next input in some node of the strategy."""
    cubes = [game.state_cube(n.state) for n in nodes]
    found = []
    for ref, clause in safety:
        forbidden = ~game.encode(clause.formula, clause)
        if any(cube & forbidden != game.false for cube in cubes):
            found.append(ref)
    return found


def kept_false(nodes: list[WitnessNode]) -> set[int]:
    """Env liveness indices kept false on moves that stay at the same rank (the trap's)."""
    by_id = {n.id: n for n in nodes}
    found = set()
    for node in nodes:
        for move in node.moves:
            nxt = by_id.get(move.next) if move.next is not None else None
            if nxt is not None and nxt.rank == node.rank and node.assumption is not None:
                found.add(node.assumption)
    return found
