"""GR(1) specification generation from a capability catalog and a request.

Public API:

- :func:`generate_spec` — a :class:`~bdi_supervisor.mission.model.Mission` (with optional
  option overrides) to a :class:`GR1Spec`.
- :func:`generate` — the same from a catalog, a request, custom constraints and options.

The formula schemas are the reference pipeline's (docs/spec.md; deviations in docs/differences.md),
built as
syntax trees; every clause carries an :class:`Origin` naming its capability and rule. Rules, in
the order they are emitted:

capability module
    ``sm-outcome-initial`` ``!o``, ``sm-outcome-absorbing`` ``o -> o'``; ``memory-initial``;
    ``initial-activation`` ``!c_a``; ``initial-outcomes`` ``!c_t``; ``exactly-one-outcome``
    ``c_a -> OR c_t'`` and ``at-most-one-outcome`` ``c_a -> !(c_t1' & c_t2')``;
    ``no-outcome-unless-active`` ``!c_a -> !c_t'``; ``one-activation`` (exactly one of the
    activations and SM outcomes in every next state).
transition system
    ``transition-relation`` ``c_t' -> OR target'``; ``precondition`` ``!(AND pre') -> !c_a'``;
    ``postcondition`` ``c_t' -> post'`` (system side, or environment side for environment
    variables); ``frame`` (a variable keeps its value unless one of its setters' outcomes occurs).
request
    ``initial-condition`` (replaces the default initial value of the variables it mentions);
    with SM outcomes and goals ``goal-success`` ``(!G & G') -> S'`` and ``goal-required``
    ``(!G' & !S) -> !S'``; without SM outcomes each goal conjunct becomes a system liveness.
liveness
    ``system-goal`` (S): ``GF(OR sm | goal | OR !(c_a -> c_c'))`` per goal (the reference allows
    one goal only); ``fair-outcome`` (F): environment ``GF(!c_a | c_c')`` per failure-capable
    capability plus ``GF(OR sm)`` if there is no system liveness yet.
pending (P)
    ``c_p``: ``pending-set`` ``c_a' -> c_p'``, ``pending-failure`` ``c_a & fail' -> c_p'``,
    ``pending-clear`` ``!c_a' & c_a & c_c' -> !c_p'``, ``pending-keep``
    ``!(c_a | c_a') -> (c_p' <-> c_p)``; with F the environment liveness reads ``GF(!c_p | c_c')``.

Conditions without a prime are next-state conditions (primed here); conditions written with primes
are used as written. Mission constraints are added as written, after name resolution (a capability
or memory name stands for its memory proposition).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from bdi_supervisor.catalog.model import COMPLETED, Catalog
from bdi_supervisor.common import success_outcome
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission.model import Mission, MissionFormula, Request
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import (
    And,
    Compare,
    Formula,
    Iff,
    Implies,
    Not,
    Num,
    Var,
    conj,
    disj,
    has_prime,
    map_vars,
    neg,
    prime,
    variables,
)
from bdi_supervisor.spec.gr1 import SECTIONS, Clause, GR1Spec, Origin, Variable
from bdi_supervisor.spec.typecheck import check_spec
from bdi_supervisor.specgen.propositions import (
    BOOTSTRAP_CAPABILITY,
    CAPABILITY_VARIABLE,
    activation,
    capability_numbers,
    memory_prop,
    outcome_prop,
    pending_prop,
    to_enumerated,
)

#: clauses built between two checks of the budget
CHECK_EVERY = 1024


def _v(name: str, primed: bool = False) -> Var:
    return Var(name, primed)


class _Builder:
    """Collects variables and clauses over one-hot names."""

    def __init__(self, catalog: Catalog, request: Request, options: SynthesisOptions,
                 check: Callable[[], None] | None = None) -> None:
        self.catalog = catalog
        self.request = request
        self.options = options
        #: raises :class:`~bdi_supervisor.errors.BudgetExceeded` when the run's time is up;
        #: called every :data:`CHECK_EVERY` clauses (a large catalog makes millions)
        self.check = check
        self.clauses = 0
        self.spec = GR1Spec(name=catalog.name)
        self.vars: dict[str, Variable] = {}
        self.order: list[str] = []  # declaration order before the chosen ordering is applied
        caps = list(catalog.capabilities)
        self.caps = caps if options.declaration_order == "as-written" else sorted(caps)
        self.real_caps = [c for c in self.caps if c != BOOTSTRAP_CAPABILITY]
        self.sm = [catalog.sm_outcome_mappings[o] for o in request.sm_outcomes]
        success = success_outcome(request.sm_outcomes)
        self.success = None if success is None else catalog.sm_outcome_mappings[success]
        self.failure_capable = [c for c in self.real_caps
                                if catalog.capabilities[c].failure_capable]
        self.memory = self._memory_names()
        # default initial values, keyed by variable; request ICs replace them
        self.defaults: dict[str, tuple[str, Clause]] = {}
        self.ic_activation = False  # a request initial condition mentions an activation

    # -- declarations
    def declare(self, name: str, owner: str, kind: str = "bool", low: int = 0, high: int = 1,
                comment: str = "") -> None:
        if name in self.vars:
            raise InputError(f"two generated propositions are both named '{name}'",
                             file=self.catalog.source, found=name,
                             expected="catalog names whose derived propositions (_a, _c, _f, _m, "
                                      "_p) do not collide")
        self.vars[name] = Variable(name, owner, kind, low, high, comment)  # type: ignore[arg-type]
        self.order.append(name)

    def add(self, section: str, formula: Formula, origin: Origin, comment: str = "") -> None:
        self.spec.section(section).append(Clause(formula, origin, comment))
        self.tick()

    def tick(self) -> None:
        """Count one clause built; check the budget every :data:`CHECK_EVERY`."""
        self.clauses += 1
        if self.check is not None and self.clauses % CHECK_EVERY == 0:
            self.check()

    def default_init(self, name: str, formula: Formula, origin: Origin) -> None:
        owner = self.vars[name].owner
        self.defaults[name] = (f"{owner}_init", Clause(formula, origin))

    def _memory_names(self) -> dict[str, str]:
        """Memory name → owner: declared memory plus capability names used in conditions."""
        names = {m.name: m.owner for m in self.catalog.memory.values()}
        for cap in self.catalog.capabilities.values():
            used = [*cap.preconditions, *(f for fs in cap.postconditions.values() for f in fs)]
            for formula in used:
                for var in variables(formula):
                    if var.name in self.catalog.capabilities and var.name not in names:
                        names[var.name] = "sys"
            for free in cap.free_setters.values():
                for name in free:
                    if name in self.catalog.capabilities and name not in names:
                        names[name] = "sys"
        ordered = list(dict.fromkeys([*[c for c in self.caps if c in names], *sorted(names)]))
        return {n: names[n] for n in ordered}

    # -- names in conditions
    def condition(self, formula: Formula) -> Formula:
        """Catalog names → propositions (capability/memory names → ``x_m``; a generic outcome,
        ``failure``, → the disjunction of the outcome propositions of the capabilities that have
        it: some capability just ended with it)."""

        def name(var: Var) -> Formula:
            if var.name in self.memory and var.name not in self.vars:
                return _v(memory_prop(var.name), var.primed)
            if var.name in self.catalog.transition_outcomes and var.name not in self.vars:
                return disj([_outcome(self.catalog, c, var.name, var.primed) for c in self.caps
                             if var.name in self.catalog.capabilities[c].outcomes])
            return var

        return map_vars(formula, name)  # type: ignore[arg-type, return-value]

    def next_condition(self, formula: Formula) -> Formula:
        """A pre/postcondition in the next state (as written when it has primes)."""
        resolved = self.condition(formula)
        return resolved if has_prime(resolved) else prime(resolved)  # type: ignore[return-value]

    def resolve(self, item: MissionFormula) -> Formula:
        """Request/mission names: a proposition, else a capability/memory name (→ ``x_m``)."""

        def name(var: Var) -> Var:
            if var.name in self.vars:
                return var
            if var.name in self.memory:
                return _v(memory_prop(var.name), var.primed)
            return var  # reported by the type check with the item's location

        return map_vars(item.formula, name)  # type: ignore[return-value]

    def owner_of(self, formula: Formula) -> str:
        """``env`` if the formula constrains a next-state environment variable, else ``sys``."""
        for var in variables(formula):
            if var.primed and var.name in self.vars and self.vars[var.name].owner == "env":
                return "env"
        return "sys"


def _outcome(catalog: Catalog, cap: str, outcome: str, primed: bool = True) -> Var:
    return _v(outcome_prop(catalog, cap, outcome), primed)


def _declare_all(b: _Builder) -> None:
    catalog = b.catalog
    for cap in b.caps:
        for outcome in catalog.capabilities[cap].outcomes:
            b.declare(outcome_prop(catalog, cap, outcome), "env")
    for var in catalog.variables.values():
        b.declare(var.name, var.owner, "int", var.low, var.high,
                  comment="\n".join(f"{k}: {v}" for k, v in sorted(var.labels.items())))
    for cap in b.caps:
        b.declare(activation(cap), "sys")
    for name, owner in b.memory.items():
        b.declare(memory_prop(name), owner)
    if b.options.pending:
        for cap in b.failure_capable:
            b.declare(pending_prop(cap), "sys")
    for prop in dict.fromkeys(b.sm):
        b.declare(prop, "sys")


def _capability_module(b: _Builder) -> None:
    catalog = b.catalog
    for prop in b.sm:
        b.default_init(prop, Not(_v(prop)), Origin("capability", "sm-outcome-initial", key=prop))
        b.add("sys_safety", Implies(_v(prop), _v(prop, True)),
              Origin("capability", "sm-outcome-absorbing", key=prop))
    initial = {m.name: m.initial for m in catalog.memory.values()}
    for name in b.memory:
        value = initial.get(name, False)
        prop = memory_prop(name)
        b.default_init(prop, _v(prop) if value else Not(_v(prop)),
                       Origin("capability", "memory-initial", key=name))
    for cap in b.caps:
        outcomes = catalog.capabilities[cap].outcomes
        a = _v(activation(cap))
        start = cap == BOOTSTRAP_CAPABILITY
        b.default_init(activation(cap), a if start else Not(a),
                       Origin("capability", "initial-activation", cap))
        for o in outcomes:
            b.add("env_init", Not(_outcome(catalog, cap, o, False)),
                  Origin("capability", "initial-outcomes", cap))
        props = [_outcome(catalog, cap, o) for o in outcomes]
        b.add("env_safety", Implies(a, disj(props)),
              Origin("capability", "exactly-one-outcome", cap))
        for i, first in enumerate(props):
            for second in props[i + 1:]:
                b.add("env_safety", Implies(a, Not(conj([first, second]))),
                      Origin("capability", "at-most-one-outcome", cap))
        for prop in props:
            b.add("env_safety", Implies(Not(a), Not(prop)),
                  Origin("capability", "no-outcome-unless-active", cap))
    choices = ([_v(activation(c), True) for c in b.real_caps]
               + [_v(p, True) for p in dict.fromkeys(b.sm)])
    origin = Origin("encoding", "one-activation")
    if choices:
        b.add("sys_safety", disj(choices), origin,
              comment="One and only one capability must be active every step")
    for i, first in enumerate(choices):
        for second in choices[i + 1:]:
            b.add("sys_safety", Not(conj([first, second])), origin)
    if BOOTSTRAP_CAPABILITY in catalog.capabilities:
        b.add("sys_safety", Not(_v(activation(BOOTSTRAP_CAPABILITY), True)), origin)


def _transition_module(b: _Builder) -> None:
    catalog = b.catalog
    sm_map = {o: catalog.sm_outcome_mappings[o] for o in b.request.sm_outcomes}

    def target(formula: Formula) -> Formula:
        def leaf(var: Var) -> Var:
            if var.name in catalog.capabilities:
                return _v(activation(var.name), True)
            prop = sm_map.get(var.name)
            if prop is None:
                raise InputError(f"transition target '{var.name}' is an SM outcome the request "
                                 "does not ask for",
                                 file=catalog.source, found=var.name,
                                 expected="one of the request's sm_outcomes: " + ", ".join(sm_map))
            return _v(prop, True)

        return map_vars(formula, leaf)  # type: ignore[return-value]

    # transition relations
    targeted_sm: dict[str, list[Formula]] = {}
    for cap in b.caps:
        for outcome, targets in catalog.capabilities[cap].transitions.items():
            if not targets:
                continue
            lhs = _outcome(catalog, cap, outcome)
            resolved = [target(t) for t in targets]
            b.add("sys_safety", Implies(lhs, disj(resolved)),
                  Origin("capability", "transition-relation", cap))
            for t in resolved:
                if isinstance(t, Var) and t.name in b.sm and t.name != b.success:
                    targeted_sm.setdefault(t.name, []).append(lhs)
    for prop, setters in targeted_sm.items():
        b.add("sys_safety", Implies(Not(disj([*setters, _v(prop)])), Not(_v(prop, True))),
              Origin("capability", "sm-outcome-only-by-transition", key=prop))
    # preconditions
    for cap in b.caps:
        pre = catalog.capabilities[cap].preconditions
        if pre:
            terms = [b.next_condition(f) for f in pre]
            b.add("sys_safety", Implies(neg(conj(terms)), Not(_v(activation(cap), True))),
                  Origin("capability", "precondition", cap))
    # postconditions and setters
    setters: dict[str, list[Formula]] = {}
    for cap in b.caps:
        capability = catalog.capabilities[cap]
        for outcome in capability.outcomes:
            lhs = _outcome(catalog, cap, outcome)
            for k, formula in enumerate(capability.postconditions.get(outcome, ())):
                post = b.next_condition(formula)
                side = b.owner_of(post)
                b.add(f"{side}_safety", Implies(lhs, post),
                      Origin("capability", "postcondition", cap, key=outcome, index=k))
                for var in variables(post):
                    if var.primed and var.name in b.vars:
                        _add_setter(setters, var.name, lhs)
            for free in capability.free_setters.get(outcome, ()):
                name = free if free in b.vars else memory_prop(free)
                _add_setter(setters, name, lhs)
    for name in [n for n in b.order if n in setters]:
        var = b.vars[name]
        quiet = Not(disj(setters[name]))
        side = f"{var.owner}_safety"
        origin = Origin("capability", "frame", key=name)
        if var.kind == "int":
            b.add(side, Implies(quiet, Compare("=", _v(name, True), _v(name))), origin)
        else:
            b.add(side, Implies(conj([quiet, _v(name)]), _v(name, True)), origin)
            b.add(side, Implies(conj([quiet, Not(_v(name))]), Not(_v(name, True))), origin)


def _add_setter(setters: dict[str, list[Formula]], name: str, lhs: Formula) -> None:
    items = setters.setdefault(name, [])
    if lhs not in items:
        items.append(lhs)


def _origin(item: MissionFormula, source: str, rule: str, file: str | None) -> Origin:
    return Origin(source, rule, key=item.key, file=file, line=item.line)


def _request_module(b: _Builder, file: str | None) -> list[tuple[Formula, Origin]]:
    """Initial conditions and goal rules; returns the goals left for liveness."""
    for item in b.request.initial_conditions:
        formula = b.resolve(item)
        names = {v.name for v in variables(formula)}
        owners = {b.vars[n].owner for n in names if n in b.vars}
        section = "env_init" if owners == {"env"} else "sys_init"
        for name in names:
            b.defaults.pop(name, None)
        b.ic_activation |= any(n in {activation(c) for c in b.caps} for n in names)
        b.add(section, formula, _origin(item, "request", "initial-condition", file))
    for name in b.order:  # defaults, in declaration order, after the request's
        if name in b.defaults:
            section, clause = b.defaults.pop(name)
            b.spec.section(section).append(clause)
    goals = [(b.resolve(g), _origin(g, "request", "goal", file)) for g in b.request.goals]
    if not goals:
        return []
    if b.sm and b.success is not None:
        goal = conj([g for g, _ in goals])
        success = _v(b.success)
        origin = dataclasses.replace(goals[0][1], rule="goal-success")
        b.add("sys_safety", Implies(conj([neg(goal), prime(goal)]), prime(success)), origin)  # type: ignore[arg-type]
        lost = conj([neg(prime(goal)), Not(success)])  # type: ignore[arg-type]
        b.add("sys_safety", Implies(lost, Not(_v(b.success, True))),
              dataclasses.replace(origin, rule="goal-required"))
        return []
    split: list[tuple[Formula, Origin]] = []
    for formula, origin in goals:
        parts = formula.args if isinstance(formula, And) else (formula,)
        split.extend((part, origin) for part in parts)
    return split


def _liveness(b: _Builder, goals: list[tuple[Formula, Origin]]) -> None:
    catalog = b.catalog
    sm = [_v(p) for p in dict.fromkeys(b.sm)]
    if b.options.liveness == "system-goal":
        escapes = [Not(Implies(_v(activation(c)), _outcome(catalog, c, COMPLETED)))
                   for c in b.failure_capable]
        if not goals:
            if sm or escapes:
                b.add("sys_liveness", disj([*sm, *escapes]), Origin("liveness", "system-goal"))
            return
        for goal, origin in goals:
            if sm or escapes:
                b.add("sys_liveness", disj([*sm, goal, *escapes]),
                      dataclasses.replace(origin, source="liveness", rule="system-goal"))
            else:
                b.add("sys_liveness", goal, origin)
        return
    for cap in b.failure_capable:
        watch = _v(pending_prop(cap)) if b.options.pending else _v(activation(cap))
        b.add("env_liveness", disj([Not(watch), _outcome(catalog, cap, COMPLETED)]),
              Origin("liveness", "fair-outcome", cap))
    for goal, origin in goals:
        b.add("sys_liveness", goal, origin)
    if not goals and sm:
        b.add("sys_liveness", disj(sm), Origin("liveness", "sm-outcome-reached"))


def _pending(b: _Builder) -> None:
    catalog = b.catalog
    for cap in b.failure_capable:
        p = pending_prop(cap)
        b.spec.sys_init.append(Clause(Not(_v(p)), Origin("pending", "pending-initial", cap)))
        a, a1 = _v(activation(cap)), _v(activation(cap), True)
        fails = [_outcome(catalog, cap, o) for o in catalog.capabilities[cap].outcomes
                 if o != COMPLETED]
        b.add("sys_safety", Implies(a1, _v(p, True)), Origin("pending", "pending-set", cap))
        b.add("sys_safety", Implies(conj([a, disj(fails)]), _v(p, True)),
              Origin("pending", "pending-failure", cap))
        done = _outcome(catalog, cap, COMPLETED)  # the catalog loader requires a completed outcome
        b.add("sys_safety", Implies(conj([Not(a1), a, done]), Not(_v(p, True))),
              Origin("pending", "pending-clear", cap))
        b.add("sys_safety", Implies(Not(disj([a, a1])), Iff(_v(p, True), _v(p))),
              Origin("pending", "pending-keep", cap))


def _constraints(b: _Builder, constraints: dict[str, tuple[MissionFormula, ...]],
                 file: str | None) -> None:
    for section in SECTIONS:
        for item in constraints.get(section, ()):
            b.add(section, b.resolve(item), _origin(item, "mission", section, file))


def _arrange(items: list[Variable], options: SynthesisOptions,
             first: str | None = None) -> list[Variable]:
    """Inputs, then outputs; within each, the chosen declaration order (``first`` leads when
    sorted)."""
    out: list[Variable] = []
    for index, owner in enumerate(("env", "sys")):
        group = [v for v in items if v.owner == owner]
        if options.declaration_order == "alphabetic":
            group.sort(key=lambda v: (v.name != first, v.name))
        elif options.declaration_order == "random":
            random.Random(options.seed * 2 + index).shuffle(group)
        out += group
    return out


def _ordered(b: _Builder) -> list[Variable]:
    return _arrange([b.vars[n] for n in b.order], b.options)


def _enumerate(spec: GR1Spec, b: _Builder) -> GR1Spec:
    """The enumerated encoding of the one-hot spec ``spec`` (see :mod:`.propositions`)."""
    catalog = b.catalog
    numbers = capability_numbers(catalog)
    onehot_only = {activation(c) for c in catalog.capabilities}
    onehot_only |= {outcome_prop(catalog, c, o) for c, cap in catalog.capabilities.items()
                    for o in cap.outcomes}
    generic = [o for o in catalog.transition_outcomes
               if any(o in catalog.capabilities[c].outcomes for c in catalog.capabilities)]
    top = max(numbers.values(), default=0)
    slot0 = (BOOTSTRAP_CAPABILITY if BOOTSTRAP_CAPABILITY in numbers
             else "start-up / no capability")
    labels = [f"0: {slot0}"]
    labels += [f"{n}: {c}" for c, n in sorted(numbers.items(), key=lambda kv: kv[1]) if n]
    out = GR1Spec(name=spec.name, notes=dict(spec.notes))
    cap_var = Variable(CAPABILITY_VARIABLE, "sys", "int", 0, max(top, 1), comment="\n".join(labels))
    declared = [*(Variable(o, "env") for o in generic), cap_var,
                *(v for v in spec.variables if v.name not in onehot_only)]
    out.variables = _arrange(declared, b.options, first=CAPABILITY_VARIABLE)
    dropped = {"no-outcome-unless-active", "one-activation", "initial-outcomes",
               "initial-activation"}
    for o in generic:
        out.env_init.append(Clause(Not(Var(o)), Origin("encoding", "initial-outcomes", key=o)))
    cap0, cap1 = Var(CAPABILITY_VARIABLE), Var(CAPABILITY_VARIABLE, True)
    for section in SECTIONS:
        target = out.section(section)
        if section == "sys_init" and not b.ic_activation:  # no request IC chose one: slot 0
            value = numbers.get(BOOTSTRAP_CAPABILITY, 0)
            target.append(Clause(Compare("=", cap0, Num(value)),
                                 Origin("encoding", "initial-activation")))
        for clause in spec.section(section):
            if clause.origin.rule in dropped and clause.origin.source in ("capability", "encoding"):
                continue
            formula = to_enumerated(clause.formula, catalog, liveness=section.endswith("liveness"),
                                    origin=clause.origin)
            target.append(Clause(formula, clause.origin, clause.comment))
            b.tick()
        if section == "env_safety":
            props = [Var(o, True) for o in generic]
            for i, first in enumerate(props):
                for second in props[i + 1:]:
                    target.append(Clause(Not(conj([first, second])),
                                         Origin("encoding", "at-most-one-outcome")))
            if props and BOOTSTRAP_CAPABILITY not in numbers:
                idle = Implies(Compare("=", cap0, Num(0)), conj([Not(p) for p in props]))
                target.append(Clause(idle, Origin("encoding", "no-outcome-unless-active")))
        if section == "sys_safety":
            origin = Origin("encoding", "one-activation")
            sm = [Var(p, True) for p in dict.fromkeys(b.sm)]
            slot0 = Compare("=", cap1, Num(0))
            target.append(Clause(Iff(slot0, disj(sm)) if sm else Not(slot0), origin,
                                 "One and only one capability (or SM outcome) every step"))
            for i, first in enumerate(sm):
                for second in sm[i + 1:]:
                    target.append(Clause(Not(conj([first, second])), origin))
    return out


def generate(catalog: Catalog, request: Request,
             constraints: dict[str, tuple[MissionFormula, ...]] | None = None,
             options: SynthesisOptions | None = None, *, file: str | None = None,
             check: Callable[[], None] | None = None) -> GR1Spec:
    """The GR(1) spec of ``catalog`` + ``request`` (+ custom ``constraints``) under ``options``.

    ``file`` is the mission file, for the origins of request and constraint clauses; ``check``
    is called while the spec is built and type-checked and may stop it (a time budget: the
    mutual exclusions of 10,000 capabilities are 50 million clauses).
    """
    options = options or SynthesisOptions()
    b = _Builder(catalog, request, options, check)
    _declare_all(b)
    _capability_module(b)
    _transition_module(b)
    goals = _request_module(b, file)
    if options.pending:
        _pending(b)
    _liveness(b, goals)
    _constraints(b, constraints or {}, file)
    b.spec.variables = _ordered(b)
    spec = b.spec
    check_spec(spec, check)  # one-hot names: mission formulas are checked where they are
    if options.encoding == "enumerated":
        spec = _enumerate(spec, b)
        check_spec(spec, check)
    return spec


def generate_spec(mission: Mission, check: Callable[[], None] | None = None,
                  **overrides: object) -> GR1Spec:
    """The spec of a mission; ``overrides`` replace fields of ``mission.synthesis``; ``check``
    as for :func:`generate`."""
    options = dataclasses.replace(mission.synthesis, **overrides)
    spec = generate(mission.catalog, mission.request, mission.constraints, options,
                    file=mission.file, check=check)
    spec.name = mission.name
    return spec


def section_counts(spec: GR1Spec) -> dict[str, int]:
    """Formula counts per section (``GR1Spec.counts`` without the proposition counts)."""
    return {s: len(spec.section(s)) for s in SECTIONS}
