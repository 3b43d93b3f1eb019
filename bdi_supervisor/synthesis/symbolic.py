"""Symbolic encoding of a GR(1) specification on CUDD (``dd.cudd``): the game arena.

This module turns a :class:`~bdi_supervisor.spec.gr1.GR1Spec` into BDDs; it knows nothing about
winning conditions' fixpoints (those are in :mod:`bdi_supervisor.synthesis.gr1`). It is shared by
synthesis and the well-separation analysis.

Bit encoding (slugs'): a Boolean ``a`` is one BDD variable ``a`` (current) and ``a'`` (next). An
integer ``x:low...high`` has ``b`` bits, the fewest with ``2**b > high - low``, named ``x@0`` …
``x@(b-1)`` (LSB first) plus their primed copies, and encodes ``value - low``. When the range is
not a power of two, *range limits* ``x <= high`` are conjoined to the owner's initial condition
and to its transition relation on the current and the next state (slugs' "thorough" mode).
Integer arithmetic in formulas is exact (no overflow: sums grow a carry bit), as in slugs'
compiler. The BDD variable order is interleaved: for each variable in the chosen declaration
order, for each bit, the current bit then its primed copy; each such pair is one group for
CUDD's dynamic reordering (sifting moves the pair as a unit, which halves its work and keeps
renaming between current and next bits cheap).

API (everything a fixpoint algorithm needs; all sets are ``dd.cudd.Function``)::

    game = build_game(spec, order="as-written", seed=0, reordering=True)
    game.bdd                         # the manager
    game.env_init, game.sys_init     # over current bits (range limits included)
    game.env_trans, game.sys_trans   # monolithic safety relations (current + next bits)
    game.env_parts, game.sys_parts   # the same, as clustered conjunctive partitions
    game.env_live, game.sys_live     # liveness clauses, over current + next bits
    game.prime(u), game.unprime(u)   # rename current <-> next
    game.cpre(paths)      # sys forces: A x'. env_trans -> E y'. sys_trans & paths
    game.cpre_states(z)   # cpre(prime(z))
    game.upre(paths)      # env forces: E x'. env_trans & A y'. sys_trans -> paths
    game.env_moves(paths)   # the same before E x' (the environment's moves)
    game.variant(sys_parts=...)   # the arena with some sections replaced
    game.pre_exists(paths)  # some joint move: E x' y'. env_trans & sys_trans & paths
    game.image(states)    # joint successors (current bits)
    game.encode(formula)  # any formula over declared variables
    game.decode(assignment, primed=False)   # bits -> {name: bool | int}
    game.assignment(values, primed=False)   # {name: value} -> bits
    game.state_cube(values)                 # BDD of one (partial) valuation

``paths`` arguments are transition predicates (current + next bits); targets given as states
are primed first. Partitioned relations are used with early quantification: the existential
quantification of next outputs is interleaved with the conjunction of the clusters
(``and_exists``), and the universal quantification of next inputs with the disjunction of the
negated env clusters (``or_forall``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from bdi_supervisor.bdd import cluster, conjoin, cudd, exists_and, manager, schedule
from bdi_supervisor.errors import InputError
from bdi_supervisor.options import ORDERS
from bdi_supervisor.spec.formula import Compare, FormulaFold, Node, Num, Var
from bdi_supervisor.spec.gr1 import Clause, GR1Spec, Variable

Function = cudd.Function

#: called between BDD operations of the encoding; raises to stop it (e.g. ``Budget.check``)
Check = Callable[[], None]

#: clusters of the transition relations grow until their BDD passes this many nodes
DEFAULT_CLUSTER_NODES = 20000
#: how much CUDD's sifting lets the BDDs grow while it moves a variable (CUDD's default: 1.2).
#: Most of a mission's solve is spent in dynamic reordering; a tighter bound makes each
#: reordering cheaper and, on the shipped missions, the whole solve faster (docs/performance.md).
#: Over every state (``--all-states``) CUDD's 1.2 was the faster bound on the quadcopter's
#: one-hot Fair-Outcome + pending spec; inside the reachable states it no longer is. An option
#: (``--max-growth``)
MAX_GROWTH = 1.05


def bit_names(var: Variable) -> list[str]:
    """Current-state BDD variable names of ``var`` (LSB first)."""
    if var.kind == "bool":
        return [var.name]
    return [f"{var.name}@{k}" for k in range(var.bits)]


def primed_name(bit: str) -> str:
    return bit + "'"


def ordered_variables(spec: GR1Spec, order: str = "as-written", seed: int = 0) -> list[Variable]:
    """The declaration order used for the BDD: as written, alphabetic, or shuffled by ``seed``."""
    variables = list(spec.variables)
    if order == "as-written":
        return variables
    if order == "alphabetic":
        return sorted(variables, key=lambda v: v.name)
    if order == "random":
        import random  # only for this order (it imports hashlib)

        random.Random(seed).shuffle(variables)
        return variables
    raise InputError("unknown declaration order", key="order", found=repr(order),
                     expected=" | ".join(ORDERS))


@dataclass
class _Term:
    """An integer term: ``value(bits) + const``, bits unsigned LSB first."""

    bits: list[Function]
    const: int


@dataclass
class SymbolicGame:
    """The BDD arena of a GR(1) spec (see the module docstring for the API)."""

    spec: GR1Spec
    bdd: cudd.BDD
    variables: list[Variable]
    bits: dict[str, list[str]]
    pre_in: list[str]
    pre_out: list[str]
    post_in: list[str]
    post_out: list[str]
    env_init: Function = None
    sys_init: Function = None
    env_parts: list[Function] = field(default_factory=list)
    sys_parts: list[Function] = field(default_factory=list)
    env_live: list[Function] = field(default_factory=list)
    sys_live: list[Function] = field(default_factory=list)
    cluster_nodes: int = DEFAULT_CLUSTER_NODES
    #: env safety mentions next outputs: cpre falls back to slugs' literal formula
    env_reads_next_outputs: bool = False
    _env_trans: Function | None = field(default=None, repr=False)
    _sys_trans: Function | None = field(default=None, repr=False)

    # ------------------------------------------------------------ construction

    def __post_init__(self) -> None:
        self._by_name = {v.name: v for v in self.variables}
        self._prime = {b: primed_name(b) for b in self.pre_in + self.pre_out}
        self._unprime = {p: b for b, p in self._prime.items()}
        self.pre_vars = self.pre_in + self.pre_out
        self.post_vars = self.post_in + self.post_out
        self.true = self.bdd.true
        self.false = self.bdd.false

    def finish(self, env_parts: list[Function], sys_parts: list[Function],
               check: Check | None = None) -> None:
        """Cluster the safety partitions and precompute the quantification schedules."""
        self.env_parts = cluster(env_parts, self.cluster_nodes, check)
        self.sys_parts = cluster(sys_parts, self.cluster_nodes, check)
        post_out = set(self.post_out)
        post_in = set(self.post_in)
        env_support = set().union(*(self.bdd.support(p) for p in self.env_parts))
        self.env_reads_next_outputs = bool(post_out & env_support)
        self._sys_schedule = schedule(self.sys_parts, post_out)
        self._env_schedule = schedule(self.env_parts, post_in)
        self._env_negated = [~part for part in self.env_parts]

    def variant(self, *, env_init: Function | None = None, sys_init: Function | None = None,
                env_parts: list[Function] | None = None,
                sys_parts: list[Function] | None = None,
                env_live: list[Function] | None = None,
                sys_live: list[Function] | None = None,
                env_from: SymbolicGame | None = None,
                sys_from: SymbolicGame | None = None) -> SymbolicGame:
        """The same arena (manager, bits, order) with some sections replaced, e.g. a subset of
        the guarantees; the clusters and schedules of a replaced safety side are recomputed,
        the other side's are shared. ``env_parts``/``sys_parts`` are unclustered parts (range
        limits included); ``env_from``/``sys_from``: take that side's safety, clustered, from
        another variant of the same arena instead. An empty liveness list counts as one TRUE
        clause."""
        game = copy.copy(self)
        if env_init is not None:
            game.env_init = env_init
        if sys_init is not None:
            game.sys_init = sys_init
        if env_live is not None:
            game.env_live = list(env_live) or [self.true]
        if sys_live is not None:
            game.sys_live = list(sys_live) or [self.true]
        if sys_parts is not None:
            game.sys_parts = cluster(sys_parts, self.cluster_nodes)
            game._sys_schedule = schedule(game.sys_parts, self.post_out)
            game._sys_trans = None
        if env_parts is not None:
            game.env_parts = cluster(env_parts, self.cluster_nodes)
            support = set().union(*(self.bdd.support(p) for p in game.env_parts))
            game.env_reads_next_outputs = bool(set(self.post_out) & support)
            game._env_schedule = schedule(game.env_parts, self.post_in)
            game._env_negated = [~part for part in game.env_parts]
            game._env_trans = None
        if sys_from is not None:
            game.sys_parts, game._sys_schedule = sys_from.sys_parts, sys_from._sys_schedule
            game._sys_trans = sys_from._sys_trans
        if env_from is not None:
            game.env_parts, game._env_schedule = env_from.env_parts, env_from._env_schedule
            game._env_negated, game._env_trans = env_from._env_negated, env_from._env_trans
            game.env_reads_next_outputs = env_from.env_reads_next_outputs
        return game

    @property
    def env_trans(self) -> Function:
        """The monolithic env safety relation (conjoined on first use)."""
        if self._env_trans is None:
            self._env_trans = conjoin(self.env_parts, self.true)
        return self._env_trans

    @property
    def sys_trans(self) -> Function:
        """The monolithic sys safety relation (conjoined on first use)."""
        if self._sys_trans is None:
            self._sys_trans = conjoin(self.sys_parts, self.true)
        return self._sys_trans

    def within_sys(self, u: Function) -> Function:
        """``u & sys_trans``, conjoined cluster by cluster (cheap when ``u`` is small)."""
        return conjoin(self.sys_parts, u)

    def within_env(self, u: Function) -> Function:
        """``u & env_trans``, conjoined cluster by cluster (cheap when ``u`` is small)."""
        return conjoin(self.env_parts, u)

    def admissible(self, states: Function) -> Function:
        """The (state, next input) pairs of ``states`` (current bits) that the environment may
        take: ``states & E y'. env_trans``."""
        pairs = self.within_env(states)
        return self.exists(self.post_out, pairs) if self.env_reads_next_outputs else pairs

    # ------------------------------------------------------------ renaming

    def prime(self, u: Function) -> Function:
        """Rename current bits to next bits (``u`` must not mention next bits); a spec without
        variables has nothing to rename (and ``dd`` warns on an empty renaming)."""
        return self.bdd.let(self._prime, u) if self._prime else u

    def unprime(self, u: Function) -> Function:
        """Rename next bits to current bits (``u`` must not mention current bits)."""
        return self.bdd.let(self._unprime, u) if self._unprime else u

    # ------------------------------------------------------------ quantifiers

    def exists(self, names: Iterable[str], u: Function) -> Function:
        names = list(names)
        return self.bdd.exist(names, u) if names else u

    def forall(self, names: Iterable[str], u: Function) -> Function:
        names = list(names)
        return self.bdd.forall(names, u) if names else u

    def and_exists(self, u: Function, v: Function, names: Iterable[str]) -> Function:
        """``E names. u & v`` in one pass."""
        return cudd.and_exists(u, v, list(names))

    def sys_exists(self, paths: Function, names: set[str] | None = None) -> Function:
        """``E y'. sys_trans & paths`` (or over ``names``), clusters with early quantification."""
        if names is None:
            return exists_and(paths, self.sys_parts, self.post_out, self._sys_schedule)
        return exists_and(paths, self.sys_parts, names)

    # ------------------------------------------------------------ predecessors

    def cpre(self, paths: Function) -> Function:
        """States from which the system forces a transition into ``paths`` (slugs' semantics).

        ``A x'. env_trans -> E y'. sys_trans & paths``: every admissible next input has an
        answer satisfying the system's safety and ``paths``.
        """
        if self.env_reads_next_outputs:
            moves = ~self.env_trans | (self.sys_trans & paths)
            return self.forall(self.post_in, self.exists(self.post_out, moves))
        result = self.sys_exists(paths)
        if not self.env_parts:
            return self.forall(self.post_in, result)
        # the schedule quantifies every next input (those no cluster mentions with the first)
        for negated, qvars in zip(self._env_negated, self._env_schedule):
            result = cudd.or_forall(negated, result, qvars) if qvars else negated | result
        return result

    def cpre_states(self, target: Function) -> Function:
        return self.cpre(self.prime(target))

    def upre(self, paths: Function) -> Function:
        """States from which the environment forces ``paths``.

        ``E x'. env_trans & A y'. (sys_trans -> paths)``; the system losing its own safety
        counts as the environment's success.
        """
        if self.env_reads_next_outputs:  # slugs' literal formula
            moves = self.env_trans & (~self.sys_trans | paths)
            return self.exists(self.post_in, self.forall(self.post_out, moves))
        escape = self.sys_exists(~paths)  # some safe answer leaves paths
        return exists_and(~escape, self.env_parts, self.post_in, self._env_schedule)

    def env_moves(self, paths: Function) -> Function:
        """The (state, next input) pairs with which the environment forces ``paths``: the input
        is admissible and every safe answer of the system lies in ``paths`` (over current bits
        and next inputs; ``upre`` is its projection on the current bits)."""
        if self.env_reads_next_outputs:
            return self.forall(self.post_out, self.env_trans & (~self.sys_trans | paths))
        return self.within_env(~self.sys_exists(~paths))

    def pre_exists(self, paths: Function) -> Function:
        """States with some joint move (both players' safety) into ``paths``."""
        return self.sys_exists(paths & self.env_trans, set(self.post_vars))

    def image(self, states: Function) -> Function:
        """Joint successors of ``states`` (over current bits): the moves that keep both
        players' safety, conjoined cluster by cluster with early quantification of the current
        bits (the monolithic relations are never built)."""
        parts = self.env_parts + self.sys_parts
        return self.unprime(exists_and(states, parts, self.pre_vars))

    # ------------------------------------------------------------ formulas

    def encode(self, formula: Node, clause: Clause | None = None) -> Function:
        """The BDD of ``formula`` (over current and next bits)."""
        try:
            return _Encoder(self).formula(formula)
        except InputError as error:
            if clause is not None and clause.origin.source == "file":
                raise error.at(file=clause.origin.file, line=clause.origin.line) from None
            raise

    def _bit(self, name: str, index: int, primed: bool) -> Function:
        bit = self.bits[name][index]
        return self.bdd.var(primed_name(bit) if primed else bit)

    def _lookup(self, name: str) -> Variable:
        var = self._by_name.get(name)
        if var is None:
            raise InputError("undeclared variable", found=repr(name),
                             expected="a variable of [INPUT] or [OUTPUT]")
        return var

    def _add(self, a: list[Function], b: list[Function]) -> list[Function]:
        """Ripple-carry sum of two unsigned bit vectors (one bit wider than the wider one)."""
        if not a:
            return list(b)
        if not b:
            return list(a)
        width = max(len(a), len(b))
        a = a + [self.false] * (width - len(a))
        b = b + [self.false] * (width - len(b))
        carry = self.false
        out = []
        for x, y in zip(a, b):
            half = _xor(x, y)
            out.append(_xor(half, carry))
            carry = (x & y) | (carry & half)
        out.append(carry)
        return out

    def _constant(self, value: int) -> list[Function]:
        bits = []
        while value:
            bits.append(self.true if value & 1 else self.false)
            value >>= 1
        return bits

    def _compare(self, op: str, left: _Term, right: _Term) -> Function:
        offset = left.const - right.const
        a, b = left.bits, right.bits
        if offset > 0:
            a = self._add(a, self._constant(offset))
        elif offset < 0:
            b = self._add(b, self._constant(-offset))
        width = max(len(a), len(b))
        a = a + [self.false] * (width - len(a))
        b = b + [self.false] * (width - len(b))
        if op in ("=", "!="):
            equal = self.true
            for x, y in zip(a, b):
                equal &= x.equiv(y)
            return equal if op == "=" else ~equal
        if op in (">", ">="):
            a, b = b, a
            op = "<" if op == ">" else "<="
        # a < b (or a <= b), scanning from the LSB up
        result = self.true if op == "<=" else self.false
        for x, y in zip(a, b):
            result = (~x & y) | (x.equiv(y) & result)
        return result

    # ------------------------------------------------------------ ranges

    def limit(self, var: Variable, primed: bool = False) -> Function:
        """``low <= var <= high`` on the bits (TRUE when the range fills its bits)."""
        if var.kind == "bool" or (1 << var.bits) == var.high - var.low + 1:
            return self.true
        return _Encoder(self).formula(Compare("<=", Var(var.name, primed), Num(var.high)))

    # ------------------------------------------------------------ valuations

    def decode(self, assignment: dict[str, bool], primed: bool = False,
               names: Sequence[str] | None = None) -> dict[str, bool | int]:
        """Named values of an assignment to (current or next) bits; missing bits count as 0."""
        result: dict[str, bool | int] = {}
        for var in self.variables if names is None else [self._by_name[n] for n in names]:
            bits = self.bits[var.name]
            if primed:
                bits = [primed_name(b) for b in bits]
            if var.kind == "bool":
                result[var.name] = bool(assignment.get(bits[0], False))
            else:
                result[var.name] = var.low + sum(
                    1 << k for k, b in enumerate(bits) if assignment.get(b, False))
        return result

    def assignment(self, values: dict[str, bool | int], primed: bool = False) -> dict[str, bool]:
        """Bits of a (partial) named valuation."""
        result: dict[str, bool] = {}
        for name, value in values.items():
            var = self._lookup(name)
            bits = self.bits[name]
            if primed:
                bits = [primed_name(b) for b in bits]
            if var.kind == "bool":
                result[bits[0]] = bool(value)
            else:
                code = int(value) - var.low
                for k, bit in enumerate(bits):
                    result[bit] = bool(code >> k & 1)
        return result

    def state_cube(self, values: dict[str, bool | int], primed: bool = False) -> Function:
        return self.bdd.cube(self.assignment(values, primed))

    def names_of(self, owner: str) -> list[str]:
        return [v.name for v in self.variables if v.owner == owner]


