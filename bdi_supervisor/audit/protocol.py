"""Protocol view: which capability a strategy state activates and which outcome it observed.

Derived from the catalog and the proposition encoding (docs/spec.md):

- **one-hot**: activation ``<cap>_a`` (sys bool), outcome ``<cap>_<t>`` (env bool, ``t`` the
  first letter of the normalized outcome);
- **enumerated**: one sys integer ``capability`` with the capabilities sorted alphabetically as
  ``1..N`` (slot 0 is ``begin_game`` when the catalog has one, else a null start-up slot) and the
  generic env outcomes named by the catalog's ``transition_outcomes`` (``completed``, ``failure``).

SM outcomes (``finished``, ``failed``) are the values of ``sm_outcome_mappings`` (sys bools) in
both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bdi_supervisor.catalog.model import Catalog, is_failure_outcome
from bdi_supervisor.common import FAILURE_SM_OUTCOMES
from bdi_supervisor.specgen.propositions import (
    CAPABILITY_VARIABLE,
    activation,
    capability_numbers,
    outcome_prop,
)
from bdi_supervisor.synthesis.strategy import Strategy, Value

ONE_HOT = "one-hot"
ENUMERATED = "enumerated"
ENCODINGS = (ONE_HOT, ENUMERATED)
CAPABILITY_VAR = CAPABILITY_VARIABLE


@dataclass(frozen=True)
class Observation:
    """An outcome seen on arrival: ``capability`` is ``None`` for generic (enumerated) outcomes."""

    capability: str | None
    outcome: str
    proposition: str

    @property
    def failure(self) -> bool:
        """Whether the outcome is a failure (the catalog's normalized outcome is not
        ``completed``)."""
        return is_failure_outcome(self.outcome)


def infer_encoding(strategy: Strategy) -> str:
    """``enumerated`` when the strategy has a sys integer ``capability``, else ``one-hot``."""
    for var in strategy.variables:
        if var.name == CAPABILITY_VAR and var.owner == "sys" and var.kind == "int":
            return ENUMERATED
    return ONE_HOT


def enumerated_slots(catalog: Catalog) -> dict[int, str]:
    """``capability`` value → capability name (slot 0 only when ``begin_game`` exists)."""
    return {number: name for name, number in capability_numbers(catalog).items()}


class ProtocolView:
    """Reads activations, observations and SM outcomes off valuations for one encoding."""

    def __init__(self, catalog: Catalog, encoding: str = ONE_HOT) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; expected one of {ENCODINGS}")
        self.catalog = catalog
        self.encoding = encoding
        self.capabilities = sorted(catalog.capabilities)
        self.sm_outcomes = tuple(sorted(set(catalog.sm_outcome_mappings.values())))
        #: SM outcome propositions that only failure outcomes (``failed``, ``aborted``…) map to
        self.failure_sm_outcomes = frozenset(
            prop for prop in self.sm_outcomes
            if all(o in FAILURE_SM_OUTCOMES for o, p in catalog.sm_outcome_mappings.items()
                   if p == prop))
        self.slots = enumerated_slots(catalog)
        #: one-hot activation proposition per capability
        self.activation_props = {name: activation(name) for name in self.capabilities}
        #: one-hot outcome proposition → (capability, normalized outcome)
        self.outcome_props: dict[str, tuple[str, str]] = {}
        for name in self.capabilities:
            for outcome in catalog.capabilities[name].outcomes:
                self.outcome_props[outcome_prop(catalog, name, outcome)] = (name, outcome)
        #: enumerated: the generic outcome propositions (named after the normalized outcomes)
        self.generic_outcomes = tuple(catalog.transition_outcomes)
        if encoding == ENUMERATED:
            self._observations = tuple((n, Observation(None, n, n)) for n in self.generic_outcomes)
        else:
            self._observations = tuple((prop, Observation(cap, outcome, prop))
                                       for prop, (cap, outcome) in self.outcome_props.items())

    @classmethod
    def for_strategy(cls, strategy: Strategy, catalog: Catalog,
                     encoding: str | None = None) -> ProtocolView:
        """The view for ``strategy``, inferring the encoding from its variables when not given."""
        return cls(catalog, encoding or infer_encoding(strategy))

    def declared_outcomes(self, capability: str) -> tuple[str, ...]:
        return self.catalog.capabilities[capability].outcomes

    def activated(self, outputs: Mapping[str, Value]) -> list[str]:
        """Capabilities activated by an output valuation (more than one is a protocol error)."""
        if self.encoding == ENUMERATED:
            slot = outputs.get(CAPABILITY_VAR)
            if slot is None or isinstance(slot, bool):
                return []
            name = self.slots.get(int(slot))
            return [name] if name else []
        return [name for name, prop in self.activation_props.items() if outputs.get(prop)]

    def observed(self, inputs: Mapping[str, Value]) -> list[Observation]:
        """Outcome propositions true in an input valuation."""
        get = inputs.get
        return [obs for prop, obs in self._observations if get(prop)]

    def outcome_proposition(self, capability: str, outcome: str) -> str | None:
        """The input proposition that reports ``outcome`` of ``capability`` (None if none)."""
        if self.encoding == ENUMERATED:
            return outcome if outcome in self.generic_outcomes else None
        return outcome_prop(self.catalog, capability, outcome)

    def sm_outcomes_of(self, outputs: Mapping[str, Value]) -> list[str]:
        """SM outcome propositions asserted by an output valuation."""
        return [name for name in self.sm_outcomes if outputs.get(name)]

    def describe(self, inputs: Mapping[str, Value], outputs: Mapping[str, Value]) -> str:
        """Short human label: ``observed -> activated`` (used in traces and pictures)."""
        seen = ",".join(o.proposition for o in self.observed(inputs)) or "-"
        act = ",".join(self.activated(outputs) + self.sm_outcomes_of(outputs)) or "-"
        return f"{seen} / {act}"
