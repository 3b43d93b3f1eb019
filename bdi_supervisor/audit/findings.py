"""An audit's defects told in the mission's terms, for people: each kind with its count, and one
example state per kind (what holds there, how the supervisor got there, what it runs again and
again when it cannot leave).

Everything is read off the audit record (:class:`~bdi_supervisor.audit.record.AuditRecord` or
its ``audit.json`` dict): the kind, message, states and trace of each defect, and the full
counts in ``stats.defect_counts`` (the defect list keeps the first few of a kind). A kind this
module has never heard of is summarized the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.audit.protocol import CAPABILITY_VAR, ProtocolView
from bdi_supervisor.audit.record import AuditRecord
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.specgen.propositions import memory_prop, pending_prop
from bdi_supervisor.synthesis.strategy import Strategy


@dataclass
class Example:
    """One defect of a kind as a reader sees it (each text empty when unknown)."""

    kind: str
    state: int | None
    message: str
    #: what holds in the state: world variables by their labels, beliefs, pending capabilities
    there: str = ""
    #: how the supervisor got there: ``move → failure, log_failed → completed``
    path: str = ""
    #: what the state runs (capabilities, SM outcomes)
    runs: str = ""
    #: the defect's states form a cycle the strategy cannot leave
    repeats: bool = False
    #: a loop kept up while nothing fails (a nominal livelock): the outcomes after which the
    #: goal comes back, ``snack → failure``
    leaves: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "state": self.state, "message": self.message,
                "there": self.there, "path": self.path, "runs": self.runs,
                "repeats": self.repeats, "leaves": self.leaves}


@dataclass
class Findings:
    """The defects of one audited strategy (``raw`` or ``reduced``)."""

    strategy: str
    verdict: str
    #: defect kind → how many, in the order the kinds first appear
    counts: dict[str, int] = field(default_factory=dict)
    examples: list[Example] = field(default_factory=list)
    incomplete_reason: str | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "verdict": self.verdict, "counts": dict(self.counts),
                "examples": [e.to_dict() for e in self.examples],
                "incomplete_reason": self.incomplete_reason}


def record_dict(record: AuditRecord | Mapping[str, Any]) -> dict[str, Any]:
    """An audit record as the dict ``audit.json`` holds."""
    return record.to_dict() if isinstance(record, AuditRecord) else dict(record)


def kind_counts(record: AuditRecord | Mapping[str, Any]) -> dict[str, int]:
    """Defect kind → count: the record's ``stats.defect_counts`` where it has them (they count
    the warnings' kinds too: those are left out), else the defects listed; kinds in the order
    they first appear."""
    data = record_dict(record)
    defects = [d for d in data.get("defects") or [] if isinstance(d, Mapping)]
    listed = Counter(str(d.get("kind")) for d in defects)
    warned = {str(w.get("kind")) for w in data.get("warnings") or [] if isinstance(w, Mapping)}
    stats = data.get("stats") if isinstance(data.get("stats"), Mapping) else {}
    counted = stats.get("defect_counts")
    counted = counted if isinstance(counted, Mapping) else {}
    order = [*dict.fromkeys(str(d.get("kind")) for d in defects),
             *(str(kind) for kind in counted if str(kind) not in warned - set(listed))]
    counts = {}
    for kind in dict.fromkeys(order):
        number = counted.get(kind)
        counts[kind] = max(number if isinstance(number, int) else 0, listed[kind])
    return counts


def findings(record: AuditRecord | Mapping[str, Any], label: str = "raw",
             catalog: Catalog | None = None, strategy: Strategy | None = None) -> Findings:
    """The defects of an audit ``record`` of the ``label`` strategy, one example per kind,
    named through ``catalog`` (labels of variables, capabilities) where given; ``strategy`` (the
    audited one) tells whether a defect's states form a cycle."""
    data = record_dict(record)
    result = Findings(label, str(data.get("verdict")), kind_counts(data),
                      incomplete_reason=data.get("incomplete_reason"))
    view = _view(catalog, strategy, data)
    seen: set[str] = set()
    for defect in data.get("defects") or []:
        if not isinstance(defect, Mapping) or str(defect.get("kind")) in seen:
            continue
        seen.add(str(defect.get("kind")))
        result.examples.append(example(defect, view, strategy))
    return result


def _view(catalog: Catalog | None, strategy: Strategy | None,
          data: Mapping[str, Any]) -> ProtocolView | None:
    if catalog is None:
        return None
    try:
        if strategy is not None:
            return ProtocolView.for_strategy(strategy, catalog)
        return ProtocolView(catalog, str(data.get("encoding") or "one-hot"))
    except (ValueError, KeyError):
        return None


