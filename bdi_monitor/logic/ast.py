"""CTL-BDI formula trees.

Nodes are frozen dataclasses, so equal subformulas are equal and hash alike: the checker memoizes
true-sets per distinct subformula (hash-consing by structural equality).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

#: unary temporal operators (path quantifier + temporal operator)
TEMPORAL_UNARY = ("EX", "AX", "EF", "AF", "EG", "AG")
#: BDI modalities and the relation each one quantifies over
MODALITIES = {"bel": "B", "des": "D", "int": "I"}


class Formula:
    """Base class of every CTL-BDI formula node; ``str()`` is :func:`to_text` for all of them
    (the node dataclasses define ``__repr__`` only)."""

    def children(self) -> tuple[Formula, ...]:
        return ()

    def __str__(self) -> str:
        return to_text(self)


@dataclass(frozen=True, eq=True)
class Const(Formula):
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True, eq=True)
class Atom(Formula):
    """An atomic proposition, true where the current world's state is labelled with it."""

    name: str


@dataclass(frozen=True, eq=True)
class Not(Formula):
    arg: Formula

    def children(self) -> tuple[Formula, ...]:
        return (self.arg,)


@dataclass(frozen=True, eq=True)
class Binary(Formula):
    """A boolean connective: ``op`` is one of ``& | -> <->``."""

    op: str
    left: Formula
    right: Formula

    def children(self) -> tuple[Formula, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Temporal(Formula):
    """``EX AX EF AF EG AG`` applied to ``arg``."""

    op: str
    arg: Formula

    def children(self) -> tuple[Formula, ...]:
        return (self.arg,)


@dataclass(frozen=True, eq=True)
class Until(Formula):
    """``E[left U right]`` (``quantifier`` ``E``) or ``A[left U right]`` (``A``)."""

    quantifier: str
    left: Formula
    right: Formula

    def children(self) -> tuple[Formula, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Modal(Formula):
    """``bel``, ``des`` or ``int`` applied to ``arg`` (a box over the B, D or I relation)."""

    op: str
    arg: Formula

    @property
    def relation(self) -> str:
        return MODALITIES[self.op]

    def children(self) -> tuple[Formula, ...]:
        return (self.arg,)


TRUE = Const(True)
FALSE = Const(False)

_BINARY_PREC = {"<->": 1, "->": 2, "|": 3, "&": 4}


def to_text(formula: Formula) -> str:
    """Render ``formula`` in the parser's syntax (re-parses to an equal tree)."""
    return _text(formula, 0)


def _text(f: Formula, context: int) -> str:
    if isinstance(f, Const):
        return "true" if f.value else "false"
    if isinstance(f, Atom):
        return f.name
    if isinstance(f, Not):
        return "!" + _text(f.arg, 5)
    if isinstance(f, Temporal | Modal):
        return f"{f.op} " + _text(f.arg, 5)
    if isinstance(f, Until):
        return f"{f.quantifier}[{_text(f.left, 0)} U {_text(f.right, 0)}]"
    if isinstance(f, Binary):
        prec = _BINARY_PREC[f.op]
        if f.op == "->":  # right associative
            text = f"{_text(f.left, prec + 1)} -> {_text(f.right, prec)}"
        else:  # left associative
            text = f"{_text(f.left, prec)} {f.op} {_text(f.right, prec + 1)}"
        return f"({text})" if prec < context else text
    raise TypeError(f"not a formula: {f!r}")


def walk(formula: Formula) -> Iterator[Formula]:
    """Yield every subformula once (children before parents)."""
    seen: set[Formula] = set()
    stack: list[tuple[Formula, bool]] = [(formula, False)]
    while stack:
        node, expanded = stack.pop()
        if node in seen:
            continue
        if expanded:
            seen.add(node)
            yield node
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.children()) if child not in seen)


def atoms(formula: Formula) -> set[str]:
    """Names of the atomic propositions in ``formula``."""
    return {f.name for f in walk(formula) if isinstance(f, Atom)}


def is_plain_ctl(formula: Formula) -> bool:
    """True when ``formula`` has no BDI modality."""
    return not any(isinstance(f, Modal) for f in walk(formula))
