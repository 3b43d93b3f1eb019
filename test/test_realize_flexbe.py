"""Generated FlexBE behavior packages: compile, one class, round trip, manifest, package.xml."""

from __future__ import annotations

import ast
import dataclasses
import py_compile
import sys
import types
import xml.etree.ElementTree as ET

import pytest
from catkin_pkg.package import parse_package
from support import realize_cases as cases

from bdi_supervisor import __version__
from bdi_supervisor.catalog.model import Parameter
from bdi_supervisor.errors import InputError
from bdi_supervisor.realize.flexbe import (
    behavior_names,
    build_date,
    check_email,
    generate_package,
)
from bdi_supervisor.realize.machine import build_machine, edges_from_provenance
from bdi_supervisor.realize.reader import read_behavior
from bdi_supervisor.realize.stage import instantiation_count, realize


def _cases():
    reduced, members = cases.coffee_enumerated_reduced()
    return {
        "coffee": (cases.coffee_reduced_onehot(), cases.coffee_catalog(), None),
        "coffee_raw": (cases.coffee_raw_onehot(), cases.coffee_catalog(), None),
        "vending": (cases.vending_reduced_onehot(), cases.vending_catalog(), None),
        "coffee_enum_raw": (cases.coffee_enumerated_raw(), cases.coffee_catalog(), None),
        "coffee_enum_reduced": (reduced, cases.coffee_catalog(),
                                edges_from_provenance(cases.coffee_enumerated_raw(), reduced,
                                                      members)),
    }


CASES = _cases()


def expected_from_strategy(strategy, catalog):
    """Independent oracle (one-hot): FlexBE state per activating state, wiring per outcome."""
    sm_props = {p: o for o, p in catalog.sm_outcome_mappings.items()}

    def active(state):
        return [c for c in catalog.capabilities if state.outputs.get(f"{c}_a")]

    def target(state):
        for prop, outcome in sm_props.items():
            if state.outputs.get(prop):
                return outcome
        (cap,) = active(state)
        return f"{state.id}_{cap}"

    expected = {}
    for state in strategy.states:
        if any(state.outputs.get(p) for p in sm_props) or not active(state):
            continue
        (cap,) = active(state)
        capability = catalog.capabilities[cap]
        wiring = {}
        for succ_id in state.successors:
            succ = strategy.state(succ_id)
            for flexbe, normalized in capability.flexbe_outcomes.items():
                if succ.inputs.get(f"{cap}_{normalized[0]}"):
                    wiring[flexbe] = target(succ)
        expected[f"{state.id}_{cap}"] = (capability.interface, wiring)
    return expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_module_compiles_has_one_class_and_round_trips(name, tmp_path):
    strategy, catalog, edges = CASES[name]
    result = realize(strategy, catalog, behavior=f"Test {name}", out_dir=tmp_path / "behavior",
                     edges=edges, date="2026-12-02")
    module = result.path / result.package.module_path
    py_compile.compile(str(module), doraise=True)
    read = read_behavior(module.read_text(), str(module))
    machine = result.machine
    assert read.classes == [result.package.names.class_name]
    assert read.behavior_name == f"Test {name}"
    assert read.initializes_core
    assert read.outcomes == list(machine.outcomes)
    assert read.initial == machine.initial
    assert [s.name for s in read.states] == machine.state_names
    for mine, got in zip(machine.states, read.states):
        assert got.class_name == mine.interface_class
        assert got.module == mine.interface_module
        assert got.parameters == mine.parameters
        assert got.transitions == mine.flexbe_transitions()
        assert got.autonomy == mine.autonomy
        assert got.remapping == mine.remapping


@pytest.mark.parametrize("name", ["coffee", "coffee_raw", "vending"])
def test_behavior_equals_strategy(name):
    strategy, catalog, _ = CASES[name]
    result = realize(strategy, catalog, behavior="Check")
    read = read_behavior(result.package.module_source)
    expected = expected_from_strategy(strategy, catalog)
    got = {s.name: (s.class_name, s.transitions) for s in read.states}
    assert got == expected


