"""Catalog interfaces resolve to a real state module, or are refused before anything is written."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import realize_cases as cases
from support.paths import ROOT
from support.ros_stack import STACK_MISSING

from bdi_supervisor.catalog.interfaces import (
    resolve_interface,
    snake_case,
    state_class,
    state_domain,
    state_package,
    stock_state,
    stock_states,
)
from bdi_supervisor.catalog.loader import load_catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.machine import build_machine
from bdi_supervisor.realize.stage import realize


@pytest.mark.parametrize("cls", sorted(stock_states()))
def test_stock_states_resolve_in_every_spelling(cls):
    module = stock_states()[cls]["module"]
    assert module.startswith("flexbe_states.")
    for spelling in (cls, f"flexbe_states/{cls}", f"{module}.{cls}", f"{module}/{cls}"):
        assert resolve_interface(spelling) == (module, cls)
        assert stock_state(spelling) is stock_states()[cls]


def test_explicit_modules_resolve_as_written():
    assert resolve_interface("my_states.move_state.MoveState") == ("my_states.move_state",
                                                                   "MoveState")
    assert resolve_interface("my_states.motion.sub.MoveState") == ("my_states.motion.sub",
                                                                   "MoveState")
    assert resolve_interface("my_states.motion/MoveState") == ("my_states.motion", "MoveState")
    # a user's own LogState is not FlexBE's
    assert stock_state("my_states.log_state.LogState") is None
    assert resolve_interface("my_states.log_state.LogState") == ("my_states.log_state", "LogState")
    assert state_class("my_states.move_state.MoveState") == "MoveState"
    assert snake_case("OperatorDecisionState") == "operator_decision_state"


@pytest.mark.parametrize(("interface", "hint"), [
    ("MoveState", "my_states.move_state.MoveState"),
    ("my_states/MoveState", "my_states.move_state.MoveState"),
    ("move_state.MoveState", "move_state.move_state.MoveState"),
    ("pyrobosim_flexbe_states/LogState", "pyrobosim_flexbe_states.log_state.LogState"),
])
def test_unresolved_interfaces_are_refused_with_the_form_that_works(interface, hint):
    with pytest.raises(InputError) as error:
        resolve_interface(interface, key="capabilities.move.interface", file="cat.yaml")
    assert error.value.key == "capabilities.move.interface" and error.value.file == "cat.yaml"
    assert hint in error.value.describe()


@pytest.mark.parametrize("interface", ["Log State", "os.system('x')/Log", "a/b/c", "LogState()",
                                       "my.class.State", "", ".Log", "a..b.C"])
def test_unsafe_interfaces_are_rejected(interface):
    with pytest.raises(InputError):
        resolve_interface(interface)


@pytest.mark.parametrize("path", sorted((ROOT / "config" / "catalogs").glob("*.yaml")),
                         ids=lambda p: p.stem)
def test_every_shipped_catalog_interface_resolves(path):
    catalog = load_catalog(path)
    for name, cap in catalog.capabilities.items():
        module, cls = resolve_interface(cap.interface, f"capabilities.{name}.interface")
        assert module.count(".") >= 1 and cls == state_class(cap.interface)


def test_machine_building_refuses_an_unresolved_interface():
    catalog = cases.vending_catalog()
    catalog.capabilities["pay"] = dataclasses.replace(catalog.capabilities["pay"],
                                                      interface="PayState")
    with pytest.raises(InputError, match="not one of FlexBE's stock states") as error:
        build_machine(cases.vending_reduced_onehot(), catalog)
    assert error.value.key == "capabilities.pay.interface"


def test_realize_writes_nothing_for_an_unresolved_interface(tmp_path):
    catalog = cases.vending_catalog()
    catalog.capabilities["pay"] = dataclasses.replace(catalog.capabilities["pay"],
                                                      interface="payments/PayState")
    with pytest.raises(InputError, match="names a package but not the module"):
        realize(cases.vending_reduced_onehot(), catalog, behavior="Vending",
                out_dir=tmp_path / "behavior")
    assert not (tmp_path / "behavior").exists()


def test_realize_cli_exits_2_naming_the_capability(tmp_path):
    source = yaml.safe_load((ROOT / "config" / "catalogs" / "coffee.yaml").read_text())
    source["capabilities"]["gr"]["interface"] = "GrindState"
    source["capabilities"]["gr"]["outcomes"] = ["done"]
    (tmp_path / "coffee.yaml").write_text(yaml.safe_dump(source))
    mission = yaml.safe_load((ROOT / "config" / "missions" / "coffee.yaml").read_text())
    mission["catalog"] = "coffee.yaml"
    (tmp_path / "mission.yaml").write_text(yaml.safe_dump(mission))
    run = [sys.executable, "-m", "bdi_supervisor", "synthesize", "mission.yaml", "--out", "out"]
    done = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "capabilities.gr.interface" in done.stderr and "GrindState" in done.stderr
    assert not (tmp_path / "out").exists()  # refused before synthesis
    good = [sys.executable, "-m", "bdi_supervisor", "synthesize",
            str(ROOT / "config" / "missions" / "coffee.yaml"), "--out", "good"]
    assert subprocess.run(good, cwd=tmp_path, capture_output=True, timeout=120).returncode == 0
    strategy = next((tmp_path / "good").rglob("reduced.json"))
    run = [sys.executable, "-m", "bdi_supervisor", "realize", str(strategy), "--mission",
           "mission.yaml", "--out", "again"]
    done = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "capabilities.gr.interface" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "again").exists()


def _coffee_catalog(tmp_path: Path, change) -> Path:
    source = yaml.safe_load((ROOT / "config" / "catalogs" / "coffee.yaml").read_text())
    change(source["capabilities"]["gr"])
    path = tmp_path / "coffee.yaml"
    path.write_text(yaml.safe_dump(source))
    return path


@pytest.mark.parametrize("parameters,words", [
    ({"text": "hi", "self": "hi"}, ["LogState takes no parameter 'self'",
                                     "capabilities.gr.parameters.self"]),
    ({"txet": "hi"}, ["LogState takes no parameter 'txet'", "did you mean 'text'?"]),
    ({"text": "hi", "severty": 1}, ["did you mean 'severity'?"]),
    ({}, ["LogState needs the parameter text", "capabilities.gr.parameters"]),
])
def test_stock_state_parameters_follow_its_constructor(tmp_path, parameters, words):
    """``LogState(self='hi')`` raised only when FlexBE built the state machine: a stock state's
    parameters are checked against its constructor when the catalog is read."""
    path = _coffee_catalog(tmp_path, lambda cap: cap.__setitem__("parameters", parameters))
    with pytest.raises(InputError) as error:
        load_catalog(path)
    for word in words:
        assert word in error.value.describe()


@pytest.mark.parametrize("userdata,key", [(["__class__"], "userdata_out.__class__"),
                                          ({"out": "_data"}, "userdata_out.out"),
                                          ([["a"]], "userdata_out[0]"),
                                          ({"a b": "x"}, "userdata_out.a b")])
def test_userdata_keys_are_plain_identifiers(tmp_path, userdata, key):
    """Dunders and ``_`` names (FlexBE's UserData keeps its own attributes there), nested lists
    (a traceback before) and non-identifiers are refused, naming the key."""
    path = _coffee_catalog(tmp_path, lambda cap: cap.__setitem__("userdata_out", userdata))
    with pytest.raises(InputError) as error:
        load_catalog(path)
    assert error.value.key == f"capabilities.gr.{key}"


def _constructor_outcomes(cls: type) -> list[str] | None:
    """The literal ``outcomes=[...]`` a state's ``__init__`` passes to its base class, or None
    where they are computed (OperatorDecisionState, DecisionState)."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "outcomes":
            try:
                return list(ast.literal_eval(node.value))
            except ValueError:
                return None
    return None


def test_stock_state_table_matches_flexbe_states():
    """Where FlexBE's stock states are installed, the table holds for that engine line: the
    states it has from that line on import and the others do not; their constructors take the
    table's required parameters (no default) and its optional ones of that line (a default);
    their outcomes are the table's. Run on 2.3.3, 3.0.7 and 4.0.3 (``ROS_STACK_FLEXBE=...``)."""
    import importlib
    import importlib.metadata
    import inspect

    pytest.importorskip("flexbe_states", reason=STACK_MISSING.format(what="FlexBE's flexbe_states"))
    line = int(importlib.metadata.version("flexbe_states").split(".")[0])
    for cls, info in stock_states().items():
        since = info.get("since", {})
        try:
            module = importlib.import_module(info["module"])
        except ImportError:
            assert since.get("state", 2) > line, f"{cls} is missing on FlexBE {line}.x"
            continue
        assert since.get("state", 2) <= line, f"{cls} exists on FlexBE {line}.x"
        state = getattr(module, cls)
        parameters = list(inspect.signature(state.__init__).parameters.values())[1:]
        assert info["required"] == [p.name for p in parameters if p.default is p.empty], cls
        optional = [name for name in info.get("optional", []) if since.get(name, 2) <= line]
        assert optional == [p.name for p in parameters if p.default is not p.empty], cls
        if "outcomes" in info:
            assert info["outcomes"] == _constructor_outcomes(state), cls


def test_the_projects_own_states_are_named_by_their_domain():
    interface = "bdi_flexbe_states.two_rivers.move_state.MoveState"
    assert state_package(interface) == "bdi_flexbe_states"
    assert state_domain(interface) == "two_rivers"
    assert state_package("my_states.move_state.MoveState") == "my_states"
    assert state_domain("my_states.move_state.MoveState") is None
    assert state_domain("LogState") is None and state_package("LogState") == "flexbe_states"


def _own_states():
    """(catalog, capability, interface) of every shipped capability naming a project's state."""
    for path in sorted((ROOT / "config" / "catalogs").glob("*.yaml")):
        catalog = load_catalog(path)
        for name, cap in catalog.capabilities.items():
            if state_domain(cap.interface) is not None:
                yield catalog, name, cap


@pytest.mark.parametrize(("catalog", "name", "cap"), list(_own_states()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_own_state_a_catalog_names_exists_with_its_parameters_and_outcomes(catalog, name,
                                                                                   cap):
    """The module a catalog names is in bdi_flexbe_states, defines the class (one state per
    module, read from the source: flexbe_core is not needed), takes every parameter the
    capability gives, and its docstring lists them and every FlexBE outcome it declares."""
    import ast

    module, cls = resolve_interface(cap.interface)
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    assert path.is_file(), f"{catalog.name}.{name}: {path} does not exist"
    tree = ast.parse(path.read_text())
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [c.name for c in classes] == [cls]
    init = next(n for n in classes[0].body if isinstance(n, ast.FunctionDef)
                and n.name == "__init__")
    accepted = [a.arg for a in init.args.args[1:]]
    doc = ast.get_docstring(classes[0])
    for parameter in cap.parameters:
        assert parameter.name in accepted, (name, parameter.name)
        assert f"-- {parameter.name} " in doc, (name, parameter.name)
    for outcome in cap.flexbe_outcomes:
        assert f"<= {outcome} " in doc, (name, outcome)


def test_a_behavior_of_own_states_depends_on_bdi_supervisor():
    from xml.etree import ElementTree

    from support.supervisors import prepared

    from bdi_supervisor.realize.stage import realize_mission

    mission, prep = prepared("beer_robot")
    files = realize_mission(prep.reduced, mission).package.files
    depends = {e.text for e in ElementTree.fromstring(files["package.xml"]).iter("exec_depend")}
    assert depends == {"bdi_supervisor", "flexbe_core", "flexbe_states"}
    module = next(text for path, text in files.items() if path.endswith("_sm.py"))
    assert "from bdi_flexbe_states.beer_robot.open_door_state import OpenDoorState" in module
