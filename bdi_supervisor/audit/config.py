"""A mission's ``audit:`` section: the auditor's goals and options for a mission.

Mission files may carry an ``audit:`` section (all keys optional)::

    audit:
      goals: [br_c]          # proposition names; default: SM outcomes, else the request goals
      livelock: warning      # environment-sustained livelocks: warning | defect | off
      nominal_livelock: defect  # nominal livelocks: defect | warning | off
      time_budget_s: 5
      max_product_states: 5000000
      proceed_on_fail: false
      proceed_on_incomplete: false
"""

from __future__ import annotations

from dataclasses import dataclass

from bdi_supervisor.audit.auditor import LIVELOCK_MODES, AuditOptions
from bdi_supervisor.audit.predicates import PredicateLike
from bdi_supervisor.audit.protocol import ENUMERATED, infer_encoding
from bdi_supervisor.limits import non_negative_finite
from bdi_supervisor.mission.model import Mission
from bdi_supervisor.spec.formula import Formula, Var, has_prime, map_vars, prime
from bdi_supervisor.spec.gr1 import GR1Spec, Origin
from bdi_supervisor.specgen.propositions import memory_prop, to_enumerated
from bdi_supervisor.synthesis.strategy import Strategy

AUDIT_KEYS = ("goals", "livelock", "nominal_livelock", "time_budget_s", "max_product_states",
              "proceed_on_fail", "proceed_on_incomplete")


@dataclass(frozen=True)
class AuditConfig:
    """The mission's ``audit:`` section, validated."""

    goals: tuple[str, ...] | None = None
    livelock: str = "warning"
    nominal_livelock: str = "defect"
    time_budget_s: float | None = 5.0
    max_product_states: int | None = 5_000_000
    proceed_on_fail: bool = False
    proceed_on_incomplete: bool = False


def audit_config(mission: Mission) -> AuditConfig:
    """Read and validate ``mission.sections["audit"]`` (InputError naming the key)."""
    section = mission.section("audit")
    for key in section:
        if key not in AUDIT_KEYS:
            raise mission.section_error("unknown audit key", "audit", key, found=repr(key),
                                        expected="one of " + ", ".join(AUDIT_KEYS))
    goals = section.get("goals")
    if goals is not None:
        if not isinstance(goals, list) or not all(isinstance(g, str) and g.isidentifier()
                                                  for g in goals):
            raise mission.section_error("goals must be a list of proposition names", "audit",
                                        "goals", found=repr(goals), expected="e.g. [br_c]")
        goals = tuple(goals)
    modes = {}
    for key, default in (("livelock", "warning"), ("nominal_livelock", "defect")):
        mode = section.get(key, default)
        if not isinstance(mode, str) or mode not in LIVELOCK_MODES:
            raise mission.section_error("bad livelock mode", "audit", key, found=repr(mode),
                                        expected=" | ".join(LIVELOCK_MODES))
        modes[key] = mode
    numbers = {}
    for key, default in (("time_budget_s", 5.0), ("max_product_states", 5_000_000)):
        value = section.get(key, default)
        if value is not None and not non_negative_finite(value):
            raise mission.section_error("must be a non-negative number", "audit", key,
                                        found=repr(value))
        numbers[key] = value
    flags = {}
    for key in ("proceed_on_fail", "proceed_on_incomplete"):
        value = section.get(key, False)
        if not isinstance(value, bool):
            raise mission.section_error("must be true or false", "audit", key, found=repr(value))
        flags[key] = value
    max_states = numbers["max_product_states"]
    return AuditConfig(goals, modes["livelock"], modes["nominal_livelock"],
                       numbers["time_budget_s"], None if max_states is None else int(max_states),
                       **flags)


def _resolve(formula: Formula, names: set[str]) -> Formula:
    """Catalog names to strategy propositions (``x`` → ``x_m`` where only that exists)."""
    return map_vars(formula, lambda v: v if v.name in names or memory_prop(v.name) not in names
                    else Var(memory_prop(v.name), v.primed))


def mission_goals(mission: Mission, strategy: Strategy,
                  config: AuditConfig | None = None) -> list[PredicateLike]:
    """The audit goals of a mission: configured names, else its SM outcomes, else its goals.

    Request goals are read on arrival (primed); for the enumerated encoding they go through the
    spec's rewrite (``br_c`` → ``capability = i & completed'``).
    """
    config = config or audit_config(mission)
    if config.goals is not None:
        return list(config.goals)
    catalog = mission.catalog
    if mission.request.sm_outcomes:
        return [catalog.sm_outcome_mappings.get(o, o) for o in mission.request.sm_outcomes]
    names = {v.name for v in strategy.variables}
    goals: list[PredicateLike] = []
    for item in mission.request.goals:
        formula = _resolve(item.formula, names)
        if infer_encoding(strategy) == ENUMERATED:
            goals.append(to_enumerated(formula, catalog, liveness=True,
                                       origin=Origin("request", "goal")))
        else:
            goals.append(formula if has_prime(formula) else prime(formula))
    return goals


def audit_options(config: AuditConfig, spec: GR1Spec | None = None,
                  encoding: str | None = None) -> AuditOptions:
    """Auditor options from the config; environment liveness assumptions from the spec."""
    env_liveness = [clause.formula for clause in spec.env_liveness] if spec is not None else []
    return AuditOptions(encoding=encoding, env_liveness=env_liveness, livelock=config.livelock,
                        nominal_livelock=config.nominal_livelock,
                        time_budget_s=config.time_budget_s,
                        max_product_states=config.max_product_states)