def test_reference_counts_for_coffee_and_vending():
    coffee = realize(*CASES["coffee"][:2], behavior="Coffee").machine
    vending = realize(*CASES["vending"][:2], behavior="Vending").machine
    assert (len(coffee.states), instantiation_count(coffee)) == (3, 4)
    assert (len(vending.states), vending.outcomes, instantiation_count(vending)) == (
        4, ("finished",), 6)


def test_layout_comments_and_sorted_imports():
    source = realize(*CASES["vending"][:2], behavior="Vending").package.module_source
    lines = source.splitlines()
    adds = [i for i, line in enumerate(lines) if "OperatableStateMachine.add(" in line]
    assert adds and all(lines[i - 1].strip().startswith("# x:") for i in adds)
    root = next(i for i, line in enumerate(lines) if "_state_machine = Operatable" in line)
    assert lines[root - 1].strip().startswith("# x:")
    imports = [line for line in lines if line.startswith("from ")]
    assert imports == sorted(imports)
    assert "from flexbe_core import Behavior" in imports
    for tag in ("MANUAL_IMPORT", "MANUAL_INIT", "MANUAL_CREATE", "MANUAL_FUNC"):
        assert f"# [{tag}]" in source and f"# [/{tag}]" in source


def test_manifest_fields(tmp_path):
    result = realize(*CASES["vending"][:2], behavior="Vending Demo", out_dir=tmp_path / "b",
                     date="2026-12-02")
    names = result.package.names
    root = ET.parse(result.path / "manifest" / "vending_demo.xml").getroot()
    assert root.tag == "behavior" and root.get("name") == "Vending Demo"
    executable = root.find("executable")
    assert executable.get("package_path") == f"{names.package}.vending_demo_sm"
    assert executable.get("package_path").split(".")[0] == names.package
    assert executable.get("class") == "VendingDemoSM"
    assert (result.path / names.package / "vending_demo_sm.py").exists()
    assert root.findtext("date") == "2026-12-02"
    assert root.findtext("author") and root.findtext("description")
    assert root.find("tagstring") is not None


def test_same_strategy_same_module_on_any_day(tmp_path, monkeypatch):
    """The module (whose checksum FlexBE's onboard compares) carries no date; the manifest's
    date follows SOURCE_DATE_EPOCH, so a build with it set is reproducible byte for byte."""
    strategy, catalog, _ = CASES["vending"]
    outputs = []
    for epoch in ("0", "1767225600", "1767225600"):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        outputs.append(realize(strategy, catalog, behavior="Vending").package.files)
    module = outputs[0]["vending_flexbe_behaviors/vending_sm.py"]
    assert all(files["vending_flexbe_behaviors/vending_sm.py"] == module for files in outputs)
    assert "1970" not in module and "2026" not in module
    assert "<date>1970-01-01</date>" in outputs[0]["manifest/vending.xml"]
    assert "<date>2026-01-01</date>" in outputs[1]["manifest/vending.xml"]
    assert outputs[1] == outputs[2]


@pytest.mark.parametrize("value, date", [
    ("0", "1970-01-01"), (" 86399 ", "1970-01-01"), ("86400", "1970-01-02"),
    ("253402300799", "9999-12-31"), ("253402300800", None), ("-1", None), ("1e9", None),
    ("", None), ("12a", None), ("9" * 5000, None), ("١٢٣", None),
])
def test_source_date_epoch_values(value, date):
    if date is None:
        with pytest.raises(InputError, match="SOURCE_DATE_EPOCH"):
            build_date({"SOURCE_DATE_EPOCH": value})
    else:
        assert build_date({"SOURCE_DATE_EPOCH": value}) == date


