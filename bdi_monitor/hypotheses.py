"""The monitor's sections of a mission file: world ``hypotheses`` and CTL-BDI ``properties``.

Format (both sections optional)::

    hypotheses:
      door_locked:                      # a fact the robot is unsure of (a name)
        values: [false, true]           # optional; default [false, true] (a boolean fact)
        presumed: false                 # optional: what the robot believes until an outcome
                                        # tells otherwise (omitted: it keeps an open mind)
        actual: false                   # optional: the world checked at launch
                                        # (default: presumed, else the first value)
        admits:                         # per value, the outcomes each capability can have there
          false: {open_door: [completed]}
          true: {open_door: [failure]}  # capabilities not listed: every outcome the strategy
                                        # admits; a value not listed restricts nothing
    properties:
      door_believed_unlocked: 'bel !door_locked'
      beer_possible:                    # or a mapping with a description
        formula: 'AG(bel beer -> EF goal)'
        description: whenever it believes there is beer, delivering it stays possible

The worlds of the mission model are all combinations of the facts' values (one ``nominal`` world
without hypotheses). A boolean fact is the atom ``<fact>`` (true in the worlds where it holds);
any other value ``v`` is the atom ``<fact>.<v>``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bdi_monitor.logic import parse
from bdi_monitor.logic.ast import Formula
from bdi_supervisor.errors import InputError

Value = bool | int | str
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_VALUE = re.compile(r"^[A-Za-z0-9_]+$")
FACT_KEYS = ("values", "presumed", "actual", "admits", "description")
PROPERTY_KEYS = ("formula", "description")


@dataclass(frozen=True)
class Fact:
    """One uncertain fact: its values, the presumed and actual value, and what each admits.

    ``admits[value][capability]`` is the set of normalized outcomes that capability can have in
    worlds where the fact has ``value`` (absent: unrestricted).
    """

    name: str
    values: tuple[Value, ...]
    presumed: Value | None
    actual: Value
    admits: dict[Value, dict[str, frozenset[str]]] = field(default_factory=dict)
    description: str = ""

    @property
    def boolean(self) -> bool:
        return set(self.values) == {False, True}

    def atom(self, value: Value) -> str | None:
        """The proposition true where the fact has ``value`` (None for a false boolean)."""
        if self.boolean:
            return self.name if value else None
        return f"{self.name}.{str(value).lower() if isinstance(value, bool) else value}"

    def atoms(self) -> list[str]:
        return [a for a in (self.atom(v) for v in self.values) if a is not None]


@dataclass(frozen=True)
class Hypotheses:
    """The facts of a mission; its worlds are every combination of their values."""

    facts: tuple[Fact, ...] = ()

    def worlds(self) -> list[dict[str, Value]]:
        """Every combination of values, in the order of the facts' values (first fact slowest)."""
        names = [f.name for f in self.facts]
        return [dict(zip(names, combo))
                for combo in itertools.product(*(f.values for f in self.facts))]

    def actual(self) -> dict[str, Value]:
        return {f.name: f.actual for f in self.facts}

    def world_name(self, values: Mapping[str, Value]) -> str:
        """``door_locked.no_beer``-style name: each fact's atom, or ``not_<fact>``."""
        if not self.facts:
            return "nominal"
        parts = []
        for fact in self.facts:
            atom = fact.atom(values[fact.name])
            parts.append(atom if atom is not None else f"not_{fact.name}")
        return ".".join(parts)

    def admitted(self, values: Mapping[str, Value], capability: str, outcome: str) -> bool:
        """Can ``capability`` end in ``outcome`` in the world with these fact values?"""
        for fact in self.facts:
            allowed = fact.admits.get(values[fact.name], {}).get(capability)
            if allowed is not None and outcome not in allowed:
                return False
        return True

    def atoms(self) -> list[str]:
        return [a for f in self.facts for a in f.atoms()]


@dataclass(frozen=True)
class Property:
    """A named CTL-BDI property of the mission file."""

    name: str
    text: str
    formula: Formula
    description: str = ""


