"""Catalog loader: the reference files load unchanged; every class of bad input is located."""


import pytest
from support.paths import CATALOGS
from support.reference_data import REFERENCE, needs_reference, reference_params

from bdi_supervisor.catalog.loader import catalog_from_doc, load_catalog, load_mappings
from bdi_supervisor.errors import InputError
from bdi_supervisor.spec.formula import And, Compare, Not, Num, Or, Var
from bdi_supervisor.yamlsource import parse_yaml

FLEXBE = REFERENCE / "flexbe_synthesis"


@pytest.mark.parametrize("path", reference_params("flexbe_synthesis/*/capabilities/*.yaml"))
def test_reference_catalogs_load(path):
    catalog = load_catalog(path)
    assert catalog.capabilities
    for cap in catalog.capabilities.values():
        assert set(cap.flexbe_outcomes.values()) == set(cap.outcomes)


@pytest.mark.parametrize("path", reference_params("flexbe_synthesis/mappings/*.yaml"))
def test_reference_mappings_load(path):
    mappings = load_mappings(path)
    assert mappings["transition_outcomes"] == ["completed", "failure"]
    assert mappings["state_outcome_mappings"]["failed"] == "failure"


@needs_reference
@pytest.mark.parametrize("name", ["coffee_capabilities_extended", "vending_capabilities_extended"])
def test_shipped_catalogs_equal_the_reference(name):
    folder = "coffee_maker" if name.startswith("coffee") else "vending_demo"
    ours = load_catalog(CATALOGS / (name.split("_")[0] + "_extended.yaml"))
    theirs = load_catalog(FLEXBE / folder / "capabilities" / f"{name}.yaml")
    assert ours.capabilities == theirs.capabilities
    assert ours.variables == theirs.variables and ours.memory == theirs.memory


def test_coffee_extended_details():
    catalog = load_catalog(CATALOGS / "coffee_extended.yaml")
    bd = catalog.capabilities["bd"]
    assert bd.outcomes == ("completed", "failure")
    assert bd.flexbe_outcomes == {"button": "completed", "fail": "failure"}
    assert bd.autonomy == {"button": 2, "fail": 3}  # per outcome, not flattened
    assert bd.preconditions == (Not(Var("gr")), Not(Var("bd")))
    assert bd.postconditions == {"completed": (Var("bd"), Not(Var("gr"))),
                                 "failure": (Not(Var("bd")),)}
    assert catalog.state_outcome_mappings["done"] == "completed"  # global mappings merged in
    assert catalog.sm_outcome_mappings == {"finished": "finished"}


def test_vending_parameters_setters_transitions():
    catalog = load_catalog(CATALOGS / "vending_extended.yaml")
    select = catalog.capabilities["select"]
    assert select.free_setters == {"completed": ("item",)}
    assert select.transitions == {"completed": (Var("soda"), Var("beer"), Var("snack"))}
    assert catalog.capabilities["soda"].postconditions["failure"][1] == Compare("=", Var("item"),
                                                                                Num(1))
    assert catalog.variables["item"].labels[1] == "soda"
    assert catalog.memory["pay"].owner == "sys"


BASE = """\
name: demo
variable_mappings:
  sys_props:
    item: {0: none, 1: a}
capabilities:
  go:
    interface: LogState
    parameters: {text: hi}
    preconditions: ["!go"]
    postconditions: [go]
  stop:
    interface: OperatorDecisionState
    parameters: {outcomes: [done, failed], hint: h, suggestion: done}
    preconditions: ["go & item=1 | !go"]
    postconditions:
      completed: ["!go"]
      failure: [go]
    autonomy: {done: 2, failed: 3}
    max_consecutive_failures: 3
"""


def _load(text):
    return catalog_from_doc(parse_yaml(text, "cat.yaml"))


def test_composite_conditions_and_bounded_failures():
    catalog = _load(BASE)
    stop = catalog.capabilities["stop"]
    go_item_1 = And((Var("go"), Compare("=", Var("item"), Num(1))))
    assert stop.preconditions == (Or((go_item_1, Not(Var("go")))),)
    assert stop.max_consecutive_failures == 3