# ---------------------------------------------------------------- helpers


class _Encoder(FormulaFold[Function, _Term]):
    """Formulas to BDDs over the bits of ``game`` (current and next)."""

    def __init__(self, game: SymbolicGame) -> None:
        self.game = game

    def const(self, value: bool) -> Function:
        return self.game.true if value else self.game.false

    def var(self, node: Var) -> Function:
        if self.game._lookup(node.name).kind != "bool":
            raise InputError("integer variable used as a proposition",
                             found=repr(node.name), expected="a comparison such as x = 1")
        return self.game._bit(node.name, 0, node.primed)

    def not_(self, arg: Function) -> Function:
        return ~arg

    def and_(self, args: Iterator[Function]) -> Function:
        result = self.game.true
        for arg in args:
            result &= arg
        return result

    def or_(self, args: Iterator[Function]) -> Function:
        result = self.game.false
        for arg in args:
            result |= arg
        return result

    def xor(self, left: Function, right: Function) -> Function:
        return _xor(left, right)

    def implies(self, left: Function, right: Function) -> Function:
        return ~left | right

    def iff(self, left: Function, right: Function) -> Function:
        return left.equiv(right)

    def compare(self, op: str, left: _Term, right: _Term) -> Function:
        return self.game._compare(op, left, right)

    def num(self, value: int) -> _Term:
        return _Term([], value)

    def int_var(self, node: Var) -> _Term:
        var = self.game._lookup(node.name)
        if var.kind != "int":
            raise InputError("Boolean variable used as an integer", found=repr(node.name),
                             expected="an integer variable or a number")
        return _Term([self.game._bit(node.name, k, node.primed) for k in range(var.bits)],
                     var.low)

    def add(self, left: _Term, right: _Term) -> _Term:
        return _Term(self.game._add(left.bits, right.bits), left.const + right.const)

    def not_a_formula(self, node: Node) -> Function:
        raise InputError("not a formula", found=type(node).__name__,
                         expected="a Boolean formula")

    def not_a_term(self, node: Node) -> _Term:
        raise InputError("not an integer term", found=type(node).__name__,
                         expected="a number, an integer variable or a sum")


