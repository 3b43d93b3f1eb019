"""``bdi-supervisor realize STRATEGY.json --mission MISSION.yaml --out DIR``."""

from __future__ import annotations

import json
import py_compile

import realize_cases as cases

from bdi_supervisor.cli.main import main
from bdi_supervisor.synthesis import strategy as strategy_io

MISSION = "config/missions/vending_extended.yaml"


def test_realize_writes_behavior_package(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    strategy_io.save(cases.vending_reduced_onehot(), path)
    code = main(["realize", str(path), "--mission", MISSION, "--out", str(tmp_path / "out"),
                 "--json"])
    assert code == 0
    record = json.loads(capsys.readouterr().out)
    assert record["capability_states"] == 4 and record["outcomes"] == ["finished"]
    assert record["state_instantiations"] == 6
    behavior = tmp_path / "out" / "behavior"
    module = behavior / "vending_extended_flexbe_behaviors" / "vending_extended_sm.py"
    py_compile.compile(str(module), doraise=True)
    assert (behavior / "manifest" / "vending_extended.xml").exists()
    assert (behavior / "package.xml").exists()


def test_bad_strategy_exits_2_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    path.write_text('{"format": "something else"}')
    code = main(["realize", str(path), "--mission", MISSION, "--out", str(tmp_path / "out")])
    assert code == 2
    assert "not a bdi_supervisor strategy" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_strategy_of_another_catalog_exits_2(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    strategy_io.save(cases.vending_reduced_onehot(), path)
    code = main(["realize", str(path), "--mission", "config/missions/coffee_extended.yaml",
                 "--out", str(tmp_path / "out")])
    assert code == 2
    assert "not synthesized from this catalog" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_behavior_and_package_names_can_be_chosen(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    strategy_io.save(cases.vending_reduced_onehot(), path)
    code = main(["realize", str(path), "--mission", MISSION, "--out", str(tmp_path / "o"),
                 "--behavior", "Vending Machine", "--package", "vend_behaviors", "--json"])
    assert code == 0
    record = json.loads(capsys.readouterr().out)
    assert record["class"] == "VendingMachineSM" and record["package"] == "vend_behaviors"
    assert (tmp_path / "o" / "behavior" / "vend_behaviors" / "vending_machine_sm.py").exists()


def test_unsafe_package_name_exits_2(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    strategy_io.save(cases.vending_reduced_onehot(), path)
    code = main(["realize", str(path), "--mission", MISSION, "--out", str(tmp_path / "o"),
                 "--package", "../../etc"])
    assert code == 2
    assert "package name" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
