"""The supervisor machine: a (reduced) strategy as a state machine of capability invocations.

Both the FlexBE code generator (:mod:`bdi_supervisor.realize.flexbe`) and the embedded executor
run *this* model, so the two realize the same behavior.

Protocol (both encodings). In strategy state ``s`` the capability that ``s``'s outputs activate
runs (one-hot: ``<cap>_a``; enumerated: ``capability = i`` over the alphabetically sorted
capabilities 1..N, 0 being the start-up slot). Its observed outcome is the environment input of
the successor of ``s``: the successor ``t`` among ``s.successors`` whose inputs show outcome ``o``
(one-hot ``<cap>_<t>``, enumerated the generic ``completed`` / ``failure``) is where ``o`` leads.

Mapping of strategy states to machine states:

- a state that activates a capability → one :class:`MachineState` named ``<id>_<cap>``;
- a state that asserts an SM outcome (``finished`` …) → that container outcome (it is never a
  FlexBE state; edges into it end the machine);
- a state that activates nothing (enumerated ``capability = 0``, the ``begin_game`` pseudo
  capability, a one-hot state with no activation) → wiring: edges into it continue to what it
  leads to.

Several successors can show the same outcome when other environment inputs (sensors) differ.
Each such successor is a :class:`Branch` whose ``guard`` is its sensor valuation; the transition
is *ambiguous* when branches lead to different targets. The embedded executor resolves it with
:meth:`Transition.select` from the sensor values it reads; a FlexBE state only returns an outcome,
so the code generator refuses ambiguous transitions (see :func:`SupervisorMachine.ambiguities`).
The initial state is chosen among the strategy's initial states on which no outcome is observed
(nothing has run at start-up; others only if there is no such state), lowest id first; the
candidates are kept in ``initial_branches`` (sensor-dependent when their guards differ). Wiring
through an activation-free state follows the same rule for its successors.

A FlexBE outcome whose normalized outcome has no successor (the environment assumptions exclude
it there) still needs a transition; it leads to the container outcome :data:`UNEXPECTED` and is
marked ``excluded``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bdi_supervisor.catalog.interfaces import resolve_interface
from bdi_supervisor.catalog.model import Capability, Catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.safety import (
    check_identifier,
    check_label,
    check_literal,
)
from bdi_supervisor.synthesis.strategy import Strategy, StrategyState, Value

ONE_HOT = "one-hot"
ENUMERATED = "enumerated"
#: name of the enumerated activation variable
CAPABILITY_VARIABLE = "capability"
#: pseudo-capability of the reference used only at start-up; never a machine state
BOOTSTRAP_CAPABILITY = "begin_game"
#: container outcome for FlexBE outcomes the strategy's environment assumptions exclude
UNEXPECTED = "failed"
#: FlexBE autonomy levels (Off/Inherit 0, Low 1, High 2, Full 3); default per outcome
AUTONOMY_LEVELS = (0, 1, 2, 3)
DEFAULT_AUTONOMY = 1


@dataclass(frozen=True)
class Branch:
    """One successor realizing an outcome: its sensor ``guard``, ``target`` and the strategy path.

    ``target`` is a machine state name or a container outcome (``to_outcome``). ``path`` is the
    strategy ids from the successor through any activation-free states to the realized one.
    """

    guard: dict[str, Value]
    target: str
    path: tuple[int, ...]
    to_outcome: bool = False


@dataclass(frozen=True)
class Transition:
    """Where a normalized outcome leads: the default ``target`` and every branch."""

    outcome: str
    target: str
    to_outcome: bool
    branches: tuple[Branch, ...]
    excluded: bool = False  # no successor shows this outcome; target is UNEXPECTED

    @property
    def ambiguous(self) -> bool:
        """True when branches (different sensor values) lead to different targets."""
        return len({b.target for b in self.branches}) > 1

    def select(self, sensors: Mapping[str, Value] | None = None) -> str:
        """Target for the given sensor readings: the first branch whose guard they satisfy."""
        if sensors is not None:
            for branch in self.branches:
                if all(sensors.get(k) == v for k, v in branch.guard.items()):
                    return branch.target
        return self.target


@dataclass
class MachineState:
    """A FlexBE state instance realizing one strategy state.

    ``outcomes`` maps each FlexBE outcome of the interface to its normalized outcome, in the
    catalog's order; ``transitions`` is keyed by normalized outcome; ``autonomy`` by FlexBE
    outcome. ``parameters`` are resolved, validated literal values (``@var`` parameters already
    decoded through ``variable_mappings``). ``remapping`` maps the state's userdata keys to the
    container's keys.
    """

    name: str
    strategy_id: int
    capability: str
    interface: str
    interface_module: str
    interface_class: str
    parameters: dict[str, object]
    outcomes: dict[str, str]
    autonomy: dict[str, int]
    transitions: dict[str, Transition]
    userdata_in: dict[str, str] = field(default_factory=dict)
    userdata_out: dict[str, str] = field(default_factory=dict)

    def flexbe_transitions(self) -> dict[str, str]:
        """FlexBE outcome → target (state name or container outcome), in outcome order."""
        return {f: self.transitions[n].target for f, n in self.outcomes.items()}

    @property
    def remapping(self) -> dict[str, str]:
        """State userdata key → container key, inputs then outputs."""
        merged = dict(self.userdata_in)
        merged.update(self.userdata_out)
        return merged


@dataclass
class SupervisorMachine:
    """The realized supervisor: states in strategy order (initial first), container outcomes."""

    name: str
    encoding: str
    states: list[MachineState]
    initial: str
    outcomes: tuple[str, ...]
    initial_branches: tuple[Branch, ...] = ()
    #: container userdata keys (remapping targets), sorted
    userdata_keys: tuple[str, ...] = ()
    #: strategy state id → why it is not a machine state ("outcome:<name>", "wiring", "unreachable")
    dropped: dict[int, str] = field(default_factory=dict)

    def state(self, name: str) -> MachineState:
        for state in self.states:
            if state.name == name:
                return state
        raise KeyError(name)

    @property
    def state_names(self) -> list[str]:
        return [s.name for s in self.states]

    def ambiguities(self) -> list[str]:
        """Human-readable descriptions of transitions that depend on sensor values."""
        found = []
        if len({b.target for b in self.initial_branches}) > 1:
            found.append("initial state depends on sensors: " + _describe(self.initial_branches))
        for state in self.states:
            for transition in state.transitions.values():
                if transition.ambiguous:
                    found.append(f"state {state.name!r}, outcome {transition.outcome!r}: "
                                 + _describe(transition.branches))
        return found

    def used_outcomes(self) -> list[str]:
        """Container outcomes that some transition leads to, in declaration order."""
        targets = {t.target for s in self.states for t in s.transitions.values() if t.to_outcome}
        return [o for o in self.outcomes if o in targets]


def _describe(branches: Iterable[Branch]) -> str:
    return "; ".join(f"{b.guard} -> {b.target}" for b in branches)


# ---------------------------------------------------------------------------------------------
# encoding helpers


def capability_order(catalog: Catalog) -> list[str]:
    """Capabilities of the enumerated encoding: sorted names, value i+1 for the i-th."""
    return sorted(c for c in catalog.capabilities if c != BOOTSTRAP_CAPABILITY)


def detect_encoding(strategy: Strategy) -> str:
    """``enumerated`` when the strategy has the integer ``capability`` output, else ``one-hot``."""
    for variable in strategy.variables:
        if (variable.name == CAPABILITY_VARIABLE and variable.owner == "sys"
                and variable.kind == "int"):
            return ENUMERATED
    return ONE_HOT


def outcome_variable(catalog: Catalog, capability: str, outcome: str, encoding: str) -> str:
    """The env proposition that shows ``outcome`` of ``capability`` on arrival."""
    if encoding == ONE_HOT:
        return f"{capability}_{catalog.outcome_suffix(outcome)}"
    suffix = catalog.outcome_suffix(outcome)
    for generic in catalog.transition_outcomes:
        if catalog.outcome_suffix(generic) == suffix:
            return generic
    return outcome


# ---------------------------------------------------------------------------------------------
# building


@dataclass
class _Context:
    strategy: Strategy
    catalog: Catalog
    encoding: str
    sm_props: dict[str, str]  # spec proposition → container outcome name
    outcome_vars: frozenset[str]
    order: list[str]
    source: str
    edges: Mapping[int, list[tuple[Mapping[str, Value], int]]] | None = None


def check_catalog(catalog: Catalog) -> None:
    """The checks realization makes on the catalog alone (names, interfaces, parameter names
    and constant values, outcome labels, autonomy, userdata keys), so a catalog that could never
    be realized is refused before synthesis rather than after it (:class:`InputError`)."""
    for cap_name, cap in catalog.capabilities.items():
        where = f"capabilities.{cap_name}"
        check_identifier(cap_name, "capability name", where)
        resolve_interface(cap.interface, f"{where}.interface")
        for param in cap.parameters:
            key = f"{where}.parameters.{param.name}"
            check_identifier(param.name, "parameter name", key)
            if param.variable is None:
                check_literal(param.value, "parameter value", key)
            else:
                enum = catalog.variables.get(param.variable)
                for label in (enum.labels.values() if enum is not None else ()):
                    check_literal(label, "parameter value", f"variable_mappings.{param.variable}")
        mapping = dict(cap.flexbe_outcomes) or {o: o for o in cap.outcomes}
        for flexbe in mapping:
            check_label(flexbe, "FlexBE outcome", f"{where}.outcomes")
            level = cap.autonomy.get(flexbe, DEFAULT_AUTONOMY)
            if isinstance(level, bool) or level not in AUTONOMY_LEVELS:
                raise InputError("autonomy level out of range", key=f"{where}.autonomy.{flexbe}",
                                 found=repr(level), expected="0, 1, 2 or 3")
        for key_map, what in ((cap.userdata_in, "userdata_in"), (cap.userdata_out, "userdata_out")):
            for local, remote in key_map.items():
                check_identifier(local, "userdata key", f"{where}.{what}")
                check_identifier(remote, "userdata remapping", f"{where}.{what}.{local}")


def build_machine(
    strategy: Strategy,
    catalog: Catalog,
    *,
    encoding: str | None = None,
    sm_outcomes: Mapping[str, str] | None = None,
    name: str | None = None,
    source: str = "<strategy>",
    edges: Mapping[int, list[tuple[Mapping[str, Value], int]]] | None = None,
) -> SupervisorMachine:
    """Build the supervisor machine of a (reduced) ``strategy`` over ``catalog``.

    ``encoding`` defaults to :func:`detect_encoding`. ``sm_outcomes`` maps container outcome
    names to spec propositions (default: the catalog's ``sm_outcome_mappings`` restricted to
    propositions that are strategy outputs). ``edges`` optionally labels each state's outgoing
    edges with their arrival input (state id → [(inputs, successor id)], see
    :func:`edges_from_provenance`); without it the successor's ``inputs`` are the label, read
    as a union (each outcome of the active capability they show leads there). Raises
    :class:`InputError` on unsafe names, unresolvable parameters or a strategy that breaks the
    activation/outcome protocol.
    """
    encoding = encoding or detect_encoding(strategy)
    sm_outcomes = _checked_outcomes(strategy, catalog, encoding, sm_outcomes, source)
    outcome_vars = {outcome_variable(catalog, cap_name, outcome, encoding)
                    for cap_name, cap in catalog.capabilities.items() for outcome in cap.outcomes}
    ctx = _Context(strategy, catalog, encoding, {p: o for o, p in sm_outcomes.items()},
                   frozenset(outcome_vars), capability_order(catalog), source, edges)
    names, dropped = _state_names(ctx)
    initial_branches = _initial_branches(ctx, names)
    if not initial_branches:
        raise InputError("strategy has no initial state that leads to a capability",
                         file=source, key="states")
    first = initial_branches[0]
    if first.to_outcome:
        raise InputError("strategy starts in an SM outcome; nothing to run", file=source,
                         key=f"states[{first.path[0]}]", found=first.target)

    states: dict[str, MachineState] = {}
    for state in strategy.states:
        if state.id not in names:
            continue
        machine_state = _machine_state(ctx, state, names)
        states[machine_state.name] = machine_state

    reachable = _reachable(first.target, initial_branches, states)
    ordered = [states[first.target]] + [
        s for s in states.values() if s.name != first.target and s.name in reachable
    ]
    for s in states.values():
        if s.name not in reachable:
            dropped[s.strategy_id] = "unreachable"
    outcomes = list(sm_outcomes)
    needs_unexpected = any(t.excluded for s in ordered for t in s.transitions.values())
    if needs_unexpected and UNEXPECTED not in outcomes:
        outcomes.append(UNEXPECTED)
    keys = sorted({k for s in ordered for k in s.remapping.values()})
    return SupervisorMachine(
        name=name or strategy.name,
        encoding=encoding,
        states=ordered,
        initial=first.target,
        outcomes=tuple(outcomes),
        initial_branches=tuple(initial_branches),
        userdata_keys=tuple(keys),
        dropped=dict(sorted(dropped.items())),
    )


def _checked_outcomes(strategy: Strategy, catalog: Catalog, encoding: str,
                      sm_outcomes: Mapping[str, str] | None, source: str) -> Mapping[str, str]:
    """The encoding, capability names, activations and SM outcomes checked against the strategy;
    the SM outcomes (default: the catalog's whose propositions the strategy outputs)."""
    if encoding not in (ONE_HOT, ENUMERATED):
        raise InputError("unknown encoding", key="encoding", found=repr(encoding),
                         expected=f"{ONE_HOT!r} or {ENUMERATED!r}")
    for cap in catalog.capabilities:
        check_identifier(cap, "capability name", f"capabilities.{cap}")
    outputs = set(strategy.output_names)
    _check_activations(strategy, catalog, encoding, source)
    if sm_outcomes is None:
        sm_outcomes = {o: p for o, p in catalog.sm_outcome_mappings.items() if p in outputs}
    for outcome, prop in sm_outcomes.items():
        check_label(outcome, "SM outcome", f"sm_outcome_mappings.{outcome}")
        if prop not in outputs:
            raise InputError("SM outcome proposition is not a strategy output", file=source,
                             key=f"sm_outcome_mappings.{outcome}", found=repr(prop))
    return sm_outcomes


def _state_names(ctx: _Context) -> tuple[dict[int, str], dict[int, str]]:
    """The FlexBE name ``<id>_<capability>`` of every strategy state that activates a
    capability, and why each other state is dropped (``outcome:<o>`` or ``wiring``)."""
    names: dict[int, str] = {}
    dropped: dict[int, str] = {}
    for state in ctx.strategy.states:
        kind, value = _classify(ctx, state)
        if kind == "capability":
            names[state.id] = f"{state.id}_{value}"
        elif kind == "outcome":
            dropped[state.id] = f"outcome:{value}"
        else:
            dropped[state.id] = "wiring"
    return names, dropped


def _check_activations(strategy: Strategy, catalog: Catalog, encoding: str, source: str) -> None:
    """The strategy must have been synthesized over this catalog's capabilities."""
    order = capability_order(catalog)
    if encoding == ONE_HOT:
        missing = [c for c in order if f"{c}_a" not in strategy.output_names]
        if missing:
            raise InputError("strategy was not synthesized from this catalog", file=source,
                             key="variables", found="no activation for " + ", ".join(missing),
                             expected="an output <cap>_a per catalog capability")
        return
    variable = next((v for v in strategy.variables if v.name == CAPABILITY_VARIABLE), None)
    if variable is None:
        raise InputError("enumerated strategy without the capability variable", file=source,
                         key="variables", expected=f"an integer output {CAPABILITY_VARIABLE!r}")
    if variable.high < len(order):
        raise InputError("strategy was not synthesized from this catalog", file=source,
                         key=f"variables.{CAPABILITY_VARIABLE}", found=f"0..{variable.high}",
                         expected=f"0..{len(order)} for {len(order)} capabilities")


def _classify(ctx: _Context, state: StrategyState) -> tuple[str, str | None]:
    """("outcome", name) | ("capability", cap) | ("null", None) for a strategy state."""
    for prop, outcome in ctx.sm_props.items():
        if state.outputs.get(prop):
            return "outcome", outcome
    if ctx.encoding == ENUMERATED:
        index = state.outputs.get(CAPABILITY_VARIABLE, 0)
        if (isinstance(index, bool) or not isinstance(index, int)
                or not 0 <= index <= len(ctx.order)):
            raise InputError("capability value out of range", file=ctx.source,
                             key=f"states[{state.id}].outputs.{CAPABILITY_VARIABLE}",
                             found=repr(index), expected=f"0..{len(ctx.order)}")
        return ("capability", ctx.order[index - 1]) if index else ("null", None)
    active = [c for c in ctx.catalog.capabilities if state.outputs.get(f"{c}_a")]
    active = [c for c in active if c != BOOTSTRAP_CAPABILITY]
    if len(active) > 1:
        raise InputError("several capabilities active at once (concurrency is not realized)",
                         file=ctx.source, key=f"states[{state.id}].outputs",
                         found=", ".join(sorted(active)), expected="at most one activation")
    return ("capability", active[0]) if active else ("null", None)


def _guard(ctx: _Context, state: StrategyState) -> dict[str, Value]:
    return {k: v for k, v in sorted(state.inputs.items()) if k not in ctx.outcome_vars}


def _branches(ctx: _Context, state_id: int, names: dict[int, str],
              seen: tuple[int, ...] = ()) -> list[Branch]:
    """Realized targets of entering strategy state ``state_id`` (following wiring states)."""
    state = ctx.strategy.state(state_id)
    if state_id in names:
        return [Branch(_guard(ctx, state), names[state_id], (*seen, state_id))]
    kind, value = _classify(ctx, state)
    if kind == "outcome":
        return [Branch(_guard(ctx, state), value, (*seen, state_id), to_outcome=True)]
    if state_id in seen:
        raise InputError("strategy can stay forever in states that activate nothing",
                         file=ctx.source, key=f"states[{state_id}]",
                         found=" -> ".join(map(str, (*seen, state_id))))
    found: list[Branch] = []
    for _arrival, succ in _quiet_first(_edges(ctx, state), ctx):
        found.extend(_branches(ctx, succ, names, (*seen, state_id)))
    if not found:
        raise InputError("state activates nothing and has no successor", file=ctx.source,
                         key=f"states[{state_id}]")
    return found


def _quiet_first(edges: list[tuple[Mapping[str, Value], int]],
                 ctx: _Context) -> list[tuple[Mapping[str, Value], int]]:
    """Edges entered after no capability ran: those whose arrival shows no outcome, by id.

    At start-up and after an activation-free state nothing has run, so arrivals that show an
    outcome cannot happen (the enumerated encoding leaves outcomes unconstrained there); they
    are used only when no quiet arrival exists.
    """
    quiet = [e for e in edges if not any(v for k, v in e[0].items() if k in ctx.outcome_vars)]
    return sorted(quiet or edges, key=lambda e: e[1])


def _initial_branches(ctx: _Context, names: dict[int, str]) -> list[Branch]:
    """Start candidates, one per environment input (sensor guard), lowest id first.

    Initial states that share the environment's input differ only in the system's choice
    (e.g. an unconstrained initial integer); any of them is correct, the lowest id is taken.
    """
    initial = ctx.strategy.initial_states or ctx.strategy.states[:1]
    found: dict[tuple, Branch] = {}
    for _inputs, state_id in _quiet_first([(s.inputs, s.id) for s in initial], ctx):
        for branch in _branches(ctx, state_id, names):
            found.setdefault(tuple(branch.guard.items()), branch)
    return list(found.values())


def _observed(ctx: _Context, capability: str, cap: Capability,
              arrival: Mapping[str, Value]) -> list[str]:
    """Outcomes of ``capability`` that an arrival input shows (several on merged labels)."""
    return [o for o in cap.outcomes
            if arrival.get(outcome_variable(ctx.catalog, capability, o, ctx.encoding))]


def _edges(ctx: _Context, state: StrategyState) -> list[tuple[Mapping[str, Value], int]]:
    """(arrival input, successor id) pairs of ``state``: explicit labels, else the strategy's."""
    if ctx.edges is not None and state.id in ctx.edges:
        return [(dict(inputs), succ) for inputs, succ in ctx.edges[state.id]]
    return ctx.strategy.edges(state.id)  # reducer's per-edge inputs, else successors' inputs


def edges_from_provenance(
    raw: Strategy, reduced: Strategy, members: Mapping[int, Iterable[int]]
) -> dict[int, list[tuple[dict[str, Value], int]]]:
    """Labelled edges of a reduced strategy, recovered from the raw one.

    ``members`` maps each reduced state id to the raw state ids it merges. Merged states no
    longer carry one arrival input, so each reduced edge is labelled with the raw successor's
    input: for a member ``r`` of reduced state ``s`` and each raw successor ``r2`` of ``r``, the
    edge ``s --r2.inputs--> block(r2)``. All members of a block agree on these (that is what
    the reducer's partition guarantees); the first member is used.
    """
    block = {r: s for s, rs in members.items() for r in rs}
    edges: dict[int, list[tuple[dict[str, Value], int]]] = {}
    for state in reduced.states:
        raw_ids = list(members.get(state.id, ()))
        if not raw_ids:
            continue
        representative = raw.state(raw_ids[0])
        edges[state.id] = [(dict(raw.state(r2).inputs), block[r2])
                           for r2 in representative.successors if r2 in block]
    return edges


def _machine_state(ctx: _Context, state: StrategyState, names: dict[int, str]) -> MachineState:
    _, capability = _classify(ctx, state)
    cap = ctx.catalog.capabilities[capability]
    where = f"capabilities.{capability}"
    module, cls = resolve_interface(cap.interface, f"{where}.interface", ctx.catalog.source)

    branches: dict[str, list[Branch]] = {}
    for arrival, succ_id in _edges(ctx, state):
        observed = _observed(ctx, capability, cap, arrival)
        if not observed:
            raise InputError(
                "successor shows no outcome of the active capability",
                file=ctx.source, key=f"states[{succ_id}].inputs",
                found=f"{sorted(k for k, v in arrival.items() if v)} after {capability!r} "
                      f"in state {state.id}",
                expected=f"one of {list(cap.outcomes)}")
        for outcome in observed:
            found = _branches(ctx, succ_id, names)
            guard = {k: v for k, v in sorted(arrival.items()) if k not in ctx.outcome_vars}
            found = [Branch(guard, b.target, b.path, b.to_outcome) if b.path == (succ_id,)
                     else b for b in found]
            branches.setdefault(outcome, []).extend(found)

    flexbe_outcomes = _flexbe_outcomes(ctx, cap, where)
    transitions: dict[str, Transition] = {}
    for normalized in dict.fromkeys(flexbe_outcomes.values()):
        found = _unique(branches.get(normalized, []))
        if found:
            transitions[normalized] = Transition(normalized, found[0].target, found[0].to_outcome,
                                                 tuple(found))
        else:
            transitions[normalized] = Transition(normalized, UNEXPECTED, True, (), excluded=True)
    unmapped = set(branches) - set(transitions)
    if unmapped:
        raise InputError("outcome observed in the strategy has no FlexBE outcome",
                         file=ctx.source, key=f"{where}.outcomes", found=repr(sorted(unmapped)))

    autonomy = {}
    for outcome in flexbe_outcomes:
        level = cap.autonomy.get(outcome, DEFAULT_AUTONOMY)
        if isinstance(level, bool) or level not in AUTONOMY_LEVELS:
            raise InputError("autonomy level out of range", key=f"{where}.autonomy.{outcome}",
                             found=repr(level), expected="0, 1, 2 or 3")
        autonomy[outcome] = level

    for key_map, what in ((cap.userdata_in, "userdata_in"), (cap.userdata_out, "userdata_out")):
        for local, remote in key_map.items():
            check_identifier(local, "userdata key", f"{where}.{what}")
            check_identifier(remote, "userdata remapping", f"{where}.{what}.{local}")

    return MachineState(
        name=check_label(names[state.id], "state name"),
        strategy_id=state.id,
        capability=capability,
        interface=cap.interface,
        interface_module=module,
        interface_class=cls,
        parameters=_parameters(ctx, state, cap, where),
        outcomes=flexbe_outcomes,
        autonomy=autonomy,
        transitions=transitions,
        userdata_in=dict(cap.userdata_in),
        userdata_out=dict(cap.userdata_out),
    )


def _unique(branches: list[Branch]) -> list[Branch]:
    seen, kept = set(), []
    for branch in branches:
        key = (tuple(branch.guard.items()), branch.target)
        if key not in seen:
            seen.add(key)
            kept.append(branch)
    return kept


def _flexbe_outcomes(ctx: _Context, cap: Capability, where: str) -> dict[str, str]:
    """FlexBE outcome → normalized outcome; falls back to normalized names when none declared."""
    mapping = dict(cap.flexbe_outcomes) or {o: o for o in cap.outcomes}
    for flexbe, normalized in mapping.items():
        check_label(flexbe, "FlexBE outcome", f"{where}.outcomes")
        if normalized not in cap.outcomes:
            raise InputError("FlexBE outcome maps to an outcome the capability does not have",
                             key=f"{where}.outcomes.{flexbe}", found=repr(normalized),
                             expected=f"one of {list(cap.outcomes)}")
    return mapping


def _parameters(ctx: _Context, state: StrategyState, cap: Capability,
                where: str) -> dict[str, object]:
    values: dict[str, object] = {}
    for param in cap.parameters:
        key = f"{where}.parameters.{param.name}"
        check_identifier(param.name, "parameter name", key)
        if param.variable is None:
            values[param.name] = check_literal(param.value, "parameter value", key)
            continue
        values[param.name] = check_literal(_decode(ctx, state, param.variable, key),
                                           "parameter value", key)
    return values


def _decode(ctx: _Context, state: StrategyState, variable: str, key: str) -> object:
    """Value of ``@variable`` in ``state`` (outputs, else inputs), decoded through its labels."""
    if variable in state.outputs:
        raw = state.outputs[variable]
    elif variable in state.inputs:
        raw = state.inputs[variable]
    else:
        raise InputError(f"'@{variable}' is not a variable of the strategy", file=ctx.source,
                         key=key, found=repr(variable),
                         expected="an output or input of state " + str(state.id))
    enum = ctx.catalog.variables.get(variable)
    if enum is None or isinstance(raw, bool):
        return raw
    if raw not in enum.labels:
        raise InputError(f"value of '{variable}' has no label in variable_mappings",
                         key=f"variable_mappings.{variable}", found=repr(raw),
                         expected=f"one of {sorted(enum.labels)}")
    return enum.labels[raw]


def _reachable(initial: str, initial_branches: Iterable[Branch],
               states: Mapping[str, MachineState]) -> set[str]:
    """Machine states reachable from the initial candidates over all branches."""
    todo = [b.target for b in initial_branches if not b.to_outcome] + [initial]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for transition in states[name].transitions.values():
            todo.extend(b.target for b in transition.branches if not b.to_outcome)
    return seen