@pytest.mark.parametrize("old, new, message, line", [
    ("    parameters: {text: hi}\n", "    parameters: {text: hi}\n    colour: red\n", "unknown key",
     9),
    ("name: demo\n", "name: demo\nextra: 1\n", "unknown key", 2),
    ("    preconditions: [\"!go\"]\n", "    preconditions: [\"!gone\"]\n", "undefined name 'gone'",
     9),
    ("    postconditions: [go]\n", "    postconditions: [go, \"!go\"]\n",
     "conflicting postconditions", 10),
    ("  go:\n", "  go-now:\n", "unsafe capability name", 6),
    ("  go:\n", "  completed:\n", "reserved capability name", 6),
    ("    parameters: {text: hi}\n", "    parameters: {text: hi, \"x y\": 1}\n",
     "unsafe parameter name", 8),
    ("    preconditions: [\"!go\"]\n", "    preconditions: [\"!go &\"]\n", "malformed formula", 9),
    ("    preconditions: [\"!go\"]\n", "    preconditions: [\"item\"]\n", "integer variable", 9),
    ("    interface: LogState\n    parameters: {text: hi}\n",
     "    interface: NoSuchState\n    parameters: {text: hi}\n",
     "unknown interface", 7),
    ("    max_consecutive_failures: 3\n", "    max_consecutive_failures: many\n", "wrong type", 19),
    ("    autonomy: {done: 2, failed: 3}\n", "    autonomy: {done: 7, failed: 3}\n",
     "bad autonomy level", 18),
    ("    parameters: {outcomes: [done, failed], hint: h, suggestion: done}\n",
     "    parameters: {outcomes: [done, oops], hint: h, suggestion: done}\n",
     "no normalized outcome", 13),
    ("    parameters: {outcomes: [done, failed], hint: h, suggestion: done}\n",
     "    parameters: {outcomes: [failed], hint: h, suggestion: failed}\n",
     "normalizes to 'completed'", 13),
    ("    postconditions: [go]\n", "    postconditions: [\"@nothing\"]\n", "names no variable", 10),
    ("    postconditions: [go]\n", "    postconditions: [go]\n    transition_relation: [nowhere]\n",
     "transition target", 11),
    ("    postconditions: [go]\n", "    postconditions: [go_a]\n", "activation propositions", 10),
])
def test_bad_catalogs_are_located(old, new, message, line):
    assert old in BASE
    with pytest.raises(InputError, match=message) as info:
        _load(BASE.replace(old, new, 1))
    assert info.value.file == "cat.yaml"
    assert info.value.line == line
    text = info.value.describe()
    assert "\n" not in text and "Traceback" not in text


MEMORY = "memory:\n  sys_props: {seen: false}\n"


@pytest.mark.parametrize("old, new, message, line", [
    ("    item: {0: none, 1: a}\n", "    item: {0: none, 1: a}\n  env_props:\n    item: {0: x}\n",
     "variable declared twice", 6),
    ("    item: {0: none, 1: a}\n", "    item: {}\n", "at least one value", 4),
    ("    item: {0: none, 1: a}\n", "    item: {zero: none}\n", "wrong type", 4),
    ("  sys_props:\n", "  robot_props:\n", "unknown key", 3),
    ("name: demo\n", "name: demo\n" + MEMORY + "  env_props: {seen: true}\n",
     "memory declared twice", 4),
    ("name: demo\n", "name: demo\n" + MEMORY.replace("false", "maybe"), "wrong type", 3),
    ("name: demo\n", "name: demo\n" + MEMORY.replace("seen", "se en"), "unsafe memory name", 3),
])
def test_bad_variable_and_memory_declarations_are_located(old, new, message, line):
    assert old in BASE
    with pytest.raises(InputError, match=message) as info:
        _load(BASE.replace(old, new, 1))
    assert info.value.file == "cat.yaml" and info.value.line == line


def test_memory_owner_and_initial_value():
    catalog = _load(BASE.replace("name: demo\n", "name: demo\n" + MEMORY + "  env_props: "
                                                                           "{door: true}\n"))
    assert {(m.name, m.owner, m.initial) for m in catalog.memory.values()} == {
        ("seen", "sys", False), ("door", "env", True)}
    assert catalog.variables["item"].owner == "sys"


def test_malformed_condition_column_points_into_the_file():
    with pytest.raises(InputError) as info:
        _load(BASE.replace('["!go"]', '["!go & & go"]', 1))
    # the formula starts after `    preconditions: ["` (21 characters); the second '&' is its 7th
    assert info.value.column == 21 + 7


def test_duplicate_keys_are_errors():
    with pytest.raises(InputError, match="duplicate key") as info:
        _load(BASE.replace("  stop:\n", "  go:\n", 1))
    assert info.value.line == 11


@pytest.mark.parametrize("path", reference_params("flexbe_synthesis/*/specs/*spec*.yaml"))
def test_reference_spec_yaml_files_load(path):
    from bdi_supervisor.spec.io import load_spec
    from bdi_supervisor.spec.structuredslugs import format_spec, parse_spec

    spec = load_spec(path)
    again = parse_spec(format_spec(spec))
    assert again.variables == spec.variables
    assert [c.formula for c in again.sys_safety] == [c.formula for c in spec.sys_safety]


def test_spec_yaml_errors_are_located(tmp_path):
    from bdi_supervisor.spec.io import load_spec

    path = tmp_path / "s.yaml"
    path.write_text('spec_name: x\nspecs:\n  OUTPUT: [a]\n  SYS_INIT:\n    - "a & b"\n')
    with pytest.raises(InputError, match="undeclared variable 'b'") as info:
        load_spec(path)
    assert (info.value.line, info.value.column) == (5, 12)