def test_package_xml_parses_with_catkin_pkg_and_exports_behaviors(tmp_path):
    result = realize(*CASES["coffee"][:2], behavior="Coffee", out_dir=tmp_path / "b")
    package = parse_package(str(result.path))
    package.validate()
    assert package.name == result.package.names.package
    tags = [e.tagname for e in package.exports]
    assert "flexbe_behaviors" in tags and "build_type" in tags
    assert {d.name for d in package.exec_depends} >= {"flexbe_core", "flexbe_states"}
    setup = (result.path / "setup.py").read_text()
    py_compile.compile(str(result.path / "setup.py"), doraise=True)
    assert "'/manifest'" in setup and "resource_index/packages" in setup
    assert (result.path / "resource" / result.package.names.package).exists()


def test_the_project_states_depend_on_the_ros_package_that_installs_them(tmp_path):
    """``bdi_flexbe_states`` is a Python package of the ``bdi_supervisor`` ROS package: the
    behavior's ``exec_depend`` names the ROS package (rosdep knows no ``bdi_flexbe_states``)."""
    from support.supervisors import prepared

    mission, prep = prepared("logistics_p1")
    result = realize(prep.reduced, mission.catalog, behavior="Logistics", out_dir=tmp_path / "b")
    depends = {d.name for d in parse_package(str(result.path)).exec_depends}
    assert depends == {"flexbe_core", "flexbe_states", "bdi_supervisor"}
    module = (result.path / result.package.names.package_path.replace(".", "/")).with_suffix(
        ".py").read_text()
    assert "from bdi_flexbe_states.pyrobosim.pick_state import PickState" in module


@pytest.mark.parametrize("email", ["a@b.c", "no-at-sign", "x@y", "a b@c.de"])
def test_invalid_maintainer_email_is_rejected(email):
    with pytest.raises(InputError, match="e-mail"):
        check_email(email)


@pytest.mark.parametrize("behavior", ["x'\nimport os", "Coffee\"\"\"", "", "9lives", "a/b"])
def test_unsafe_behavior_names_are_rejected(behavior):
    with pytest.raises(InputError):
        behavior_names(behavior)


def test_injected_capability_name_is_rejected_and_nothing_written(tmp_path):
    catalog = cases.coffee_catalog()
    evil = "bd'), __import__('os').system('touch pwned'), ('"
    catalog.capabilities[evil] = dataclasses.replace(catalog.capabilities["bd"], name=evil)
    with pytest.raises(InputError, match="capability name is not a safe identifier"):
        realize(cases.coffee_reduced_onehot(), catalog, behavior="Coffee",
                out_dir=tmp_path / "behavior")
    assert not (tmp_path / "behavior").exists()
    assert list(tmp_path.iterdir()) == []


def test_hostile_parameter_text_stays_a_literal():
    catalog = cases.coffee_catalog()
    text = "'''\"\"\"); import os  # \\ \n"
    catalog.capabilities["bd"] = dataclasses.replace(
        catalog.capabilities["bd"], parameters=(Parameter("hint", text),
                                                Parameter("outcomes", ["button", "fail"])))
    source = realize(cases.coffee_reduced_onehot(), catalog,
                     behavior="Coffee").package.module_source
    compile(source, "<generated>", "exec")
    assert read_behavior(source).state("0_bd").parameters["hint"] == text
    assert "import os" not in [line.strip() for line in source.splitlines()]


def test_ambiguous_strategy_is_refused_for_flexbe():
    raw = cases.coffee_enumerated_raw()
    # drop the arrival labels: every successor shows both outcomes (a merged union)
    for state in raw.states[1:]:
        state.inputs = {"completed": True, "failure": True}
    with pytest.raises(InputError, match="sensor inputs"):
        realize(raw, cases.coffee_catalog(), behavior="Coffee")
    machine = build_machine(raw, cases.coffee_catalog())
    generate_package(machine, "Coffee", ambiguity="default")


