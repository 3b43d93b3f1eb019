"""Formula syntax trees for GR(1) specifications.

Formulas are immutable trees; primes (next-state references) live on :class:`Var` leaves, so
``next(a & b)`` and ``a' & b'`` are the same tree. Integer terms (:class:`Num`, :class:`Add`,
integer-typed :class:`Var`) appear only under :class:`Compare`. Type checking against variable
declarations is done by :mod:`bdi_supervisor.spec.gr1`, not here.

Never build formulas by string surgery: construct trees, or parse text with
:mod:`bdi_supervisor.spec.structuredslugs`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

COMPARE_OPS = ("=", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True)
class Const:
    """``TRUE`` or ``FALSE``."""

    value: bool


@dataclass(frozen=True)
class Var:
    """A variable reference; ``primed`` means its value in the next step."""

    name: str
    primed: bool = False


@dataclass(frozen=True)
class Num:
    """An integer literal (only inside comparisons and sums)."""

    value: int


@dataclass(frozen=True)
class Add:
    """Integer sum ``left + right``."""

    left: Term
    right: Term


@dataclass(frozen=True)
class Compare:
    """Integer comparison ``left op right`` with ``op`` in :data:`COMPARE_OPS`."""

    op: str
    left: Term
    right: Term


@dataclass(frozen=True)
class Not:
    """Negation ``!arg``."""

    arg: Formula


@dataclass(frozen=True)
class And:
    """Conjunction of two or more formulas."""

    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    """Disjunction of two or more formulas."""

    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Xor:
    """Exclusive or ``left ^ right``."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Implies:
    """Implication ``left -> right``."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Iff:
    """Equivalence ``left <-> right``."""

    left: Formula
    right: Formula


Term = Var | Num | Add
Formula = Const | Var | Compare | Not | And | Or | Xor | Implies | Iff
Node = Formula | Num | Add

TRUE = Const(True)
FALSE = Const(False)


# ---------------------------------------------------------------- constructors


def conj(parts: Iterable[Formula]) -> Formula:
    """Conjunction of ``parts``, flattened; ``TRUE`` when empty, the part itself when single."""
    items: list[Formula] = []
    for part in parts:
        items.extend(part.args if isinstance(part, And) else (part,))
    if not items:
        return TRUE
    return items[0] if len(items) == 1 else And(tuple(items))


def disj(parts: Iterable[Formula]) -> Formula:
    """Disjunction of ``parts``, flattened; ``FALSE`` when empty, the part itself when single."""
    items: list[Formula] = []
    for part in parts:
        items.extend(part.args if isinstance(part, Or) else (part,))
    if not items:
        return FALSE
    return items[0] if len(items) == 1 else Or(tuple(items))


def neg(formula: Formula) -> Formula:
    """Negation that removes a double negation (``!!a`` is ``a``)."""
    return formula.arg if isinstance(formula, Not) else Not(formula)


def eq(name: str, value: int, primed: bool = False) -> Compare:
    """``name = value`` (``name' = value`` when primed)."""
    return Compare("=", Var(name, primed), Num(value))


# ---------------------------------------------------------------- traversal


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-trees of ``node``."""
    if isinstance(node, (Const, Var, Num)):
        return ()
    if isinstance(node, Not):
        return (node.arg,)
    if isinstance(node, (And, Or)):
        return node.args
    if isinstance(node, (Xor, Implies, Iff, Add, Compare)):
        return (node.left, node.right)
    raise TypeError(f"not a formula node: {node!r}")


def walk(node: Node) -> Iterator[Node]:
    """All nodes of the tree, pre-order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def expected_kinds(node: Node) -> Iterator[tuple[Var, str]]:
    """Every variable occurrence of ``node`` with the kind its place asks for: ``int`` inside a
    comparison or sum, ``bool`` elsewhere (the type checks of specs and catalogs)."""
    in_compare = {id(v) for n in walk(node) if isinstance(n, Compare)
                  for v in walk(n) if isinstance(v, Var)}
    for n in walk(node):
        if isinstance(n, Var):
            yield n, "int" if id(n) in in_compare else "bool"


def variables(node: Node) -> set[Var]:
    """The variable leaves (with their prime flag) occurring in ``node``."""
    return {n for n in walk(node) if isinstance(n, Var)}


def has_prime(node: Node) -> bool:
    return any(v.primed for v in variables(node))


def map_vars(node: Node, fn: Callable[[Var], Node]) -> Node:
    """Rebuild ``node`` with every :class:`Var` leaf replaced by ``fn(leaf)``."""
    if isinstance(node, Var):
        return fn(node)
    if isinstance(node, (Const, Num)):
        return node
    if isinstance(node, Not):
        return Not(map_vars(node.arg, fn))
    if isinstance(node, And):
        return And(tuple(map_vars(a, fn) for a in node.args))
    if isinstance(node, Or):
        return Or(tuple(map_vars(a, fn) for a in node.args))
    if isinstance(node, Compare):
        return Compare(node.op, map_vars(node.left, fn), map_vars(node.right, fn))
    return type(node)(map_vars(node.left, fn), map_vars(node.right, fn))


def prime(node: Node) -> Node:
    """``next(node)``: every variable primed. Raises if one is primed already."""

    def bump(var: Var) -> Var:
        if var.primed:
            raise ValueError(f"next(next({var.name})) is not a GR(1) formula")
        return Var(var.name, True)

    return map_vars(node, bump)


def unprime(node: Node) -> Node:
    """Every variable unprimed."""
    return map_vars(node, lambda var: Var(var.name, False))


def rename(node: Node, mapping: dict[str, str]) -> Node:
    """Rename variables by ``mapping`` (prime flags kept)."""
    return map_vars(node, lambda var: Var(mapping.get(var.name, var.name), var.primed))


# ---------------------------------------------------------------- translation

F = TypeVar("F")
T = TypeVar("T")


class FormulaFold(Generic[F, T]):
    """One walk over formula trees for the translators (to BDDs, to other tools' syntax): a
    subclass says what each connective builds from its translated operands, :meth:`formula` and
    :meth:`term` do the walking. ``and_``/``or_`` get their operands as a lazy iterator (so a
    fold may stop early); a comparison gets its translated terms."""

    def formula(self, node: Node) -> F:
        """The translation of the Boolean formula ``node``."""
        if isinstance(node, Const):
            return self.const(node.value)
        if isinstance(node, Var):
            return self.var(node)
        if isinstance(node, Not):
            return self.not_(self.formula(node.arg))
        if isinstance(node, And):
            return self.and_(map(self.formula, node.args))
        if isinstance(node, Or):
            return self.or_(map(self.formula, node.args))
        if isinstance(node, Xor):
            return self.xor(self.formula(node.left), self.formula(node.right))
        if isinstance(node, Implies):
            return self.implies(self.formula(node.left), self.formula(node.right))
        if isinstance(node, Iff):
            return self.iff(self.formula(node.left), self.formula(node.right))
        if isinstance(node, Compare):
            return self.compare(node.op, self.term(node.left), self.term(node.right))
        return self.not_a_formula(node)

    def term(self, node: Node) -> T:
        """The translation of the integer term ``node``."""
        if isinstance(node, Num):
            return self.num(node.value)
        if isinstance(node, Var):
            return self.int_var(node)
        if isinstance(node, Add):
            return self.add(self.term(node.left), self.term(node.right))
        return self.not_a_term(node)

    def const(self, value: bool) -> F:
        raise NotImplementedError

    def var(self, node: Var) -> F:
        """A Boolean variable."""
        raise NotImplementedError

    def not_(self, arg: F) -> F:
        raise NotImplementedError

    def and_(self, args: Iterator[F]) -> F:
        raise NotImplementedError

    def or_(self, args: Iterator[F]) -> F:
        raise NotImplementedError

    def xor(self, left: F, right: F) -> F:
        raise NotImplementedError

    def implies(self, left: F, right: F) -> F:
        raise NotImplementedError

    def iff(self, left: F, right: F) -> F:
        raise NotImplementedError

    def compare(self, op: str, left: T, right: T) -> F:
        raise NotImplementedError

    def num(self, value: int) -> T:
        raise NotImplementedError

    def int_var(self, node: Var) -> T:
        """An integer variable."""
        raise NotImplementedError

    def add(self, left: T, right: T) -> T:
        raise NotImplementedError

    def not_a_formula(self, node: Node) -> F:
        raise TypeError(f"not a formula: {node!r}")

    def not_a_term(self, node: Node) -> T:
        raise TypeError(f"not a term: {node!r}")


# ---------------------------------------------------------------- evaluation


def evaluate(node: Node, current: Mapping[str, int | bool],
             following: Mapping[str, int | bool] | None = None) -> int | bool:
    """Value of ``node`` with unprimed variables read from ``current``, primed from ``following``.

    Booleans and integers may be mixed in the mappings (``True``/``1`` alike); a missing variable
    raises ``KeyError``.
    """
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Var):
        source = following if node.primed else current
        if source is None:
            raise KeyError(f"{node.name}'")
        return source[node.name]
    if isinstance(node, Add):
        left = int(evaluate(node.left, current, following))
        return left + int(evaluate(node.right, current, following))
    if isinstance(node, Compare):
        left = int(evaluate(node.left, current, following))
        right = int(evaluate(node.right, current, following))
        return _COMPARE_FN[node.op](left, right)
    if isinstance(node, Not):
        return not evaluate(node.arg, current, following)
    if isinstance(node, And):
        return all(evaluate(a, current, following) for a in node.args)
    if isinstance(node, Or):
        return any(evaluate(a, current, following) for a in node.args)
    left = bool(evaluate(node.left, current, following))
    right = bool(evaluate(node.right, current, following))
    if isinstance(node, Xor):
        return left != right
    if isinstance(node, Implies):
        return (not left) or right
    if isinstance(node, Iff):
        return left == right
    raise TypeError(f"not a formula node: {node!r}")


_COMPARE_FN: dict[str, Callable[[int, int], bool]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
