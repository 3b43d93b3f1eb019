"""The well-separation pipeline stage: mission settings, ``well_separation.json``, blocking rule.

Mission section (all optional)::

    well_separation: {core: false, fail_on_non_well_separated: false, fail_on_incomplete: false,
                      time_budget_s: null, node_budget: null, witness_max_nodes: 64}

The stage never blocks synthesis unless the mission sets ``fail_on_non_well_separated`` (a
``NON_WELL_SEPARATED`` verdict) or ``fail_on_incomplete`` (``ANALYSIS_INCOMPLETE``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from bdi_supervisor.common import Separation
from bdi_supervisor.limits import non_negative_finite
from bdi_supervisor.outpaths import write_text_atomic
from bdi_supervisor.separation.analysis import SeparationOptions, well_separation
from bdi_supervisor.separation.record import (
    SeparationRecord,
)
from bdi_supervisor.spec.gr1 import GR1Spec

SECTION = "well_separation"
RECORD_FILE = "well_separation.json"
_BOOLS = ("core", "fail_on_non_well_separated", "fail_on_incomplete")
_NUMBERS = {"time_budget_s": (int, float), "node_budget": (int,), "witness_max_nodes": (int,)}


@dataclass(frozen=True)
class StageSettings:
    """What the mission asks of the stage."""

    options: SeparationOptions
    fail_on_non_well_separated: bool = False
    fail_on_incomplete: bool = False

    def within(self, seconds: float | None) -> StageSettings:
        """These settings with at most ``seconds`` for the analysis (what is left of a run's
        time budget; None: no limit beyond the section's own)."""
        own = self.options.time_budget_s
        if seconds is None or (own is not None and own <= seconds):
            return self
        return dataclasses.replace(self, options=dataclasses.replace(self.options,
                                                                     time_budget_s=seconds))


@dataclass
class StageResult:
    record: SeparationRecord
    #: the mission asked for this verdict to stop the pipeline before synthesis
    blocks: bool
    path: Path | None = None


def settings(mission) -> StageSettings:
    """Read and validate the mission's ``well_separation`` section (``InputError`` on bad keys)."""
    section = mission.section(SECTION)
    allowed = (*_BOOLS, *_NUMBERS)
    for key, value in section.items():
        if key not in allowed:
            raise mission.section_error("unknown key", SECTION, key, found=str(key),
                                        expected=", ".join(allowed))
        if key in _BOOLS and not isinstance(value, bool):
            raise mission.section_error("not a Boolean", SECTION, key, found=repr(value),
                                        expected="true or false")
        if key in _NUMBERS and value is not None and (
                not isinstance(value, _NUMBERS[key]) or not non_negative_finite(value)):
            raise mission.section_error("not a non-negative number", SECTION, key,
                                        found=repr(value), expected="a number >= 0 or null")
    synthesis = mission.synthesis  # the spec's variables already follow its declaration order
    options = SeparationOptions(
        core=section.get("core", False),
        time_budget_s=section.get("time_budget_s"),
        node_budget=section.get("node_budget"),
        witness_max_nodes=section.get("witness_max_nodes") or SeparationOptions.witness_max_nodes,
        reordering=synthesis.reordering,
    )
    return StageSettings(options, section.get("fail_on_non_well_separated", False),
                         section.get("fail_on_incomplete", False))


def run_stage(spec: GR1Spec, stage: StageSettings,
              out_dir: str | Path | None = None) -> StageResult:
    """Analyse ``spec``; write ``well_separation.json`` into ``out_dir`` (atomically) if given."""
    record = well_separation(spec, stage.options)
    blocks = ((record.status == Separation.NON_WELL_SEPARATED and stage.fail_on_non_well_separated)
              or (record.status == Separation.ANALYSIS_INCOMPLETE and stage.fail_on_incomplete))
    path = None
    if out_dir is not None:
        path = Path(out_dir) / RECORD_FILE
        write_text_atomic(path, record.to_json())
    return StageResult(record, blocks, path)
