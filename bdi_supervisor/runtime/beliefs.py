"""Beliefs and desires of a running supervisor, derived from the outcomes it observed.

:class:`BeliefTracker` starts from the catalog's memory initial values and applies, after each
outcome, that outcome's postconditions (``x``, ``!x``, ``x=N``, conjunctions) and the values the
strategy chose for ``@var`` setters; each fact remembers the outcome that set it. The last outcome
is also held as the one-step facts ``<cap>_<t>`` (e.g. ``pick_c``), as the spec sees it. Goals are
evaluated three-valued (``None`` when they mention a fact not tracked).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.spec import formula as F

Value = bool | int | str


@dataclass
class Belief:
    value: Value
    set_by: dict[str, Any] | str  # {"capability", "outcome", "step"} or "initial"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "set_by": self.set_by}


class BeliefTracker:
    """The executor's facts, updated per outcome through the catalog's postconditions."""

    def __init__(self, catalog: Catalog,
                 goals: Sequence[tuple[str, F.Formula]] = (),
                 initial: Mapping[str, Value] | None = None) -> None:
        self.catalog = catalog
        self.goals = list(goals)
        self.facts: dict[str, Belief] = {}
        for name, memory in sorted(catalog.memory.items()):
            self.facts[name] = Belief(memory.initial, "initial")
        for name, value in (initial or {}).items():
            self.facts[name] = Belief(self._label(name, value), "initial")
        self._outcome_facts: list[str] = []

    # -- updates -----------------------------------------------------------------------------
    def observe(self, capability: str, outcome: str, step: int,
                chosen: Mapping[str, Value] | None = None,
                sensed: Mapping[str, Value] | None = None) -> None:
        """Apply ``capability``'s postconditions for ``outcome``; ``chosen`` gives ``@var`` values,
        ``sensed`` the environment values the strategy expects on arrival (the branch taken)."""
        source = {"capability": capability, "outcome": outcome, "step": step}
        for name, value in (sensed or {}).items():
            self.facts[name] = Belief(self._label(name, value), source)
        for name in self._outcome_facts:
            self.facts[name] = Belief(False, source)
        cap = self.catalog.capabilities.get(capability)
        fact = f"{capability}_{self.catalog.outcome_suffix(outcome)}"
        self.facts[fact] = Belief(True, source)
        self._outcome_facts = [fact]
        if cap is None:
            return
        for condition in cap.postconditions.get(outcome, ()):
            for name, value in assignments(condition):
                self.facts[name] = Belief(value, source)
        for name in cap.free_setters.get(outcome, ()):
            if chosen is not None and name in chosen:
                self.facts[name] = Belief(self._label(name, chosen[name]), source)

    def _label(self, variable: str, value: Value) -> Value:
        """An enumerated variable's label for ``value`` (``item`` 1 → ``soda``)."""
        enum = self.catalog.variables.get(variable)
        if enum is not None and isinstance(value, int) and not isinstance(value, bool):
            return enum.labels.get(value, value)
        return value

    # -- views -------------------------------------------------------------------------------
    def value(self, name: str) -> Value | None:
        for candidate in (name, name[:-2] if name.endswith("_m") else None):
            if candidate and candidate in self.facts:
                return self.facts[candidate].value
        if name.endswith(tuple(f"_{self.catalog.outcome_suffix(o)}"
                               for o in self.catalog.transition_outcomes)):
            return False  # an outcome fact not observed last step
        return None

    def beliefs(self) -> dict[str, dict[str, Any]]:
        return {name: belief.to_dict() for name, belief in sorted(self.facts.items())}

    def desires(self) -> list[dict[str, Any]]:
        return [{"goal": text, "satisfied": evaluate(goal, self._numeric)}
                for text, goal in self.goals]

    def goals_satisfied(self) -> bool:
        return bool(self.goals) and all(d["satisfied"] is True for d in self.desires())

    def _numeric(self, name: str) -> Value | None:
        value = self.value(name)
        enum = self.catalog.variables.get(name[:-2] if name.endswith("_m") else name)
        if isinstance(value, str) and enum is not None:
            for number, label in enum.labels.items():
                if label == value:
                    return number
        return value


def assignments(condition: F.Formula) -> list[tuple[str, Value]]:
    """Facts a postcondition sets: ``x`` → (x, True), ``!x`` → False, ``x=N`` → N, conjunctions."""
    if isinstance(condition, F.Var):
        return [(_base(condition.name), True)]
    if isinstance(condition, F.Not) and isinstance(condition.arg, F.Var):
        return [(_base(condition.arg.name), False)]
    if (isinstance(condition, F.Compare) and condition.op in ("=", "==")
            and isinstance(condition.left, F.Var) and isinstance(condition.right, F.Num)):
        return [(_base(condition.left.name), condition.right.value)]
    if isinstance(condition, F.And):
        return [a for arg in condition.args for a in assignments(arg)]
    return []  # disjunctions and other shapes determine no single fact


def _base(name: str) -> str:
    return name[:-2] if name.endswith("_m") else name


def evaluate(node: F.Node, lookup) -> Any:
    """Three-valued evaluation of a formula over ``lookup(name)`` (``None`` = unknown)."""
    if isinstance(node, F.Const):
        return node.value
    if isinstance(node, F.Num):
        return node.value
    if isinstance(node, F.Var):
        return lookup(node.name)
    if isinstance(node, F.Add):
        left, right = evaluate(node.left, lookup), evaluate(node.right, lookup)
        return None if left is None or right is None else left + right
    if isinstance(node, F.Compare):
        left, right = evaluate(node.left, lookup), evaluate(node.right, lookup)
        if left is None or right is None:
            return None
        return {"=": left == right, "==": left == right, "!=": left != right,
                "<": left < right, "<=": left <= right, ">": left > right,
                ">=": left >= right}[node.op]
    if isinstance(node, F.Not):
        value = evaluate(node.arg, lookup)
        return None if value is None else not value
    if isinstance(node, F.And):
        values = [evaluate(a, lookup) for a in node.args]
        return False if False in values else (None if None in values else True)
    if isinstance(node, F.Or):
        values = [evaluate(a, lookup) for a in node.args]
        return True if True in values else (None if None in values else False)
    if isinstance(node, (F.Implies, F.Iff, F.Xor)):
        left, right = evaluate(node.left, lookup), evaluate(node.right, lookup)
        if isinstance(node, F.Implies):
            if left is False or right is True:
                return True
            return None if left is None or right is None else False
        if left is None or right is None:
            return None
        return (left == right) if isinstance(node, F.Iff) else (left != right)
    raise TypeError(f"cannot evaluate {type(node).__name__}")
