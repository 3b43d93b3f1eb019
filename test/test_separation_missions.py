"""Well-separation of the shipped missions, the mission stage and ``spec --check-separation``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import ROOT
from support.reference_data import REFERENCE, needs_reference
from support.ws_oracle import replay

from bdi_supervisor.cli.main import main
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.separation import SeparationOptions, well_separation
from bdi_supervisor.separation.stage import RECORD_FILE, run_stage, settings
from bdi_supervisor.specgen.generate import generate_spec

MISSIONS = ROOT / "config" / "missions"
CONFIGS = {"S": ("system-goal", False), "SP": ("system-goal", True),
           "F": ("fair-outcome", False), "FP": ("fair-outcome", True)}


def _spec(name, encoding, config):
    liveness, pending = CONFIGS[config]
    mission = load_mission(MISSIONS / f"{name}.yaml")
    return generate_spec(mission, encoding=encoding, liveness=liveness, pending=pending)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
@pytest.mark.parametrize("name", ["coffee", "coffee_extended", "vending", "vending_extended"])
def test_mission_verdicts(name, encoding, config):
    """Only Fair-Outcome with pending memory fails, and only where some capability can fail.

    With trivial guarantees the system may raise a pending flag ``<cap>_p`` (its memory is the
    system's own) and never activate ``cap`` again, so the fair-outcome assumption
    ``GF(!cap_p | cap completed)`` cannot be met. Without pending memory, fair outcome only
    asks for outcomes of activations, which the environment always gives.
    """
    spec = _spec(name, encoding, config)
    pending = [v.name for v in spec.outputs if v.name.endswith("_p")]
    record = well_separation(spec, SeparationOptions(core=True))
    assert record.complete
    if config == "FP" and pending:
        assert record.cases == ["P-all/E-just"]
        witness = record.witness
        assert set(witness.details["liveness_kept_false"]) <= {
            r.name for r in record.responsible_assumptions}
        assert any(witness.strategy[-1].state[p] for p in pending)
        replay(spec, witness)
        core = record.core_assumptions
        assert record.core_complete and any(a.rule == "fair-outcome" for a in core)
        assert all(a.section in ("env_safety", "env_liveness") for a in core)
    else:
        assert record.status == "WELL_SEPARATED", record.cases


def _mission_file(tmp_path, section: str) -> Path:
    text = (MISSIONS / "coffee_extended.yaml").read_text()
    text = text.replace("../catalogs/", str(ROOT / "config" / "catalogs") + "/")
    text = text.replace("  liveness: system-goal", "  liveness: fair-outcome")
    path = tmp_path / "mission.yaml"
    path.write_text(text + section)
    return path


def test_stage_writes_the_record_and_blocks_only_when_asked(tmp_path):
    mission = load_mission(_mission_file(tmp_path, "well_separation: {core: true}\n"))
    spec = generate_spec(mission)
    result = run_stage(spec, settings(mission), tmp_path / "out")
    assert not result.blocks
    data = json.loads((tmp_path / "out" / RECORD_FILE).read_text())
    assert data["status"] == "NON_WELL_SEPARATED" and data["core_enabled"]
    strict = load_mission(_mission_file(tmp_path, "well_separation: "
                                                  "{fail_on_non_well_separated: true}\n"))
    assert run_stage(spec, settings(strict)).blocks


def test_stage_rejects_unknown_keys(tmp_path):
    mission = load_mission(_mission_file(tmp_path, "well_separation: {minimise: true}\n"))
    with pytest.raises(InputError) as error:
        settings(mission)
    assert error.value.key == "well_separation.minimise" and error.value.line is not None


def test_cli_check_separation(capsys):
    mission = str(MISSIONS / "coffee_extended.yaml")
    code = main(["spec", mission, "--liveness", "fair-outcome", "--check-separation", "--core"])
    out = capsys.readouterr().out
    assert code == 1
    assert "NON_WELL_SEPARATED" in out and "P-all/E-just" in out and "core (1-minimal)" in out
    assert main(["spec", mission, "--check-separation", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "WELL_SEPARATED" and record["timing"]["total"] > 0


FIXTURES = REFERENCE / "well_separation"


@needs_reference
def test_solve_check_separation(capsys):
    spec = str(FIXTURES / "forklift_findstat_samepos.slugsin")
    assert main(["solve", spec, "--check-separation", "--core"]) == 0  # realizable all the same
    out = capsys.readouterr().out
    assert "P-reach/E-just" in out and "core (1-minimal)" in out
    assert main(["solve", spec, "--check-separation", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["well_separation"]["cases"] == ["P-reach/E-just"]


def test_pipeline_writes_well_separation_json(tmp_path):
    from bdi_supervisor import pipeline

    mission = load_mission(_mission_file(tmp_path, "well_separation: {core: true}\n"))
    run = pipeline.run(mission, out_dir=tmp_path / "out")
    names = [s.name for s in run.stages]
    assert names.index("well_separation") < names.index("synthesis")
    stage = run.stages[names.index("well_separation")]
    assert stage.status == "NON_WELL_SEPARATED" and stage.ok
    data = json.loads(Path(stage.files[0]).read_text())
    assert data["cases"] == ["P-all/E-just"] and data["core_complete"]
    strict = load_mission(_mission_file(tmp_path, "well_separation: "
                                                  "{fail_on_non_well_separated: true}\n"))
    run = pipeline.run(strict, out_dir=tmp_path / "strict")
    assert [s.name for s in run.stages][-1] == "well_separation" and run.exit_code == 1


def _wgcf(extra_env_safety: tuple[str, ...] = ()):
    """The reference's own Two-Rivers specification (flexbe_synthesis_demo specs/wgcf.yaml)
    with the Fair-Outcome assumption ``GF(!move_x_a | move_x_c')`` of each of its four moves,
    and ``extra_env_safety`` clauses."""
    import yaml

    from bdi_supervisor.spec.structuredslugs import parse_spec

    specs = yaml.safe_load((REFERENCE / "two_rivers" / "wgcf.yaml").read_text())["specs"]
    specs["ENV_TRANS"] = [*specs["ENV_TRANS"], *extra_env_safety]
    specs["ENV_LIVENESS"] = [f"!move_{m}_a | move_{m}_c'" for m in ("wolf", "goat", "corn", "null")]
    text = "\n".join(f"[{section}]\n" + "\n".join(specs.get(section) or []) + "\n"
                     for section in ("INPUT", "OUTPUT", "ENV_INIT", "SYS_INIT", "ENV_TRANS",
                                     "SYS_TRANS", "ENV_LIVENESS", "SYS_LIVENESS"))
    return parse_spec(text, file="wgcf.structuredslugs")


@needs_reference
def test_the_references_two_rivers_under_fair_outcome_is_well_separated():
    """Def. 2 drops the system's safety: the system may activate any moves, for ever. No
    environment clause of the reference's Two-Rivers forbids a move's completion, so every
    ``GF(!move_x_a | move_x_c')`` can be met and no activation leaves the environment without
    an answer: well-separated, as our generated Two-Rivers F spec (unlike the paper's, which
    App. D calls not well-separated). One clause that forbids the goat's crossing while the
    goat is on the far bank is enough to make it not well-separated (the system activates that
    crossing for ever), so the check does see such a witness where there is one."""
    assert well_separation(_wgcf()).status == "WELL_SEPARATED"
    record = well_separation(_wgcf(("goat & move_goat_a -> !move_goat_c'",)))
    assert record.status == "NON_WELL_SEPARATED" and record.cases == ["P-all/E-just"]