def parse_hypotheses(mission: Any) -> Hypotheses:
    """The mission's ``hypotheses`` section, validated against its catalog."""
    section = mission.section("hypotheses")
    catalog = mission.catalog
    facts = []
    for name, entry in section.items():
        key = ("hypotheses", name)
        if not isinstance(name, str) or not _NAME.match(name):
            raise mission.section_error("bad fact name", *key, found=repr(name),
                                        expected="letters, digits and '_', not starting with a "
                                                 "digit")
        if name in catalog.capabilities or name in catalog.memory or name in catalog.variables:
            raise mission.section_error("fact name clashes with a catalog name", *key,
                                        found=name, expected="a name of its own")
        if not isinstance(entry, dict):
            raise mission.section_error("a fact must be a mapping", *key, found=_kind(entry),
                                        expected="values, presumed, actual, admits")
        for sub in entry:
            if sub not in FACT_KEYS:
                raise mission.section_error("unknown key", *key, sub, found=str(sub),
                                            expected="one of " + ", ".join(FACT_KEYS))
        values = entry.get("values", [False, True])
        if (not isinstance(values, list) or len(values) < 2
                or len({_norm(v) for v in values}) != len(values)
                or not all(_valid_value(v) for v in values)):
            raise mission.section_error("values must be a list of two or more distinct values",
                                        *key, "values", found=repr(values),
                                        expected="e.g. [false, true] or [healthy, dropping]")
        values = tuple(values)

        def value_of(raw: Any, *at: Any, values=values, key=key) -> Value:
            for v in values:
                if _norm(v) == _norm(raw):
                    return v
            raise mission.section_error("not one of the fact's values", *key, *at,
                                        found=repr(raw), expected=f"one of {list(values)}")

        presumed = value_of(entry["presumed"], "presumed") if "presumed" in entry else None
        if "actual" in entry:
            actual = value_of(entry["actual"], "actual")
        else:
            actual = presumed if presumed is not None else values[0]
        admits: dict[Value, dict[str, frozenset[str]]] = {}
        raw_admits = entry.get("admits", {})
        if not isinstance(raw_admits, dict):
            raise mission.section_error("admits must be a mapping value -> capability -> "
                                        "outcomes", *key, "admits", found=_kind(raw_admits))
        for raw_value, per_cap in raw_admits.items():
            value = value_of(raw_value, "admits", raw_value)
            where = (*key, "admits", raw_value)
            if not isinstance(per_cap, dict):
                raise mission.section_error("expected capability -> outcomes", *where,
                                            found=_kind(per_cap))
            table: dict[str, frozenset[str]] = {}
            for cap, outcomes in per_cap.items():
                if cap not in catalog.capabilities:
                    raise mission.section_error("unknown capability", *where, cap,
                                                found=repr(cap),
                                                expected="a capability of the catalog")
                declared = catalog.capabilities[cap].outcomes
                if not isinstance(outcomes, list) or any(o not in declared for o in outcomes):
                    raise mission.section_error("outcomes must be a list of the capability's "
                                                "outcomes", *where, cap, found=repr(outcomes),
                                                expected=f"a list drawn from {list(declared)}")
                table[cap] = frozenset(outcomes)
            admits[value] = table
        facts.append(Fact(name, values, presumed, actual, admits,
                          str(entry.get("description", ""))))
    return Hypotheses(tuple(facts))


def parse_properties(mission: Any, propositions: set[str]) -> list[Property]:
    """The mission's ``properties`` section; formulas parsed over ``propositions``."""
    found = []
    for name, entry in mission.section("properties").items():
        key = ("properties", name)
        if not isinstance(name, str) or not _NAME.match(name):
            raise mission.section_error("bad property name", *key, found=repr(name),
                                        expected="letters, digits and '_', not starting with a "
                                                 "digit")
        description = ""
        if isinstance(entry, dict):
            for sub in entry:
                if sub not in PROPERTY_KEYS:
                    raise mission.section_error("unknown key", *key, sub, found=str(sub),
                                                expected="one of " + ", ".join(PROPERTY_KEYS))
            description = str(entry.get("description", ""))
            entry = entry.get("formula")
            key = (*key, "formula")
        if not isinstance(entry, str) or not entry.strip():
            raise mission.section_error("a property is a CTL-BDI formula", *key,
                                        found=_kind(entry), expected="e.g. 'AG(bel p -> EF q)'")
        try:
            formula = parse(entry, propositions)
        except InputError as error:
            located = mission.section_error(error.message, *key, found=error.found,
                                            expected=error.expected)
            raise InputError(f"{error.message} (column {error.column} of the formula)",
                             file=located.file, key=located.key, line=located.line,
                             found=error.found, expected=error.expected) from None
        found.append(Property(name, entry, formula, description))
    return found


def _norm(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value)


def _valid_value(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    return isinstance(value, (int, str)) and bool(_VALUE.match(str(value)))


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list"}.get(type(value), repr(value))
