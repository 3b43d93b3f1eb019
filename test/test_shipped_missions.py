"""Shipped missions by name, the ``missions`` command, the README's table, missing extras."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from support.paths import CATALOGS, MISSIONS, ROOT

from bdi_supervisor.cli.main import main
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.runtime import extras
from bdi_supervisor.shipped import config_dir, names, resolve


def test_the_checkout_config_is_the_shipped_config():
    assert config_dir() == ROOT / "config"
    assert names("missions") == sorted(p.stem for p in MISSIONS.glob("*.yaml"))
    assert "ci_small" in names("sweeps")


def test_missions_load_by_name_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_mission("coffee_extended").name == "coffee_extended"
    assert load_mission("vending.yaml").name == "vending"
    local = tmp_path / "coffee_extended"  # a file of that name wins over the shipped mission
    local.write_text((MISSIONS / "coffee.yaml").read_text()
                     .replace("../catalogs/", str(CATALOGS) + "/"))
    assert load_mission("coffee_extended").name == "coffee"


@pytest.mark.parametrize("text", ["no_such_mission", "../missions/coffee", "sub/coffee.yaml"])
def test_unknown_mission_names_list_the_shipped_ones(text):
    with pytest.raises(InputError, match="mission file not found") as error:
        resolve("missions", text)
    assert "coffee_extended" in error.value.describe()


def test_missions_command_one_line_per_mission(capsys):
    assert main(["missions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(names("missions"))
    row = next(line for line in lines if line.startswith("logistics_p0 "))
    assert row.split()[1:5] == ["enumerated-S", "pyrobosim", "sim", "bdi_flexbe_states,"]
    assert "None" not in "\n".join(lines)


def _readme_missions() -> dict[str, dict]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Shipped missions", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = {
                "defaults": cells[2], "sim": cells[3],
                "state_packages": sorted(re.findall(r"`([a-z_]+)`", cells[4]))}
    return rows


def test_readme_mission_table_matches_the_missions(capsys):
    assert main(["missions", "--json"]) == 0
    listed = {r["name"]: {"defaults": r["defaults"], "sim": r["sim"],
                          "state_packages": r["state_packages"]}
              for r in json.loads(capsys.readouterr().out)}
    assert _readme_missions() == listed


def test_simulator_extras():
    assert extras.simulator_extra("pyrobosim", {}) is extras.PYROBOSIM
    assert extras.simulator_extra("quadcopter",
                                  {"quadcopter": {"backend": "rotorpy"}}) is extras.ROTORPY
    assert extras.simulator_extra("quadcopter", {"quadcopter": {"backend": "kinematic"}}) is None
    assert extras.simulator_extra("forced", {}) is None


def test_missing_rotorpy_is_bad_input_naming_the_extra(monkeypatch):
    monkeypatch.setattr(extras, "missing_module", lambda extra: "rotorpy")
    with pytest.raises(InputError, match="'rotorpy' extra") as error:
        extras.require_simulator("quadcopter", {"quadcopter": {"backend": "rotorpy"}}, "m.yaml")
    assert "pip install" in error.value.describe() and error.value.file == "m.yaml"


def test_pyrobosim_mission_without_its_extra_exits_2_before_synthesis(tmp_path):
    hide = ("import sys; sys.modules['pyrobosim'] = None; "
            "from bdi_supervisor.cli.main import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", hide, "run", "logistics_p0", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "'sim' extra" in done.stderr and "pip install" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
