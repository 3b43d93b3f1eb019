"""``bdi-supervisor realize STRATEGY.json --mission MISSION.yaml --out DIR``."""

from __future__ import annotations

import json
import py_compile
from pathlib import Path

import pytest
from support import realize_cases as cases
from support.paths import MISSIONS

from bdi_supervisor.cli.main import main
from bdi_supervisor.synthesis import strategy as strategy_io

MISSION = str(MISSIONS / "vending_extended.yaml")


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


def _refused(tmp_path, capsys, strategy: Path, mission: str, message: str) -> None:
    """``realize`` exits 2 with ``message`` and writes nothing."""
    code = main(["realize", str(strategy), "--mission", mission, "--out", str(tmp_path / "out")])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_bad_strategy_exits_2_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    path.write_text('{"format": "something else"}')
    _refused(tmp_path, capsys, path, MISSION, "not a bdi_supervisor strategy")


def test_strategy_of_another_catalog_exits_2(tmp_path, capsys):
    path = tmp_path / "reduced.json"
    strategy_io.save(cases.vending_reduced_onehot(), path)
    _refused(tmp_path, capsys, path, str(MISSIONS / "coffee_extended.yaml"),
             "is not one of mission 'coffee_extended'")


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


@pytest.mark.parametrize("package", ["flexbe_core", "flexbe_states", "os", "setuptools", "json",
                                     "rclpy", "dd"])
def test_package_that_shadows_a_module_exits_2(tmp_path, capsys, package):
    """A behavior package named like a module the behavior runs among would be imported in its
    place: refused at validation, nothing written."""
    path = tmp_path / "reduced.json"
    strategy_io.save(cases.vending_reduced_onehot(), path)
    code = main(["realize", str(path), "--mission", MISSION, "--out", str(tmp_path / "o"),
                 "--package", package])
    assert code == 2
    err = capsys.readouterr().err
    assert "would shadow" in err and repr(package) in err
    assert not (tmp_path / "o").exists()


def _mutations(data: dict) -> list[tuple[str, object]]:
    """(key the error names, a change of ``data``): every field of the format made wrong."""
    variables = data["variables"]
    out_var = next(v for v in variables if v["owner"] == "sys")
    in_var = next(v for v in variables if v["owner"] == "env")
    state = data["states"][0]

    def setter(container, key, value):
        def apply():
            container[key] = value
        return apply

    return [
        ("version", setter(data, "version", 2)),
        ("version", setter(data, "version", "1")),
        ("name", setter(data, "name", ["x"])),
        ("variables[0].name", setter(variables[0], "name", "a b; import os")),
        ("variables[1].name", setter(variables[1], "name", variables[0]["name"])),
        ("variables[0].owner", setter(variables[0], "owner", "robot")),
        ("variables[0].kind", setter(variables[0], "kind", "float")),
        ("variables[0]", setter(variables[0], "high", -5)),
        (f"states[0].outputs.{out_var['name']}",
         setter(state["outputs"], out_var["name"], out_var["high"] + 1
                if out_var["kind"] == "int" else 1)),
        (f"states[0].outputs.{in_var['name']}", setter(state["outputs"], in_var["name"],
                                                       state["inputs"].get(in_var["name"]))),
        ("states[0].inputs.nowhere", setter(state["inputs"], "nowhere", True)),
        ("states[0].successors", setter(state, "successors", [True])),
        ("states[0].successors", setter(state, "successors", [len(data["states"])])),
        ("states[0].rank", setter(state, "rank", -1)),
        ("states[0].initial", setter(state, "initial", "yes")),
        ("states[0].id", setter(state, "id", "0")),
        ("states[0].edge_inputs", setter(state, "edge_inputs", [])),
        ("states[0]", setter(state, "exec", "print(1)")),
    ]


@pytest.mark.parametrize("number", range(18))
def test_strategy_given_to_realize_is_validated_whole(tmp_path, capsys, number):
    """Version, variable names, owners, kinds and ranges, every valuation, successor, rank and
    flag: a strategy file wrong in any of them exits 2 naming the key, nothing written."""
    data = strategy_io.to_dict(cases.vending_reduced_onehot())
    data = json.loads(json.dumps(data))
    mutations = _mutations(data)
    assert len(mutations) == 18
    key, apply = mutations[number]
    apply()
    path = tmp_path / "reduced.json"
    path.write_text(json.dumps(data))
    code = main(["realize", str(path), "--mission", MISSION, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"key '{key}'" in err and "reduced.json" in err, err
    assert not (tmp_path / "o").exists()
