"""The well-separation record (``well_separation.json``): plain dataclasses and their JSON.

Field names follow the reference's report (the CNURobotics slugs fork's ``--checkWellSeparation
--jsonOutput``; docs/differences.md) where it has one; additions (``witnesses``, ``spec``,
``incomplete_reason``) are documented on the fields.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from bdi_supervisor.common import Separation

FORMAT_VERSION = "0.1"


P_ALL_E_INI = "P-all/E-ini"
P_ALL_E_SAFE = "P-all/E-safe"
P_REACH_E_SAFE = "P-reach/E-safe"
P_ALL_E_JUST = "P-all/E-just"
P_REACH_E_JUST = "P-reach/E-just"
CASES = (P_ALL_E_INI, P_ALL_E_SAFE, P_REACH_E_SAFE, P_ALL_E_JUST, P_REACH_E_JUST)

#: the assumption section a case shows can be made to fail
CASE_SECTION = {
    P_ALL_E_INI: "env_init",
    P_ALL_E_SAFE: "env_safety",
    P_REACH_E_SAFE: "env_safety",
    P_ALL_E_JUST: "env_liveness",
    P_REACH_E_JUST: "env_liveness",
}

TOOL = {"name": "bdi_supervisor", "mode": "well_separation", "backend": "dd.cudd",
        "algorithm": "maoz-ringert-algorithm-1"}

TIMING_PHASES = ("total", "encoding", "reachability", "safety_winning",
                 "direct_safety_witness_region", "liveness_winning", "diagnostics_and_witness",
                 "core_minimization")


@dataclass(frozen=True)
class AssumptionRef:
    """One environment assumption, named for people.

    ``name``: the ``##`` comment's name of a hand-written clause, else the origin label
    (``Origin.label()``: ``capability:rule`` or ``file:line``); ``section`` and ``index``: where
    it is in the spec; ``source_index``: its position among all env assumptions (init, safety,
    liveness in that order); ``origin``: the origin label; ``line``: 1-based line of a file.
    """

    name: str
    section: str
    index: int
    source_index: int
    origin: str
    capability: str | None = None
    rule: str = ""
    line: int | None = None


@dataclass
class WitnessMove:
    """An admissible next input and the system's answer that keeps forcing the violation.

    ``next`` is the id of the successor node (``None`` when the answer makes the environment's
    own safety fail at once, possible only when env safety reads next outputs).
    """

    inputs: dict[str, Any]
    outputs: dict[str, Any]
    next: int | None


@dataclass
class WitnessNode:
    """A state of the forcing strategy. ``stuck``: no next input satisfies env safety.

    ``rank``: index of the strategy's path predicate (non-increasing along moves; strictly
    decreasing for safety witnesses); ``assumption``: for liveness witnesses, the index of the
    env liveness clause kept false while the rank stays the same.
    """

    id: int
    state: dict[str, Any]
    rank: int
    assumption: int | None
    stuck: bool
    moves: list[WitnessMove] = field(default_factory=list)


@dataclass
class Witness:
    """A reachable state from which the system (trivial guarantees) forces the violation.

    ``path``: states from an initial state to ``state`` under env safety with arbitrary outputs
    (``path[-1]`` is the witness state); ``strategy``: the system's forcing strategy from it as
    an explicit graph (node 0 is the witness state), ``truncated`` when it passed the node cap.
    """

    case: str
    source_region: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    path: list[dict[str, Any]]
    implicated_assumptions: list[AssumptionRef]
    details: dict[str, Any]
    strategy: list[WitnessNode] = field(default_factory=list)
    truncated: bool = False

    @property
    def state(self) -> dict[str, Any]:
        return {**self.inputs, **self.outputs}


@dataclass
class SeparationRecord:
    """Result of :func:`bdi_supervisor.separation.well_separation`."""

    status: Separation
    complete: bool
    cases: list[str]
    violated_assumption_type: str
    responsible_assumptions: list[AssumptionRef]
    responsible_assumption_mode: str
    witness_available: bool
    witness_unavailable_reason: str
    witness: Witness | None
    #: one witness per case found (``witness`` is the first)
    witnesses: list[Witness]
    core_mode: str
    core_enabled: bool
    core_complete: bool
    core_assumptions: list[AssumptionRef]
    checks: dict[str, int]
    timing: dict[str, float]
    warnings: list[str]
    spec: str = "spec"
    #: which budget ran out (``time`` / ``node``), when ``complete`` is false
    incomplete_reason: str | None = None
    format_version: str = FORMAT_VERSION
    tool: dict[str, str] = field(default_factory=lambda: dict(TOOL))

    @property
    def well_separated(self) -> bool:
        return self.status == Separation.WELL_SEPARATED

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (the ``well_separation.json`` content)."""
        data = asdict(self)
        order = ["format_version", "tool", "spec", "status", "complete", "incomplete_reason",
                 "cases", "violated_assumption_type", "responsible_assumptions",
                 "responsible_assumption_mode", "witness_available",
                 "witness_unavailable_reason", "witness", "witnesses", "core_mode",
                 "core_enabled", "core_complete", "core_assumptions", "checks", "timing",
                 "warnings"]
        return {key: data[key] for key in order}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"
