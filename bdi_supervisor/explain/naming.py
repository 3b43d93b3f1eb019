"""Clauses named in the designer's terms: which capability rule, request item, custom
constraint or pending-memory rule a clause came from, with the file and line to look at.

Spec generation tags every clause with an :class:`~bdi_supervisor.spec.gr1.Origin`; request
items and custom constraints carry their mission file and line, capability rules their
capability. :class:`Namer` adds the catalog's line of the rule (the capability's
``preconditions``, ``postconditions``, ``transition_relation`` entry, or the capability itself
for the rules every capability gets) when it is given the catalog's YAML document.
"""

from __future__ import annotations

from dataclasses import dataclass

from bdi_supervisor.spec.gr1 import Clause
from bdi_supervisor.spec.structuredslugs import format_formula
from bdi_supervisor.yamlsource import YamlDoc

#: what each generated rule is, in a designer's words
RULES = {
    "precondition": "precondition of capability {cap}",
    "postcondition": "postcondition of capability {cap}",
    "transition-relation": "follow-on rule (transition_relation) of capability {cap}",
    "frame": "frame rule: {key} keeps its value unless an outcome that sets it occurs",
    "exactly-one-outcome": "capability {cap} ends with exactly one outcome",
    "at-most-one-outcome": "capability {cap} ends with at most one outcome",
    "no-outcome-unless-active": "capability {cap} reports no outcome unless it runs",
    "initial-activation": "capability {cap} is not running at start-up",
    "initial-outcomes": "capability {cap} has reported no outcome at start-up",
    "sm-outcome-initial": "SM outcome {key} is not reached at start-up",
    "sm-outcome-absorbing": "SM outcome {key}, once reached, stays",
    "sm-outcome-only-by-transition": "SM outcome {key} is reached only by a follow-on rule",
    "memory-initial": "initial value of memory {key}",
    "one-activation": "exactly one capability (or SM outcome) is active at every step",
    "initial-condition": "initial condition of the request",
    "goal": "goal of the request",
    "goal-success": "the success outcome is reached when the request's goal is reached",
    "goal-required": "the success outcome requires the request's goal",
    "system-goal": "the request's goal is reached again and again (liveness, system-goal)",
    "fair-outcome": "capability {cap} completes whenever it keeps running (fair-outcome)",
    "sm-outcome-reached": "an SM outcome is reached (liveness)",
    "pending-initial": "pending memory of {cap} starts clear",
    "pending-set": "pending memory of {cap} is set when it starts",
    "pending-failure": "pending memory of {cap} stays set after a failure",
    "pending-clear": "pending memory of {cap} clears when it completes",
    "pending-keep": "pending memory of {cap} keeps its value while it is idle",
}
#: the enumerated encoding's rules about every capability at once
_ANY_CAPABILITY = {"initial-activation": "no capability is running at start-up",
                   "initial-outcomes": "no outcome is reported at start-up",
                   "at-most-one-outcome": "at most one outcome is reported at a time",
                   "no-outcome-unless-active": "no outcome is reported while nothing runs"}
_CATALOG_KEYS = {"precondition": "preconditions", "postcondition": "postconditions",
                 "transition-relation": "transition_relation"}
_SECTION_WORDS = {"env_init": "initial assumption", "sys_init": "initial guarantee",
                  "env_safety": "safety assumption", "sys_safety": "safety guarantee",
                  "env_liveness": "liveness assumption", "sys_liveness": "liveness guarantee"}


@dataclass(frozen=True)
class Named:
    """A clause as a designer reads it."""

    section: str
    index: int
    kind: str
    description: str
    formula: str
    origin: str
    file: str | None = None
    line: int | None = None

    def where(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or ""

    def to_dict(self) -> dict:
        return {"section": self.section, "index": self.index, "kind": self.kind,
                "description": self.description, "formula": self.formula,
                "origin": self.origin, "file": self.file, "line": self.line}


class Namer:
    """Names clauses; ``catalog`` is the catalog's YAML document (lines of its rules)."""

    def __init__(self, catalog: YamlDoc | None = None, catalog_file: str | None = None) -> None:
        self.catalog = catalog
        self.catalog_file = catalog_file

    def name(self, section: str, index: int, clause: Clause) -> Named:
        origin = clause.origin
        word = _SECTION_WORDS.get(section, section)
        formula = format_formula(clause.formula)
        if origin.source == "file":
            comment = clause.comment.strip().splitlines()[0] if clause.comment.strip() else ""
            description = f"{word}" + (f" ({comment.lstrip('#').strip()})" if comment else "")
            return Named(section, index, "spec", description, formula, origin.label(),
                         origin.file, origin.line)
        if origin.source == "mission":
            description = f"custom constraint {origin.key!r} ({word})" if origin.key else \
                f"custom constraint ({word})"
            return Named(section, index, "constraint", description, formula, origin.label(),
                         origin.file, origin.line)
        template = RULES.get(origin.rule)
        if origin.capability is None and origin.rule in _ANY_CAPABILITY:
            template = _ANY_CAPABILITY[origin.rule]
        cap = repr(origin.capability) if origin.capability else "?"
        description = (template.format(cap=cap, key=repr(origin.key)) if template
                       else f"{origin.rule or origin.source} ({word})")
        if origin.rule == "postcondition" and origin.key and origin.index is not None:
            description += f" on {origin.key} #{origin.index + 1}"
        kind = {"request": "request", "pending": "pending", "liveness": "liveness",
                "encoding": "encoding"}.get(origin.source, "capability")
        if origin.file or origin.line:
            return Named(section, index, kind, description, formula, origin.label(),
                         origin.file, origin.line)
        file, line = self._catalog_line(origin)
        return Named(section, index, kind, description, formula, origin.label(), file, line)

    def _catalog_line(self, origin) -> tuple[str | None, int | None]:
        """The catalog's file and the line of the rule (of its list entry where known)."""
        capability = origin.capability
        if capability is None or self.catalog is None:
            return (self.catalog_file if capability else None), None
        path: tuple = ("capabilities", capability)
        key = _CATALOG_KEYS.get(origin.rule)
        if key is not None:
            path = (*path, key)
            if origin.rule == "postcondition" and origin.key and origin.index is not None:
                path = (*path, origin.key, origin.index)
        return self.catalog_file, self.catalog.line(path)
