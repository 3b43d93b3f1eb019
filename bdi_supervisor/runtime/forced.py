"""Forced outcomes: scripted, seeded random, and exhaustive forced-outcome checks.

A :class:`ForcedAdapter` stands in front of a capability's adapter (or replaces it, for the
``forced`` simulator) and lets an :class:`OutcomePolicy` decide the outcome:

- :class:`ScriptPolicy` — ``cap=outcome`` entries (``pick=failure, pick=completed``), consumed in
  order per capability; ``cap#n=outcome`` forces the n-th activation only;
- :class:`RandomPolicy` — seeded failures with a probability per capability (e.g. Two-Rivers
  crossings failing in "high wind"), one random stream per capability.

Forcing a *failure* never calls the simulator (nothing happens, as when a state fails at once);
forcing *completed* in front of a real simulator only lets the simulator run (a world that did not
do the work must not be reported as done). Every decided outcome carries ``forced=True`` and its
``layer`` (``override`` for scripts, ``random`` for the random policy).

:func:`exhaustive_check` runs, for each state of the supervisor machine and each declared outcome
of its capability, one executor step with that outcome forced, and compares where the executor
went with what the audited strategy prescribes (:func:`expected_targets`, computed from the
strategy's successors, not from the machine's wiring).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.runtime.adapters import Activation, Adapter, AdapterInfo, Outcome

#: ``cap=outcome`` or ``cap#n=outcome`` (the n-th activation, n of at most 9 digits)
_ENTRY = re.compile(r"^(?P<cap>[A-Za-z_][A-Za-z0-9_]*)(?:#(?P<n>[0-9]{1,9}))?"
                    r"=(?P<out>[A-Za-z_][A-Za-z0-9_]*)$")


@dataclass(frozen=True)
class Decision:
    """An outcome a policy forces, why, and by which layer (``override`` or ``random``)."""

    outcome: str
    reason: str
    layer: str


class OutcomePolicy(Protocol):
    def choose(self, activation: Activation, declared: tuple[str, ...]) -> Decision | None:
        """The outcome to force for this activation, or ``None`` to let it run."""


def normalize_outcome(catalog: Catalog, capability: str, name: str) -> str | None:
    """A normalized outcome of ``capability`` from a normalized or FlexBE outcome name."""
    cap = catalog.capabilities.get(capability)
    if cap is None:
        return None
    if name in cap.outcomes:
        return name
    mapped = cap.flexbe_outcomes.get(name) or catalog.state_outcome_mappings.get(name)
    return mapped if mapped in cap.outcomes else None


@dataclass
class ScriptPolicy:
    """Per capability, a queue of outcomes (and outcomes pinned to the n-th activation)."""

    queues: dict[str, list[str]] = field(default_factory=dict)
    pinned: dict[tuple[str, int], str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    layer: str = "override"

    def choose(self, activation: Activation, declared: tuple[str, ...]) -> Decision | None:
        cap = activation.capability
        n = self.counts.get(cap, 0) + 1
        self.counts[cap] = n
        if (cap, n) in self.pinned:
            return Decision(self.pinned[(cap, n)], f"forced by script ({cap}#{n})", self.layer)
        queue = self.queues.get(cap)
        if queue:
            return Decision(queue.pop(0), "forced by script", self.layer)
        return None

    def pending(self) -> dict[str, list[str]]:
        return {cap: list(q) for cap, q in self.queues.items() if q}


def parse_script(text: str, catalog: Catalog, source: str = "--force") -> ScriptPolicy:
    """Parse ``cap=outcome`` entries (separated by commas, semicolons, blanks or newlines;
    ``#`` starts a comment only at the start of a line). Outcomes may be FlexBE outcome names."""
    policy = ScriptPolicy()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    for index, entry in enumerate(e for e in re.split(r"[,;\s]+", "\n".join(lines)) if e):
        match = _ENTRY.match(entry)
        key = f"entry {index + 1}"
        if not match:
            raise InputError("bad forced-outcome entry", file=source, key=key, found=repr(entry),
                             expected="capability=outcome or capability#n=outcome")
        cap, out = match["cap"], match["out"]
        if cap not in catalog.capabilities:
            raise InputError("unknown capability in forced-outcome script", file=source, key=key,
                             found=cap, expected=", ".join(sorted(catalog.capabilities)))
        outcome = normalize_outcome(catalog, cap, out)
        if outcome is None:
            cap_obj = catalog.capabilities[cap]
            raise InputError(f"capability '{cap}' does not declare this outcome", file=source,
                             key=key, found=out,
                             expected=", ".join([*cap_obj.outcomes, *cap_obj.flexbe_outcomes]))
        if match["n"]:
            policy.pinned[(cap, int(match["n"]))] = outcome
        else:
            policy.queues.setdefault(cap, []).append(outcome)
    return policy


def load_script(value: str, catalog: Catalog) -> ScriptPolicy:
    """``--force`` takes a file (if it exists) or the entries themselves."""
    path = Path(value)
    try:
        is_file = path.is_file()
    except OSError:  # e.g. entries longer than a file name may be
        is_file = False
    if is_file:
        from bdi_supervisor.yamlsource import read_text

        return parse_script(read_text(path, "forced-outcome script"), catalog, str(path))
    return parse_script(value, catalog)


@dataclass
class RandomPolicy:
    """Seeded random failures: ``probabilities`` per capability (``default`` for the others).

    Each capability draws from a stream of its own, seeded by ``seed`` and the capability's name,
    once per activation of that capability: whether its n-th activation fails depends on the seed
    and n only, not on what other capabilities did in between. So a process that serves some
    capabilities alone (a domain's world node under FlexBE, which never sees the behavior's
    LogState activations) decides their outcomes as the embedded runner does, with a policy of
    its own fed only their activations.
    """

    seed: int = 0
    probabilities: dict[str, float] = field(default_factory=dict)
    default: float = 0.0
    reasons: dict[str, str] = field(default_factory=dict)
    layer: str = "random"

    def __post_init__(self) -> None:
        self._streams: dict[str, random.Random] = {}

    def _stream(self, capability: str) -> random.Random:
        stream = self._streams.get(capability)
        if stream is None:  # a str seed is hashed with SHA-512: the same in every process
            stream = self._streams[capability] = random.Random(f"{self.seed}/{capability}")
        return stream

    def choose(self, activation: Activation, declared: tuple[str, ...]) -> Decision | None:
        p = self.probabilities.get(activation.capability, self.default)
        draw = self._stream(activation.capability).random()  # drawn every activation
        failures = [o for o in declared if o != "completed"]
        if failures and draw < p:
            reason = self.reasons.get(activation.capability, "random failure")
            return Decision(failures[0], f"{reason} (seeded, p={p:g})", self.layer)
        return None


@dataclass
class ChainPolicy:
    """The first policy that decides wins (e.g. a script, then random failures)."""

    policies: list[Any]

    def choose(self, activation: Activation, declared: tuple[str, ...]) -> Decision | None:
        for policy in self.policies:
            decision = policy.choose(activation, declared)
            if decision is not None:
                return decision
        return None


def scripted_only(policy: OutcomePolicy | None) -> OutcomePolicy | None:
    """``policy`` without its random layers (what an operator's own decisions keep: a person
    answers them, a script may still override them)."""
    if isinstance(policy, RandomPolicy):
        return None
    if isinstance(policy, ChainPolicy):
        kept = [p for p in policy.policies if not isinstance(p, RandomPolicy)]
        return None if not kept else kept[0] if len(kept) == 1 else ChainPolicy(kept)
    return policy


class ForcedAdapter:
    """Puts an outcome policy in front of ``inner`` (``None``: nominal ``completed`` otherwise)."""

    def __init__(self, capability: str, declared: tuple[str, ...], policy: OutcomePolicy | None,
                 inner: Adapter | None = None, nominal: str = "completed") -> None:
        self.capability = capability
        self.declared = tuple(declared)
        self.policy = policy
        self.inner = inner
        self.nominal = nominal
        inner_info = inner.describe() if inner is not None else None
        kind = f"forced+{inner_info.kind}" if inner_info else "forced"
        self.info = AdapterInfo(kind, self.declared, inner_info.timeout if inner_info else 5.0)

    def describe(self) -> AdapterInfo:
        return self.info

    def start(self, activation: Activation) -> Any:
        decision = None
        if self.policy is not None:
            decision = self.policy.choose(activation, self.declared)
        if decision is not None and (self.inner is None or decision.outcome != self.nominal):
            return ("forced", Outcome(decision.outcome, decision.reason, forced=True,
                                      layer=decision.layer))
        if self.inner is None:
            return ("forced", Outcome(self.nominal, "nominal outcome"))
        return ("inner", self.inner.start(activation))

    def poll(self, handle: Any) -> Outcome | None:
        kind, value = handle
        return value if kind == "forced" else self.inner.poll(value)

    def cancel(self, handle: Any) -> None:
        kind, value = handle
        if kind == "inner":
            self.inner.cancel(value)


# ---------------------------------------------------------------------------------------------
# exhaustive forced-outcome check


@dataclass(frozen=True)
class ForcedCheck:
    """One forced outcome at one machine state: where the executor went vs the strategy."""

    state: str
    capability: str
    outcome: str
    actual: str
    expected: tuple[str, ...]

    @property
    def ok(self) -> bool:
        if not self.expected:  # the strategy excludes this outcome here: must be reported
            return self.actual == "assumption_violated"
        return self.actual in self.expected


def expected_targets(strategy, catalog: Catalog, encoding: str, state_id: int, capability: str,
                     outcome: str, sm_props: Mapping[str, str],
                     edges: Mapping[int, list[tuple[Mapping[str, Any], int]]] | None = None
                     ) -> tuple[str, ...]:
    """Where the strategy goes from ``state_id`` when ``capability`` reports ``outcome``.

    Successors whose arrival input shows the outcome (one-hot ``<cap>_<t>``, enumerated the generic
    outcome), followed through states that activate nothing; each is named as the machine names it
    (``<id>_<cap>``) or by the SM outcome it asserts (``sm_props``: proposition → outcome).
    """
    from bdi_supervisor.realize.machine import capability_order, outcome_variable

    shown = outcome_variable(catalog, capability, outcome, encoding)
    order = capability_order(catalog)

    def arrivals(sid: int) -> list[tuple[Mapping[str, Any], int]]:
        if edges is not None and sid in edges:
            return list(edges[sid])
        state = strategy.state(sid)
        labels = getattr(state, "edge_inputs", None)  # reduced strategies label their edges
        if labels is not None:
            return list(zip(labels, state.successors))
        return [(strategy.state(s).inputs, s) for s in state.successors]

    def name(sid: int, seen: frozenset[int]) -> set[str]:
        state = strategy.state(sid)
        for prop, sm_outcome in sm_props.items():
            if state.outputs.get(prop):
                return {sm_outcome}
        if encoding == "enumerated":
            index = state.outputs.get("capability", 0)
            active = [order[index - 1]] if index else []
        else:
            active = [c for c in catalog.capabilities
                      if c != "begin_game" and state.outputs.get(f"{c}_a")]
        if active:
            return {f"{sid}_{active[0]}"}
        if sid in seen:
            return set()
        found: set[str] = set()
        for _, succ in arrivals(sid):
            found |= name(succ, seen | {sid})
        return found

    result: set[str] = set()
    for inputs, succ in arrivals(state_id):
        if inputs.get(shown):
            result |= name(succ, frozenset({state_id}))
    return tuple(sorted(result))


def forced_step(machine, catalog: Catalog, state_name: str, outcome: str,
                strategy=None) -> str:
    """One executor step from ``state_name`` with ``outcome`` forced on its capability; returns
    the machine state or SM outcome it led to, or ``assumption_violated``."""
    from bdi_supervisor.runtime.executor import Executor

    capability = machine.state(state_name).capability
    adapters = {}
    for cap in {s.capability for s in machine.states}:
        declared = tuple(catalog.capabilities[cap].outcomes)
        policy = ScriptPolicy(pinned={(cap, 1): outcome}) if cap == capability else None
        adapters[cap] = ForcedAdapter(cap, declared, policy)
    executor = Executor(machine, catalog, adapters, strategy=strategy)
    step, status = executor.step(state_name)
    if not step.outcome.forced or step.outcome.outcome != outcome:
        raise AssertionError(f"outcome {outcome!r} was not forced at {state_name}")
    return "assumption_violated" if status == "assumption_violated" else step.next


def exhaustive_check(machine, strategy, catalog: Catalog,
                     run_step: Callable[[str, str], str] | None = None,
                     sm_props: Mapping[str, str] | None = None,
                     edges: Mapping | None = None) -> list[ForcedCheck]:
    """Force every declared outcome at every machine state and compare with the strategy.

    ``run_step(state_name, outcome)`` runs one executor step from ``state_name`` with ``outcome``
    forced and returns where it went (machine state, SM outcome, or ``assumption_violated``);
    default :func:`forced_step`.
    """
    if run_step is None:
        def run_step(state_name: str, outcome: str) -> str:
            return forced_step(machine, catalog, state_name, outcome, strategy)
    if sm_props is None:
        sm_props = {p: o for o, p in catalog.sm_outcome_mappings.items()
                    if p in set(strategy.output_names)}
    checks: list[ForcedCheck] = []
    for state in machine.states:
        cap = catalog.capabilities[state.capability]
        for outcome in cap.outcomes:
            actual = run_step(state.name, outcome)
            expected = expected_targets(strategy, catalog, machine.encoding, state.strategy_id,
                                        state.capability, outcome, sm_props, edges)
            checks.append(ForcedCheck(state.name, state.capability, outcome, actual, expected))
    return checks


def declared_outcomes(catalog: Catalog, capabilities: Iterable[str]) -> dict[str, tuple[str, ...]]:
    return {c: tuple(catalog.capabilities[c].outcomes) for c in capabilities}
