"""The verdict of every shipped mission in every configuration, against the pinned table of
:mod:`support.expected_verdicts` (synthesis, well-separation, raw audit verdict and defect classes,
executable: forced-outcome acceptance, :mod:`bdi_supervisor.runtime.acceptance`). A change that
flips any cell fails here, including a mission that becomes unrealizable.
Where slugs is on PATH, its verdict and the audit of its own strategy are compared as well.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess

import pytest
from support.expected_verdicts import (
    CONFIGS,
    ENCODINGS,
    EXPECTED,
    GROUPS,
    TRAP,
    Cell,
    expected,
    overrides,
    unhurried,
)
from support.paths import MISSIONS

from bdi_supervisor import pipeline
from bdi_supervisor.common import Realizability
from bdi_supervisor.mission import load_mission
from bdi_supervisor.spec.io import format_spec
from bdi_supervisor.specgen.generate import generate_spec


def _mission(group: str):
    return unhurried(load_mission(MISSIONS / f"{GROUPS[group][0]}.yaml"))


def _observed(group: str, encoding: str, config: str) -> Cell:
    mission = _mission(group)
    run = pipeline.run(mission, overrides=overrides(encoding, config),
                       stages=[*pipeline.STAGES, pipeline.stage_execute], explain=False)
    stages = {s["name"]: s for s in run.summary()["stages"]}
    audit = stages.get("audit")
    execute = stages.get("execute")
    return Cell(stages["synthesis"]["status"], stages["well_separation"]["status"],
                audit["record"]["raw_verdict"] if audit else None,
                tuple(sorted(set(audit["record"]["raw_defects"]))) if audit else (),
                bool(execute and execute["record"]["executable"]))


CELLS = [(g, e, c) for g in EXPECTED for e in ENCODINGS for c in CONFIGS]


def _id(cell: tuple[str, str, str]) -> str:
    return "-".join(cell)


@pytest.mark.parametrize("group, encoding, config", CELLS, ids=map(_id, CELLS))
def test_verdict(group, encoding, config):
    assert _observed(group, encoding, config) == expected(group, encoding, config)


def test_every_shipped_mission_has_a_row():
    shipped = sorted(p.stem for p in MISSIONS.glob("*.yaml"))
    assert sorted(m for ms in GROUPS.values() for m in ms) == shipped


@pytest.mark.parametrize("group", [g for g, ms in GROUPS.items() if len(ms) > 1])
@pytest.mark.parametrize("encoding, config", [(e, c) for e in ENCODINGS for c in CONFIGS])
def test_missions_of_a_group_share_their_spec(group, encoding, config):
    texts = set()
    for name in GROUPS[group]:
        mission = load_mission(MISSIONS / f"{name}.yaml")
        spec = generate_spec(mission, **overrides(encoding, config))
        texts.add(format_spec(spec, "structuredslugs").replace(name, "<mission>"))
    assert len(texts) == 1


# ------------------------------------------------------------------ slugs as a second solver

SLUGS = shutil.which("slugs")
FAST_CELLS = [c for c in CELLS if c[0] in ("two_rivers", "logistics_p0")]


@pytest.mark.skipif(SLUGS is None, reason="slugs is not on PATH (build it from its sources)")
@pytest.mark.parametrize("group, encoding, config", FAST_CELLS, ids=map(_id, FAST_CELLS))
def test_slugs_verdict_and_its_own_strategy_agree(group, encoding, config, tmp_path):
    """slugs decides the same spec the same way, and its own explicit strategy has the same
    audit verdict and defect classes: the trap is the game's, not an artefact of our extraction."""
    from bdi_supervisor.pipeline import audit_mission
    from bdi_supervisor.synthesis.slugs_json import from_slugs_json

    mission = _mission(group)
    mission = dataclasses.replace(mission, synthesis=dataclasses.replace(
        mission.synthesis, **overrides(encoding, config)))
    spec = generate_spec(mission)
    (tmp_path / "spec.slugsin").write_text(format_spec(spec, "slugsin"))
    done = subprocess.run([SLUGS, "--explicitStrategy", "--jsonOutput", "spec.slugsin",
                           "strategy.json"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    cell = expected(group, encoding, config)
    realizable = "RESULT: Specification is realizable." in done.stderr
    assert realizable == (cell.synthesis == Realizability.REALIZABLE), done.stderr[-500:]
    if realizable:
        strategy = from_slugs_json(json.loads((tmp_path / "strategy.json").read_text()), spec)
        raw = audit_mission(strategy, mission, spec, out_dir=None).raw_audit
        assert (raw.verdict, tuple(sorted(set(raw.defect_kinds)))) == (cell.audit, cell.defects)


# ------------------------------------------------------------------ the modelling choice


def _retrying_in_place(mission):
    """The mission with its failures no longer routed through ``log_failed``: a failed
    capability may simply stay selected (retried at once)."""
    catalog = mission.catalog
    capabilities = {name: dataclasses.replace(cap, transitions={})
                    for name, cap in catalog.capabilities.items() if name != "log_failed"}
    catalog = dataclasses.replace(catalog, capabilities=capabilities)
    return dataclasses.replace(mission, catalog=catalog)


@pytest.mark.parametrize("group, config", [("two_rivers", "F"), ("two_rivers", "FP"),
                                           ("logistics_p0", "F")])
def test_retrying_in_place_is_what_keeps_fair_outcome_realizable(group, config):
    """What decides the Fair-Outcome verdicts is whether a failed capability may stay selected.
    Retried in place, it stays active until it completes, so "an active capability eventually
    completes" is an assumption the system can use: F is realizable and FP passes the audit (no
    capability left to repeat while the failure is pending). Routed through ``log_failed`` (the
    shipped catalogs, as in the reference's Two-Rivers), F is unrealizable and FP is a trap."""
    mission = _retrying_in_place(_mission(group))
    run = pipeline.run(mission, overrides=overrides("enumerated", config), explain=False)
    stages = {s.name: s for s in run.stages}
    assert stages["synthesis"].status == Realizability.REALIZABLE
    assert stages["audit"].status == "PASS"
    shipped = expected(group, "enumerated", config)
    assert (shipped.synthesis, shipped.defects) in {(Realizability.UNREALIZABLE, ()),
                                                    (Realizability.REALIZABLE, (TRAP,))}
