"""The audit stages: audit the raw strategy → stop on FAIL/INCOMPLETE → reduce → audit the
reduced one.

The order is the paper's. The second audit runs in structural mode (protocol and bounded-failure
checks skipped; merged states no longer stand for one observation) as a regression check of the
reducer. Records go to ``audit.json``, ``reduced.json``, ``audit_reduced.json`` in the run folder
(written atomically), pictures to ``strategy_raw.*`` / ``strategy_reduced.*`` when asked. The
mission's ``audit:`` section configures them (:mod:`bdi_supervisor.audit.config`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bdi_supervisor.audit.auditor import AuditOptions, audit
from bdi_supervisor.audit.config import audit_config, audit_options, mission_goals
from bdi_supervisor.audit.predicates import PredicateLike
from bdi_supervisor.audit.protocol import infer_encoding
from bdi_supervisor.audit.record import AuditRecord
from bdi_supervisor.audit.record import save as save_record
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.common import AuditVerdict
from bdi_supervisor.mission.model import Mission
from bdi_supervisor.reduce import reduce
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.synthesis import strategy as strategy_io
from bdi_supervisor.synthesis.strategy import Strategy


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
    """Audit the raw strategy, reduce it unless the audit stops the pipeline, audit the result;
    with ``out_dir``, :func:`save_audit_stages` writes them there."""
    options = options or AuditOptions()
    raw_options = dataclasses.replace(options, structural_only=False)
    result = AuditStages(audit(strategy, catalog, goals, raw_options))
    verdict = result.raw_audit.verdict
    if verdict == AuditVerdict.FAIL and not proceed_on_fail:
        result.stopped = "raw strategy failed the audit"
    elif verdict == AuditVerdict.INCOMPLETE and not proceed_on_incomplete:
        result.stopped = "raw audit incomplete: " + (result.raw_audit.incomplete_reason or "")
    if result.stopped is None:
        result.reduced = reduce(strategy)
        reduced_options = dataclasses.replace(options, structural_only=True)
        result.reduced_audit = audit(result.reduced, catalog, goals, reduced_options)
    if out_dir is not None:
        save_audit_stages(result, strategy, catalog, out_dir, draw)
    return result


def save_audit_stages(stages: AuditStages, strategy: Strategy, catalog: Catalog,
                      out_dir: str | Path, draw: bool = False) -> None:
    """Write ``audit.json``, ``reduced.json`` and ``audit_reduced.json`` (those that exist) into
    ``out_dir``, and with ``draw`` the pictures of ``strategy`` (the raw one) and the reduced
    one; ``stages.files`` records where."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stages.files["audit"] = out / "audit.json"
    save_record(stages.raw_audit, stages.files["audit"])
    if stages.reduced is not None:
        stages.files["reduced"] = out / "reduced.json"
        strategy_io.save(stages.reduced, stages.files["reduced"])
        stages.files["audit_reduced"] = out / "audit_reduced.json"
        save_record(stages.reduced_audit, stages.files["audit_reduced"])
    if draw:
        from bdi_supervisor import draw as drawing

        raw_pic = drawing.render(strategy, out / "strategy_raw", catalog, stages.raw_audit)
        stages.files["picture_raw"] = raw_pic.pictures[0] if raw_pic.pictures else raw_pic.dot
        if stages.reduced is not None:
            red_pic = drawing.render(stages.reduced, out / "strategy_reduced", catalog,
                                     stages.reduced_audit)
            stages.files["picture_reduced"] = (red_pic.pictures[0] if red_pic.pictures
                                               else red_pic.dot)


def audit_mission(strategy: Strategy, mission: Mission, spec: GR1Spec | None = None,
                  out_dir: str | Path | None = None, draw: bool = False) -> AuditStages:
    """:func:`audit_and_reduce` configured from a mission (and its spec's env liveness)."""
    config = audit_config(mission)
    goals = mission_goals(mission, strategy, config)
    # the strategy's own variables say its encoding (a run may override the mission's default)
    options = audit_options(config, spec, infer_encoding(strategy))
    return audit_and_reduce(strategy, mission.catalog, goals, options, out_dir,
                            config.proceed_on_fail, config.proceed_on_incomplete, draw)
