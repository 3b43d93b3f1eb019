"""Pipeline stages around the auditor: audit raw → stop on FAIL/INCOMPLETE → reduce → audit reduced.

The order is the paper's. The second audit runs in structural mode (protocol and bounded-failure
checks skipped; merged states no longer stand for one observation) as a regression check of the
reducer. Records go to ``audit.json``, ``reduced.json``, ``audit_reduced.json`` in the run folder
(written atomically), pictures to ``strategy_raw.*`` / ``strategy_reduced.*`` when asked.

Mission files may carry an ``audit:`` section (all keys optional)::

    audit:
      goals: [br_c]          # proposition names; default: SM outcomes, else the request goals
      livelock: warning      # warning | defect | off
      time_budget_s: 5
      max_product_states: 5000000
      proceed_on_fail: false
      proceed_on_incomplete: false
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor.audit.auditor import LIVELOCK_MODES, AuditOptions, audit
from bdi_supervisor.audit.predicates import PredicateLike
from bdi_supervisor.audit.protocol import ENUMERATED, infer_encoding
from bdi_supervisor.audit.record import AuditRecord
from bdi_supervisor.audit.record import save as save_record
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.common import AuditVerdict
from bdi_supervisor.limits import non_negative_finite
from bdi_supervisor.mission.model import Mission
from bdi_supervisor.reduce import reduce
from bdi_supervisor.spec.formula import Formula, Var, has_prime, map_vars, prime
from bdi_supervisor.spec.gr1 import GR1Spec, Origin
from bdi_supervisor.specgen.propositions import memory_prop, to_enumerated
from bdi_supervisor.synthesis import strategy as strategy_io
from bdi_supervisor.synthesis.strategy import Strategy

AUDIT_KEYS = ("goals", "livelock", "time_budget_s", "max_product_states", "proceed_on_fail",
              "proceed_on_incomplete")


@dataclass(frozen=True)
class AuditConfig:
    """The mission's ``audit:`` section, validated."""

    goals: tuple[str, ...] | None = None
    livelock: str = "warning"
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
    livelock = section.get("livelock", "warning")
    if livelock not in LIVELOCK_MODES:
        raise mission.section_error("bad livelock mode", "audit", "livelock", found=repr(livelock),
                                    expected=" | ".join(LIVELOCK_MODES))
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
    return AuditConfig(goals, livelock, numbers["time_budget_s"],
                       None if max_states is None else int(max_states), **flags)


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
                        time_budget_s=config.time_budget_s,
                        max_product_states=config.max_product_states)


@dataclass
class AuditStages:
    """What the audit → reduce → audit stages produced; ``stopped`` says why they stopped."""

    raw_audit: AuditRecord
    reduced: Strategy | None = None
    reduced_audit: AuditRecord | None = None
    stopped: str | None = None
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def deployable(self) -> bool:
        """Both audits passed (warnings allowed) and nothing stopped the stages."""
        return (self.stopped is None and self.reduced_audit is not None
                and self.raw_audit.verdict not in (AuditVerdict.FAIL, AuditVerdict.INCOMPLETE)
                and self.reduced_audit.verdict not in (AuditVerdict.FAIL, AuditVerdict.INCOMPLETE))

    def summary(self) -> dict:
        return {
            "raw_verdict": self.raw_audit.verdict,
            "raw_defects": self.raw_audit.defect_kinds,
            "raw_warnings": self.raw_audit.warning_kinds,
            "raw_states": self.raw_audit.stats.get("states"),
            "reduced_states": None if self.reduced is None else len(self.reduced.states),
            "reduced_verdict": None if self.reduced_audit is None else self.reduced_audit.verdict,
            "stopped": self.stopped,
        }


def audit_and_reduce(strategy: Strategy, catalog: Catalog, goals: Sequence[PredicateLike] | None,
                     options: AuditOptions | None = None, out_dir: str | Path | None = None,
                     proceed_on_fail: bool = False, proceed_on_incomplete: bool = False,
                     draw: bool = False) -> AuditStages:
    """Audit the raw strategy, reduce it unless the audit stops the pipeline, audit the result."""
    options = options or AuditOptions()
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    raw_options = dataclasses.replace(options, structural_only=False)
    result = AuditStages(audit(strategy, catalog, goals, raw_options))
    if out is not None:
        result.files["audit"] = out / "audit.json"
        save_record(result.raw_audit, result.files["audit"])
    verdict = result.raw_audit.verdict
    if verdict == AuditVerdict.FAIL and not proceed_on_fail:
        result.stopped = "raw strategy failed the audit"
    elif verdict == AuditVerdict.INCOMPLETE and not proceed_on_incomplete:
        result.stopped = "raw audit incomplete: " + (result.raw_audit.incomplete_reason or "")
    if result.stopped is None:
        result.reduced = reduce(strategy)
        reduced_options = dataclasses.replace(options, structural_only=True)
        result.reduced_audit = audit(result.reduced, catalog, goals, reduced_options)
        if out is not None:
            result.files["reduced"] = out / "reduced.json"
            strategy_io.save(result.reduced, result.files["reduced"])
            result.files["audit_reduced"] = out / "audit_reduced.json"
            save_record(result.reduced_audit, result.files["audit_reduced"])
    if draw and out is not None:
        from bdi_supervisor import draw as drawing

        raw_pic = drawing.render(strategy, out / "strategy_raw", catalog, result.raw_audit)
        result.files["picture_raw"] = raw_pic.pictures[0] if raw_pic.pictures else raw_pic.dot
        if result.reduced is not None:
            red_pic = drawing.render(result.reduced, out / "strategy_reduced", catalog,
                                     result.reduced_audit)
            result.files["picture_reduced"] = (red_pic.pictures[0] if red_pic.pictures
                                               else red_pic.dot)
    return result


def audit_mission(strategy: Strategy, mission: Mission, spec: GR1Spec | None = None,
                  out_dir: str | Path | None = None, draw: bool = False) -> AuditStages:
    """:func:`audit_and_reduce` configured from a mission (and its spec's env liveness)."""
    config = audit_config(mission)
    goals = mission_goals(mission, strategy, config)
    # the strategy's own variables say its encoding (a run may override the mission's default)
    options = audit_options(config, spec, infer_encoding(strategy))
    return audit_and_reduce(strategy, mission.catalog, goals, options, out_dir,
                            config.proceed_on_fail, config.proceed_on_incomplete, draw)
