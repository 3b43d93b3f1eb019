"""The GR(1) specification model: typed variables and origin-tagged formulas per section.

A :class:`GR1Spec` is the one format every later stage consumes (well-separation, synthesis,
export). Each formula is a :class:`Clause` carrying an :class:`Origin`, so a diagnosis can name
the assumption responsible ("capability ``bd``, rule exactly-one-outcome" or "line 12").

Semantics are slugs': ``env_init`` and ``sys_init`` are state predicates (no primes);
``env_safety`` may use current variables and primed inputs; ``sys_safety`` may use everything;
liveness clauses may use primes (evaluated on transitions). The system wins iff for every env
initial state there is a sys initial state from which it enforces
``(G env_safety & AND GF env_liveness) -> (G sys_safety & AND GF sys_liveness)``, with the
safety part strict (the system must not be the first to violate safety).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bdi_supervisor.spec.formula import Formula

Owner = Literal["env", "sys"]
Kind = Literal["bool", "int"]

SECTIONS = ("env_init", "sys_init", "env_safety", "sys_safety", "env_liveness", "sys_liveness")

#: structuredslugs section header for each section
SECTION_HEADERS = {
    "env_init": "ENV_INIT",
    "sys_init": "SYS_INIT",
    "env_safety": "ENV_TRANS",
    "sys_safety": "SYS_TRANS",
    "env_liveness": "ENV_LIVENESS",
    "sys_liveness": "SYS_LIVENESS",
}


@dataclass(frozen=True)
class Variable:
    """A declared variable. Booleans have ``low=0, high=1``; integers range ``low..high``."""

    name: str
    owner: Owner
    kind: Kind = "bool"
    low: int = 0
    high: int = 1
    comment: str = ""

    @property
    def bits(self) -> int:
        """Bits in slugs' encoding: the fewest b with 2**b > high - low (at least 1)."""
        if self.kind == "bool":
            return 1
        return max(1, (self.high - self.low).bit_length())

    @property
    def values(self) -> range:
        return range(self.low, self.high + 1)


@dataclass(frozen=True)
class Origin:
    """Where a formula came from.

    ``source`` is ``"capability"`` (with ``capability`` and ``rule``), ``"request"``,
    ``"mission"`` (a custom constraint; ``key`` names it), ``"liveness"``, ``"encoding"`` or
    ``"file"`` (a hand-written spec; ``line`` is 1-based).
    """

    source: str
    rule: str = ""
    capability: str | None = None
    key: str | None = None
    file: str | None = None
    line: int | None = None
    #: the rule's position in its catalog list (a postcondition's, under ``key``: its outcome)
    index: int | None = None

    def label(self) -> str:
        """Short human-readable tag, e.g. ``bd:exactly-one-outcome`` or
        ``spec.structuredslugs:12``."""
        if self.source == "file":
            return f"{self.file or 'spec'}:{self.line}"
        parts = [p for p in (self.capability, self.key, self.rule) if p]
        return ":".join(parts) if parts else self.source


@dataclass(frozen=True)
class Clause:
    """One formula of a section with its origin and an optional comment."""

    formula: Formula
    origin: Origin = Origin("unknown")
    comment: str = ""


@dataclass
class GR1Spec:
    """A GR(1) specification. Variable order is declaration order (inputs, then outputs)."""

    variables: list[Variable] = field(default_factory=list)
    env_init: list[Clause] = field(default_factory=list)
    sys_init: list[Clause] = field(default_factory=list)
    env_safety: list[Clause] = field(default_factory=list)
    sys_safety: list[Clause] = field(default_factory=list)
    env_liveness: list[Clause] = field(default_factory=list)
    sys_liveness: list[Clause] = field(default_factory=list)
    name: str = "spec"
    #: free-form comment lines attached to declarations (e.g. ``# 1: bd`` in enumerated mode)
    notes: dict[str, list[str]] = field(default_factory=dict)

    @property
    def inputs(self) -> list[Variable]:
        return [v for v in self.variables if v.owner == "env"]

    @property
    def outputs(self) -> list[Variable]:
        return [v for v in self.variables if v.owner == "sys"]

    def variable(self, name: str) -> Variable:
        for var in self.variables:
            if var.name == name:
                return var
        raise KeyError(name)

    def section(self, name: str) -> list[Clause]:
        if name not in SECTIONS:
            raise KeyError(name)
        return getattr(self, name)

    def counts(self) -> dict[str, int]:
        """Proposition and formula counts (the ``--format json`` record of ``spec``)."""
        return {
            "inputs": len(self.inputs),
            "outputs": len(self.outputs),
            "input_bits": sum(v.bits for v in self.inputs),
            "output_bits": sum(v.bits for v in self.outputs),
            **{name: len(self.section(name)) for name in SECTIONS},
        }
