"""Capability catalog model (the reference pipeline's YAML, loaded and validated).

Plain dataclasses; :mod:`bdi_supervisor.catalog.loader` builds them from YAML and reports every
problem with file and key path. Conditions (pre/postconditions) are kept as formula trees over
*catalog names* (capability names, memory names, declared variables); spec generation maps them to
propositions (``x`` → ``x_m`` for memory, etc.).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bdi_supervisor.spec.formula import Formula

#: normalized outcome that means success; every other normalized outcome is a failure kind
COMPLETED = "completed"


def is_failure_outcome(outcome: str) -> bool:
    """Whether a normalized outcome is a failure: every outcome but ``completed`` is one (all the
    FlexBE outcomes that ``state_outcome_mappings`` maps to ``completed`` are successes, e.g. an
    operator decision's several success answers)."""
    return outcome != COMPLETED


@dataclass(frozen=True)
class Parameter:
    """A FlexBE state parameter: a constant (``value``) or chosen by synthesis (``variable``)."""

    name: str
    value: object = None
    variable: str | None = None  # set for ``@var`` parameters


@dataclass(frozen=True)
class Capability:
    """One capability: a FlexBE state interface plus its GR(1) abstraction.

    ``outcomes`` are the normalized outcomes (``completed``, ``failure``, …) in first-seen order;
    ``flexbe_outcomes`` maps each FlexBE outcome of the interface to its normalized outcome.
    ``postconditions`` and ``transitions`` are keyed by normalized outcome. ``autonomy`` is per
    FlexBE outcome (not flattened).
    """

    name: str
    interface: str
    parameters: tuple[Parameter, ...] = ()
    preconditions: tuple[Formula, ...] = ()
    postconditions: dict[str, tuple[Formula, ...]] = field(default_factory=dict)
    #: per normalized outcome: the required follow-on targets (capability or SM-outcome names),
    #: each target a formula (``Var(name)``, ``Not(Var(name))`` or a disjunction of them)
    transitions: dict[str, tuple[Formula, ...]] = field(default_factory=dict)
    #: variables an outcome may change freely (``@var`` postconditions), per normalized outcome
    free_setters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    outcomes: tuple[str, ...] = (COMPLETED,)
    flexbe_outcomes: dict[str, str] = field(default_factory=dict)
    autonomy: dict[str, int] = field(default_factory=dict)
    userdata_in: dict[str, str] = field(default_factory=dict)
    userdata_out: dict[str, str] = field(default_factory=dict)
    max_consecutive_failures: int | None = None

    @property
    def failure_capable(self) -> bool:
        """True when the capability has an outcome other than ``completed``."""
        return any(is_failure_outcome(o) for o in self.outcomes)


@dataclass(frozen=True)
class EnumVariable:
    """A bounded integer from ``variable_mappings``: values ``low..high``, labels for ``@``
    params."""

    name: str
    owner: str  # "env" | "sys"
    labels: dict[int, str]

    @property
    def low(self) -> int:
        return min(self.labels)

    @property
    def high(self) -> int:
        return max(self.labels)


@dataclass(frozen=True)
class Memory:
    """A memory proposition ``<name>_m`` with its owner and initial value."""

    name: str
    owner: str  # "env" | "sys"
    initial: bool = False


@dataclass
class Catalog:
    name: str
    capabilities: dict[str, Capability]
    variables: dict[str, EnumVariable] = field(default_factory=dict)
    memory: dict[str, Memory] = field(default_factory=dict)
    #: FlexBE outcome → normalized outcome (global defaults merged with the catalog's)
    state_outcome_mappings: dict[str, str] = field(default_factory=dict)
    #: request SM outcome → spec proposition
    sm_outcome_mappings: dict[str, str] = field(default_factory=dict)
    #: normalized outcomes, in order; their first letters are the proposition suffixes
    transition_outcomes: tuple[str, ...] = ("completed", "failure")
    source: str | None = None

    def outcome_suffix(self, outcome: str) -> str:
        """Proposition suffix of a normalized outcome: its first letter (``completed`` → ``c``)."""
        return outcome[0]