def _xor(u: Function, v: Function) -> Function:
    return u.bdd.apply("xor", u, v)


def build_game(spec: GR1Spec, *, order: str = "as-written", seed: int = 0,
               reordering: bool = True, cluster_nodes: int = DEFAULT_CLUSTER_NODES,
               bdd: cudd.BDD | None = None, check: Check | None = None,
               max_growth: float = MAX_GROWTH) -> SymbolicGame:
    """Declare the bits of ``spec`` in a (fresh) CUDD manager and encode all its sections.

    ``check`` is called before every clause and clustering step (a budget raises there);
    ``max_growth`` is CUDD's sifting bound (:data:`MAX_GROWTH`).
    """
    if bdd is None:
        bdd = manager(2 * sum(len(bit_names(v)) for v in spec.variables))
    bdd.configure(reordering=reordering, max_growth=max_growth)
    variables = ordered_variables(spec, order, seed)
    bits: dict[str, list[str]] = {}
    for var in variables:
        if var.kind == "int" and var.high < var.low:
            raise InputError("empty integer range", key=var.name,
                             found=f"{var.low}...{var.high}", expected="low <= high")
        bits[var.name] = bit_names(var)
        for bit in bits[var.name]:
            if bit not in bdd.vars:
                bdd.declare(bit, primed_name(bit))
                bdd.group({bit: 2})  # sifting moves a bit and its primed copy together
    pre_in = [b for v in variables if v.owner == "env" for b in bits[v.name]]
    pre_out = [b for v in variables if v.owner == "sys" for b in bits[v.name]]
    game = SymbolicGame(
        spec=spec, bdd=bdd, variables=variables, bits=bits,
        pre_in=pre_in, pre_out=pre_out,
        post_in=[primed_name(b) for b in pre_in], post_out=[primed_name(b) for b in pre_out],
        cluster_nodes=cluster_nodes,
    )

    def encode_all(clauses: list[Clause]) -> list[Function]:
        encoded = []
        for clause in clauses:
            if check is not None:
                check()
            encoded.append(game.encode(clause.formula, clause))
        return encoded

    env_limits = [v for v in variables if v.owner == "env"]
    sys_limits = [v for v in variables if v.owner == "sys"]
    game.env_init = conjoin(encode_all(spec.env_init)
                             + [game.limit(v) for v in env_limits], game.true)
    game.sys_init = conjoin(encode_all(spec.sys_init)
                             + [game.limit(v) for v in sys_limits], game.true)
    env_parts = [game.limit(v, p) for v in env_limits for p in (False, True)]
    env_parts += encode_all(spec.env_safety)
    sys_parts = [game.limit(v, p) for v in sys_limits for p in (False, True)]
    sys_parts += encode_all(spec.sys_safety)
    game.env_live = encode_all(spec.env_liveness) or [game.true]
    game.sys_live = encode_all(spec.sys_liveness) or [game.true]
    game.finish(env_parts, sys_parts, check)
    return game