def example(defect: Mapping[str, Any], view: ProtocolView | None = None,
            strategy: Strategy | None = None) -> Example:
    """One defect (an ``audit.json`` entry) in the mission's terms: the state where it shows
    (the trace's last), what holds there, the way there, what it runs."""
    trace = [s for s in defect.get("trace") or [] if isinstance(s, Mapping)]
    states = [s for s in defect.get("states") or [] if isinstance(s, int)]
    last = trace[-1] if trace else None
    state = last.get("state") if last is not None else (states[0] if states else None)
    found = Example(str(defect.get("kind")), state if isinstance(state, int) else None,
                    str(defect.get("message") or ""))
    if last is None:
        return found
    inputs, outputs = _valuation(last.get("inputs")), _valuation(last.get("outputs"))
    if view is None:
        found.runs = str(last.get("label") or "").split(" / ")[-1].strip("- ")
        found.path = ", ".join(str(s.get("label")) for s in trace[1:] if s.get("label"))
        return found
    found.there = holds(inputs, outputs, view)
    found.runs = ", ".join(view.activated(outputs) + view.sm_outcomes_of(outputs))
    found.path = way_there(trace, view)
    found.repeats = strategy is not None and _cycle(strategy, states)
    if defect.get("cycle"):  # a lasso: what the cycle runs, and what leaves it
        details = _valuation(defect.get("details"))
        found.runs = ", ".join(dict.fromkeys(str(c) for c in details.get("capabilities") or []))
        found.leaves = leaving(details.get("exits"))
        found.repeats = False
    elif found.repeats:
        found.runs = ", ".join(dict.fromkeys(
            name for s in states if 0 <= s < len(strategy.states)
            for name in view.activated(strategy.states[s].outputs)
            + view.sm_outcomes_of(strategy.states[s].outputs))) or found.runs
    return found


def _valuation(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def holds(inputs: Mapping[str, Any], outputs: Mapping[str, Any], view: ProtocolView) -> str:
    """What is true in a state, in the catalog's words: world variables by their labels
    (``wolf=near``), the beliefs that hold (memory propositions), pending capabilities and any
    other true proposition that is no part of the activation protocol."""
    catalog = view.catalog
    values = {**inputs, **outputs}
    protocol = {*view.activation_props.values(), *view.outcome_props, *view.generic_outcomes,
                *view.sm_outcomes, CAPABILITY_VAR}
    pending = {pending_prop(name): name for name in catalog.capabilities}
    beliefs = {memory_prop(name): name for name in catalog.memory}
    words, waiting = [], []
    for name, value in values.items():
        if name in protocol:
            continue
        variable = catalog.variables.get(name)
        if variable is not None and not isinstance(value, bool):
            words.append(f"{name}={variable.labels.get(value, value)}")
        elif name in pending:
            if value is True:
                waiting.append(f"{pending[name]} pending")
        elif value is True:
            words.append(beliefs.get(name, name))
        elif not isinstance(value, bool) and value is not None:
            words.append(f"{name}={value}")
    return "; ".join(part for part in (", ".join(words), ", ".join(waiting)) if part)


def way_there(trace: list[Mapping[str, Any]], view: ProtocolView) -> str:
    """The outcomes that led along ``trace``: ``move → failure, log_failed → completed``."""
    steps, running = [], []
    for step in trace:
        seen = view.observed(_valuation(step.get("inputs")))
        for observation in seen:
            name = observation.capability or ", ".join(running) or "?"
            steps.append(f"{name} → {observation.outcome}")
        running = view.activated(_valuation(step.get("outputs")))
    return ", ".join(steps)


def leaving(exits: Any) -> str:
    """The outcomes through which a lasso's loop reaches the goal (its ``details.exits``):
    ``snack → failure``."""
    words = [f"{e.get('capability') or '?'} → {e.get('outcome')}" if e.get("outcome")
             else str(e.get("label") or "") for e in exits or [] if isinstance(e, Mapping)]
    return ", ".join(dict.fromkeys(w for w in words if w))


def _cycle(strategy: Strategy, states: list[int]) -> bool:
    """Whether the strategy can stay among ``states`` for ever (a successor among them)."""
    inside = {s for s in states if 0 <= s < len(strategy.states)}
    return any(t in inside for s in inside for t in strategy.states[s].successors)
