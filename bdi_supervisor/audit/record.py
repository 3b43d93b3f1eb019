"""Audit records: verdict, defects with counterexamples, statistics (all JSON-serializable)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bdi_supervisor.common import AuditVerdict

PROTOCOL_VIOLATION = "PROTOCOL_VIOLATION"
DEADLOCK = "DEADLOCK"
BOUNDED_FAILURE_VIOLATION = "BOUNDED_FAILURE_VIOLATION"
GOAL_UNREACHABLE_TRAP = "GOAL_UNREACHABLE_TRAP"
NOMINAL_LIVELOCK = "NOMINAL_LIVELOCK"
ENVIRONMENT_SUSTAINED_LIVELOCK = "ENVIRONMENT_SUSTAINED_LIVELOCK"
DEFECT_KINDS = (PROTOCOL_VIOLATION, DEADLOCK, BOUNDED_FAILURE_VIOLATION, GOAL_UNREACHABLE_TRAP,
                NOMINAL_LIVELOCK, ENVIRONMENT_SUSTAINED_LIVELOCK)

FORMAT = "bdi_supervisor/audit"
FORMAT_VERSION = 1


@dataclass
class Step:
    """One step of a counterexample: a strategy state, the inputs it was reached by and its
    outputs (only true / non-zero entries), with a short ``observed / activated`` label."""

    state: int
    inputs: dict
    outputs: dict
    label: str = ""


@dataclass
class Defect:
    """A defect (or warning) of one kind.

    ``trace`` runs from an initial state to where the defect shows (for a bounded-failure
    violation: the last failure; for a trap or livelock: the first state of the cycle reached);
    ``states`` are the strategy states involved (the trap's or livelock's states). A nominal
    livelock is a lasso: ``trace`` is its prefix and ``cycle`` the steps that lead from the
    prefix's last state back to it, repeated forever.
    """

    kind: str
    message: str
    states: list[int] = field(default_factory=list)
    trace: list[Step] = field(default_factory=list)
    capability: str | None = None
    details: dict = field(default_factory=dict)
    cycle: list[Step] = field(default_factory=list)


@dataclass
class AuditRecord:
    verdict: AuditVerdict
    complete: bool
    mode: str  # "full" | "structural"
    encoding: str
    goals: list[str]
    env_liveness: list[str]
    defects: list[Defect] = field(default_factory=list)
    warnings: list[Defect] = field(default_factory=list)
    incomplete_reason: str | None = None
    stats: dict = field(default_factory=dict)
    strategy: str = "strategy"

    @property
    def defect_kinds(self) -> list[str]:
        """Distinct defect kinds, in :data:`DEFECT_KINDS` order."""
        found = {d.kind for d in self.defects}
        return [k for k in DEFECT_KINDS if k in found]

    @property
    def warning_kinds(self) -> list[str]:
        found = {d.kind for d in self.warnings}
        return [k for k in DEFECT_KINDS if k in found]

    def to_dict(self) -> dict:
        data = asdict(self)
        data["defect_kinds"] = self.defect_kinds
        data["warning_kinds"] = self.warning_kinds
        return {"format": FORMAT, "version": FORMAT_VERSION, **data}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)


def save(record: AuditRecord, path: str | Path) -> None:
    """Write atomically (temp file + rename)."""
    from bdi_supervisor.outpaths import write_text_atomic

    write_text_atomic(path, record.to_json())