def test_rewrite_replaces_previous_package(tmp_path):
    out = tmp_path / "behavior"
    realize(*CASES["coffee"][:2], behavior="Coffee", out_dir=out)
    (out / "stale.txt").write_text("old")
    realize(*CASES["vending"][:2], behavior="Vending", out_dir=out)
    assert not (out / "stale.txt").exists()
    assert (out / "manifest" / "vending.xml").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["behavior"]


def test_userdata_defaults_and_remapping_emitted():
    catalog = cases.coffee_catalog()
    catalog.capabilities["bd"] = dataclasses.replace(catalog.capabilities["bd"],
                                                     userdata_out={"press": "button_time"})
    source = realize(cases.coffee_reduced_onehot(), catalog,
                     behavior="Coffee").package.module_source
    read = read_behavior(source)
    assert read.userdata == {"button_time": None}
    assert read.state("0_bd").remapping == {"press": "button_time"}


def test_package_installs_the_layout_flexbe_needs(tmp_path):
    """Built as a wheel, the package puts files where BehaviorLibrary looks for them."""
    import subprocess
    import sys
    import zipfile

    result = realize(*CASES["vending"][:2], behavior="Vending", out_dir=tmp_path / "behavior")
    pkg = result.package.names.package
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(tmp_path / "dist"), str(result.path)],
                   check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    data = f"{pkg}-{__version__}.data/data"
    assert f"{pkg}/vending_sm.py" in names
    assert f"{data}/lib/{pkg}/manifest/vending.xml" in names
    assert f"{data}/share/{pkg}/package.xml" in names
    assert f"{data}/share/ament_index/resource_index/packages/{pkg}" in names


# --- both names of flexbe_core's initialization: 3.x/4.x and 2.x --------------------------------

def _engine(monkeypatch, source: str, init_name: str, calls: list) -> None:
    """Modules offering only the names the generated ``source`` imports at its top level: a
    flexbe_core with the core's initialization under ``init_name`` (test-only: it records the
    node it is given; the real engine runs in test_realize_flexbe_runtime.py and on onboard, see
    docs/flexbe.md), and empty state classes."""
    modules: dict[str, types.ModuleType] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            parts = node.module.split(".")
            for i in range(1, len(parts) + 1):
                modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
            for alias in node.names:
                setattr(modules[node.module], alias.name, type(alias.name, (), {}))
    core = modules["flexbe_core"]
    core.Behavior = type("Behavior", (), {"__init__": lambda self: None})
    setattr(core, init_name, calls.append)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def _engine_import(source: str) -> ast.Try:
    tree = ast.parse(source)
    (block,) = [node for node in tree.body if isinstance(node, ast.Try)]
    return block


@pytest.mark.parametrize("init_name", ["initialize_flexbe_core", "set_node"])
def test_generated_behavior_initializes_either_engine(init_name, monkeypatch):
    """FlexBE 3.x/4.x (Jazzy) name the core's initialization ``initialize_flexbe_core``, FlexBE 2.x
    (Humble, Iron) ``set_node``: one generated module uses whichever the installed flexbe_core
    has, the 4.x name first."""
    source = realize(*CASES["vending"][:2], behavior="Vending").package.module_source
    block = _engine_import(source)
    tried = [(n.module, a.name, a.asname) for n in block.body for a in n.names]
    fallback = [(n.module, a.name, a.asname) for h in block.handlers for n in h.body
                for a in n.names]
    assert tried == [("flexbe_core", "initialize_flexbe_core", None)]
    assert fallback == [("flexbe_core", "set_node", "initialize_flexbe_core")]
    assert [h.type.id for h in block.handlers] == ["ImportError"]
    calls: list = []
    _engine(monkeypatch, source, init_name, calls)
    namespace: dict = {}
    exec(compile(source, "vending_sm.py", "exec"), namespace)
    node = object()
    behavior = namespace["VendingSM"](node)
    assert calls == [node] and behavior.name == "Vending"
