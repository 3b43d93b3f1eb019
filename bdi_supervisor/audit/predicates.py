"""Transition predicates: goals and environment liveness assumptions over strategy edges.

A predicate is evaluated on an edge ``s -> t``: unprimed variables read ``s`` (its arrival inputs
and its outputs), primed variables read ``t`` (the edge's input valuation and ``t``'s outputs).
Accepted forms:

- a proposition name (``"br_c"``, ``"finished"``): true when it holds on arrival at ``t``
  (a leading ``!`` negates it);
- a formula tree from :mod:`bdi_supervisor.spec.formula` (e.g. ``GF(!c_p | c_c')`` is
  ``Or((Not(Var("c_p")), Var("c_c", True)))``);
- a Python callable ``(src, dst) -> bool`` on the two valuations (mappings name → value).

Formulas are compiled to closures once (no ``eval``), so evaluation per edge is cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from bdi_supervisor.spec import formula as f

Valuation = Mapping[str, object]
EdgeFn = Callable[[Valuation, Valuation], bool]
PredicateLike = str | f.Formula | EdgeFn


@dataclass(frozen=True)
class Predicate:
    """A compiled transition predicate; ``arrival_only`` when it reads only the target."""

    name: str
    fn: EdgeFn
    arrival_only: bool

    def __call__(self, src: Valuation, dst: Valuation) -> bool:
        return bool(self.fn(src, dst))


IntFn = Callable[[Valuation, Valuation], int]

_COMPARE = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


class _Compiler(f.FormulaFold[EdgeFn, IntFn]):
    """Formula trees to closures on ``(src, dst)``; a missing variable reads as false / 0."""

    def const(self, value: bool) -> EdgeFn:
        return lambda s, d: value

    def var(self, node: f.Var) -> EdgeFn:
        name = node.name
        if node.primed:
            return lambda s, d: bool(d.get(name, False))
        return lambda s, d: bool(s.get(name, False))

    def not_(self, arg: EdgeFn) -> EdgeFn:
        return lambda s, d: not arg(s, d)

    def and_(self, args: Iterator[EdgeFn]) -> EdgeFn:
        parts = tuple(args)
        return lambda s, d: all(a(s, d) for a in parts)

    def or_(self, args: Iterator[EdgeFn]) -> EdgeFn:
        parts = tuple(args)
        return lambda s, d: any(a(s, d) for a in parts)

    def xor(self, left: EdgeFn, right: EdgeFn) -> EdgeFn:
        return lambda s, d: left(s, d) != right(s, d)

    def implies(self, left: EdgeFn, right: EdgeFn) -> EdgeFn:
        return lambda s, d: (not left(s, d)) or right(s, d)

    def iff(self, left: EdgeFn, right: EdgeFn) -> EdgeFn:
        return lambda s, d: left(s, d) == right(s, d)

    def compare(self, op: str, left: IntFn, right: IntFn) -> EdgeFn:
        test = _COMPARE[op]
        return lambda s, d: test(left(s, d), right(s, d))

    def num(self, value: int) -> IntFn:
        return lambda s, d: value

    def int_var(self, node: f.Var) -> IntFn:
        name = node.name
        if node.primed:
            return lambda s, d: int(d.get(name, 0))
        return lambda s, d: int(s.get(name, 0))

    def add(self, left: IntFn, right: IntFn) -> IntFn:
        return lambda s, d: left(s, d) + right(s, d)


def compile_formula(node: f.Formula) -> EdgeFn:
    """Closure evaluating a formula tree on ``(src, dst)`` valuations."""
    return _Compiler().formula(node)


def compile_predicate(item: PredicateLike | Predicate, index: int = 0) -> Predicate:
    """Compile a goal or assumption given as a name, a formula tree or a callable."""
    if isinstance(item, Predicate):
        return item
    if isinstance(item, str):
        text = item.strip()
        negated = text.startswith("!")
        name = text[1:].strip() if negated else text
        if not name.isidentifier():
            raise ValueError(f"goal label must be a proposition name, got {item!r}")
        if negated:
            return Predicate(text, lambda s, d: not d.get(name, False), True)
        return Predicate(text, lambda s, d: bool(d.get(name, False)), True)
    if callable(item) and not isinstance(item, f.Const | f.Var | f.Compare | f.Not | f.And
                                         | f.Or | f.Xor | f.Implies | f.Iff):
        label = getattr(item, "__name__", f"predicate_{index}")
        return Predicate(label, item, False)
    variables = f.variables(item)
    arrival_only = all(v.primed for v in variables)
    return Predicate(describe_formula(item), compile_formula(item), arrival_only)


def describe_formula(node: f.Node) -> str:
    """Compact infix text of a formula tree (for records; not a parser round-trip)."""
    if isinstance(node, f.Const):
        return "TRUE" if node.value else "FALSE"
    if isinstance(node, f.Var):
        return node.name + ("'" if node.primed else "")
    if isinstance(node, f.Num):
        return str(node.value)
    if isinstance(node, f.Add):
        return f"({describe_formula(node.left)} + {describe_formula(node.right)})"
    if isinstance(node, f.Compare):
        return f"({describe_formula(node.left)} {node.op} {describe_formula(node.right)})"
    if isinstance(node, f.Not):
        return "!" + describe_formula(node.arg)
    if isinstance(node, f.And | f.Or):
        op = " & " if isinstance(node, f.And) else " | "
        return "(" + op.join(describe_formula(a) for a in node.args) + ")"
    op = {f.Xor: " ^ ", f.Implies: " -> ", f.Iff: " <-> "}[type(node)]
    return f"({describe_formula(node.left)}{op}{describe_formula(node.right)})"
