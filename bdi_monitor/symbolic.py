"""The symbolic product graph of a structure on ``dd.cudd``: preimages, images and
reachability over an :class:`~bdi_monitor.encoding.Encoding`.

The encoding decides the variables and builds the relations: from the explicit tables
(:class:`~bdi_monitor.encoding.TableEncoding`) or from a generator's per-variable rules (the
grid). The temporal relation stays partitioned: the encoding's conjuncts are grouped into
clusters of at most :data:`CLUSTER_LIMIT` BDD nodes, once over all directions and once
cofactored per direction, and every preimage or image is a chain of ``and_exists`` that
quantifies each variable right after the last cluster that mentions it. Modal preimages rename
and quantify only the world bits.

Long fixpoints are accelerated by per-direction closures: a frontier search or an E-until that
has run :data:`CLOSURE_AFTER` steps builds, for every direction d, the reflexive-transitive
closure (I ∪ R_d)* of its one-step relation by iterative squaring (``∃mid. C(cur, mid) ∧ C(mid,
next)`` on a third copy of the state bits, about log₂ of the longest straight run of steps), and
goes on chaining the directions' closures: on the grid a few rounds reach what took about 2n to
5n single steps. A closure larger than :data:`CLOSURE_LIMIT` nodes is given up and the fixpoint
goes on by single steps, so a structure whose closures are large costs at most the squarings.
Closures are used by default where the encoding asks for them (:attr:`Encoding.closures`: the
grid's rules, not a structure's tables, whose squarings over one field per world cost far more
than the steps they save), and with the fixed variable order only: squaring relies on each
third-copy bit sitting beside the next bit it stands for, which CUDD's dynamic reordering does
not keep (on the logistics monitor model, four worlds with reordering, building the closures
took several times as long as the whole launch check without them).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Literal

from bdi_monitor.encoding import Encoding, encoding_of
from bdi_monitor.product import ProductNode, initial_node
from bdi_monitor.structure import RELATIONS, Structure
from bdi_supervisor.bdd import cluster, cudd, exists_and, manager, schedule

__all__ = ["CLOSURE_AFTER", "CLOSURE_LIMIT", "CLUSTER_LIMIT", "SymbolicModel"]

#: the largest cluster of the temporal relation (BDD nodes) built by conjoining its parts
CLUSTER_LIMIT = 5000
#: single steps a fixpoint takes before it builds and uses the per-direction closures
CLOSURE_AFTER = 16
#: the largest per-direction closure (BDD nodes) kept; beyond it the closures are given up
CLOSURE_LIMIT = 100_000


class _Chain:
    """A relation over (current, next) bits as clusters, with the quantification schedules of its
    preimage (next bits) and image (current bits): :func:`bdi_supervisor.bdd.exists_and`."""

    def __init__(self, parts: Sequence[cudd.Function], cur: Sequence[str], nxt: Sequence[str],
                 limit: int) -> None:
        self.clusters = cluster(parts, limit)
        self.cur, self.nxt = list(cur), list(nxt)
        self.pre_steps = schedule(self.clusters, nxt)
        self.image_steps = schedule(self.clusters, cur)

    def pre(self, u: cudd.Function) -> cudd.Function:
        """∃next. u(next) ∧ clusters (u already renamed to the next bits)."""
        return exists_and(u, self.clusters, self.nxt, self.pre_steps)

    def image(self, u: cudd.Function) -> cudd.Function:
        """∃cur. u(cur) ∧ clusters (a function of the next bits)."""
        return exists_and(u, self.clusters, self.cur, self.image_steps)


class SymbolicModel:
    """BDD encoding of G_M with preimage, image and reachability operations."""

    def __init__(self, structure: Structure, bdd: cudd.BDD | None = None,
                 reordering: bool = False, encoding: Encoding | None = None,
                 cluster_limit: int = CLUSTER_LIMIT,
                 check: Callable[[], None] | None = None,
                 closure_after: int | Literal["auto"] | None = "auto",
                 closure_limit: int = CLOSURE_LIMIT) -> None:
        #: called between BDD operations of every long loop; raises to stop the work (a time
        #: budget: :class:`~bdi_supervisor.errors.BudgetExceeded`)
        self.check = check or _no_check
        self.structure = structure
        self.encoding = encoding if encoding is not None else encoding_of(structure)
        enc = self.encoding
        self.bdd = bdd if bdd is not None else manager()
        if closure_after == "auto":
            closure_after = CLOSURE_AFTER if self.encoding.closures else None
        #: single steps before a fixpoint switches to closures (None: never; always None with
        #: dynamic reordering, see the module docstring)
        self.closure_after = None if reordering else closure_after
        self.closure_limit = closure_limit
        self.bdd.configure(reordering=False)
        self.world_bits, self.target_bits = enc.world_bits, enc.target_bits
        self.dir_bits = enc.dir_bits
        self.fields = enc.fields
        self.cur_vars = self.world_bits + enc.state_bits
        self.cur_to_next = {c: n for f in enc.fields for c, n in zip(f.cur, f.nxt)}
        self.next_to_cur = {n: c for c, n in self.cur_to_next.items()}
        #: the third copy of the state bits that closures square through, below each next bit
        self.cur_to_mid = {c: f"{c}_m" for c in self.cur_to_next}
        order = []
        for v in enc.order():
            order.append(v)
            if v in self.next_to_cur:
                order.append(self.cur_to_mid[self.next_to_cur[v]])
        self.bdd.declare(*order)
        self.var_count = len(order)
        self._closures: dict[cudd.Function | None, list[cudd.Function] | None] = {}
        self.w_to_target = dict(zip(self.world_bits, self.target_bits))
        self.target_to_w = dict(zip(self.target_bits, self.world_bits))
        self._build_relations(cluster_limit)
        self._reach: cudd.Function | None = None
        self._labels: dict[str, cudd.Function] = {}
        if reordering:
            self.bdd.configure(reordering=True)

    def _build_relations(self, limit: int) -> None:
        bdd, enc = self.bdd, self.encoding
        state = enc.state_bits
        nxt = [self.cur_to_next[v] for v in state]
        parts = enc.transition(bdd)
        self.chain = _Chain(parts, state, nxt, limit)
        self.enabled = enc.enabled(bdd)
        #: per direction: enabledness and the relation with the direction bits fixed
        self.enabled_by_direction: list[cudd.Function] = []
        self.chains: list[_Chain] = []
        for d in range(self.structure.k):
            values = enc.direction_values(d)
            self.enabled_by_direction.append(self.bdd.let(values, self.enabled)
                                             if values else self.enabled)
            self.chains.append(_Chain([bdd.let(values, p) if values else p for p in parts],
                                      state, nxt, limit))
        self.present = enc.present(bdd)
        self.modal = {r: enc.output(bdd, r) & self.present for r in RELATIONS}
        self.initial = self.node_cube(initial_node(self.structure))

    # -- coding of nodes ------------------------------------------------------------------------
    def world_cube(self, world: int) -> cudd.Function:
        return self.encoding.world_cube(self.bdd, world)

    def node_assignment(self, node: ProductNode) -> dict[str, bool] | None:
        """The current-state variable values of ``node`` (None if it cannot be coded)."""
        return self.encoding.assignment(node)

    def node_cube(self, node: ProductNode) -> cudd.Function:
        values = self.node_assignment(node)
        return self.bdd.false if values is None else self.bdd.cube(values)

    def contains(self, node: ProductNode, u: cudd.Function) -> bool:
        """Is ``node`` in the set ``u``? (one cofactor walk, microseconds)"""
        values = self.node_assignment(node)
        return values is not None and (self.bdd.let(values, u) if values else u) == self.bdd.true

    def decode(self, values: dict[str, bool]) -> ProductNode:
        """The product node of a (complete) current-state assignment."""
        return self.encoding.decode(values)

    def nodes(self, u: cudd.Function, limit: int | None = None) -> list[ProductNode]:
        """Enumerate the product nodes in ``u`` (at most ``limit``)."""
        result = []
        for values in self.bdd.pick_iter(u, care_vars=self.cur_vars):
            result.append(self.decode(values))
            if limit is not None and len(result) >= limit:
                break
        return result

    def count(self, u: cudd.Function) -> int:
        """Number of product nodes in ``u``."""
        return int(self.bdd.count(u, nvars=len(self.cur_vars))) if u != self.bdd.false else 0

    # -- relations ------------------------------------------------------------------------------
    def label(self, proposition: str) -> cudd.Function:
        """Nodes whose current world's state carries ``proposition``."""
        cached = self._labels.get(proposition)
        if cached is None:
            cached = self.encoding.label(self.bdd, proposition)
            self._labels[proposition] = cached
        return cached

    def _rename(self, mapping: dict[str, str], u: cudd.Function) -> cudd.Function:
        return self.bdd.let(mapping, u) if mapping else u

    def pre(self, u: cudd.Function) -> cudd.Function:
        """EX: nodes with a temporal successor in ``u``."""
        x = self.chain.pre(self._rename(self.cur_to_next, u))
        return cudd.and_exists(x, self.enabled, self.dir_bits)

    def pre_along(self, direction: int, u: cudd.Function) -> cudd.Function:
        """Nodes whose successor along ``direction`` (0-based) is in ``u``."""
        x = self.chains[direction].pre(self._rename(self.cur_to_next, u))
        return x & self.enabled_by_direction[direction]

    def image(self, u: cudd.Function, direction: int | None = None) -> cudd.Function:
        """Temporal successors of the nodes in ``u`` (along ``direction`` if given)."""
        if direction is None:
            x = self.chain.image(u & self.enabled)
            x = self.bdd.exist(self.dir_bits, x) if self.dir_bits else x
        else:
            x = self.chains[direction].image(u & self.enabled_by_direction[direction])
        return self._rename(self.next_to_cur, x)

    def modal_pre(self, relation: str, u: cudd.Function) -> cudd.Function:
        """⟨X⟩: nodes with an X-successor in ``u``."""
        if not self.world_bits:
            return cudd.and_exists(u, self.modal[relation], [])
        return cudd.and_exists(self._rename(self.w_to_target, u), self.modal[relation],
                               self.target_bits)

    def modal_image(self, relation: str, u: cudd.Function) -> cudd.Function:
        """X-successors of the nodes in ``u``."""
        if not self.world_bits:
            return u & self.modal[relation]
        x = cudd.and_exists(u, self.modal[relation], self.world_bits)
        return self._rename(self.target_to_w, x)

    @property
    def reachable(self) -> cudd.Function:
        """R: nodes reachable from u₀ over temporal and modal edges (frontier search, chaining
        the directions: each direction's image is taken from the set grown by the previous;
        after :attr:`closure_after` rounds, each direction's closure instead of one step)."""
        if self._reach is None:
            reach = frontier = self.initial
            closures, rounds = None, 0
            while frontier != self.bdd.false:
                self.check()
                if rounds == self.closure_after:
                    closures = self.closures()
                rounds += 1
                new = frontier
                for d in range(self.structure.k):
                    new |= (self.image(new, d) if closures is None
                            else self.image_closed(closures[d], new))
                for relation in RELATIONS:
                    new |= self.modal_image(relation, new)
                frontier = new & ~reach
                reach |= frontier
            self._reach = reach
        return self._reach

    # -- closures -------------------------------------------------------------------------------
    def closures(self, within: cudd.Function | None = None) -> list[cudd.Function] | None:
        """Per direction d, (I ∪ R_d)* over (w, current bits, next bits), where R_d is the
        d-step relation from the nodes of ``within`` (all nodes if None); None when one of them
        outgrows :attr:`closure_limit` (cached either way)."""
        if within not in self._closures:
            result: list[cudd.Function] | None = []
            for d in range(self.structure.k):
                closure = self._closure(d, within)
                if closure is None:
                    result = None
                    break
                result.append(closure)
            self._closures[within] = result
        return self._closures[within]

    def _closure(self, direction: int, within: cudd.Function | None) -> cudd.Function | None:
        bdd = self.bdd
        step = self.enabled_by_direction[direction]
        if within is not None:
            step &= within
        for part in self.chains[direction].clusters:
            step &= part
            if step.dag_size > self.closure_limit:
                return None
        identity = bdd.true
        for c, n in self.cur_to_next.items():
            identity &= bdd.var(c).equiv(bdd.var(n))
        closure = identity | step
        mids = list(self.cur_to_mid.values())
        next_to_mid = {n: self.cur_to_mid[c] for c, n in self.cur_to_next.items()}
        while True:
            self.check()
            first = bdd.let(next_to_mid, closure)
            then = bdd.let(self.cur_to_mid, closure)
            squared = cudd.and_exists(first, then, mids)
            if squared == closure:
                return closure
            if squared.dag_size > self.closure_limit:
                return None
            closure = squared

    def pre_closed(self, closure: cudd.Function, u: cudd.Function) -> cudd.Function:
        """Nodes with a path in ``closure`` (one direction's closure) to a node of ``u``."""
        return cudd.and_exists(self._rename(self.cur_to_next, u), closure,
                               list(self.next_to_cur))

    def image_closed(self, closure: cudd.Function, u: cudd.Function) -> cudd.Function:
        """Nodes reached from ``u`` by a path in ``closure``."""
        x = cudd.and_exists(u, closure, list(self.cur_to_next))
        return self._rename(self.next_to_cur, x)

    def peak_nodes(self) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return int(self.bdd.statistics()["peak_live_nodes"])


def _no_check() -> None:
    """No budget."""
