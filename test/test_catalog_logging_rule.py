"""The reference's logging rule in the catalog format: a catalog that ``extends`` another, a
precondition on a generic outcome (``failure``: some capability has just failed) or on an
outcome proposition (``log_failed_c``: the log itself has just completed), and the strategies
that rule yields (the log only right after a failure, never twice in a row)."""

from __future__ import annotations

import dataclasses

import pytest
from support.expected_verdicts import overrides
from support.paths import CATALOGS, MISSIONS

from bdi_supervisor import pipeline
from bdi_supervisor.catalog.loader import catalog_from_doc, load_catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission import load_mission
from bdi_supervisor.spec.formula import Not, Var, disj
from bdi_supervisor.spec.io import format_spec
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.yamlsource import load_yaml, parse_yaml

REFERENCE = ("two_rivers", "logistics_p0", "logistics_p1")


@pytest.mark.parametrize("base", REFERENCE)
def test_a_reference_catalog_is_its_base_but_for_the_log(base):
    """Everything but ``log_failed`` (and the name) comes from the catalog it extends, so a
    change of the shipped catalog reaches its reference modelling too."""
    ours, theirs = load_catalog(CATALOGS / f"{base}_reference.yaml"), load_catalog(
        CATALOGS / f"{base}.yaml")
    assert ours.name == f"{base}_reference" and list(ours.capabilities) == list(theirs.capabilities)
    for name, cap in theirs.capabilities.items():
        if name != "log_failed":
            assert ours.capabilities[name] == cap
    assert (ours.variables, ours.memory, ours.state_outcome_mappings) == (
        theirs.variables, theirs.memory, theirs.state_outcome_mappings)
    log = ours.capabilities["log_failed"]
    assert log.preconditions == (Var("failure"), Not(Var("log_failed_c")))
    assert dataclasses.replace(log, preconditions=()) == theirs.capabilities["log_failed"]


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
@pytest.mark.parametrize("base", REFERENCE)
def test_failure_means_every_failure_proposition(base, encoding):
    """``failure`` in a precondition is the disjunction of the failure propositions of every
    capability that can fail: the spec equals the one with that disjunction written out (the
    reference writes it so: ``!move_wolf_f & !move_goat_f & … -> !log_failed_a``)."""
    mission = load_mission(MISSIONS / f"{base}_reference.yaml")
    catalog = mission.catalog
    failing = [Var(f"{c}_f") for c, cap in sorted(catalog.capabilities.items())
               if "failure" in cap.outcomes]
    assert len(failing) >= 2 or base == "two_rivers"
    log = catalog.capabilities["log_failed"]
    written = dataclasses.replace(log, preconditions=(disj(failing), *log.preconditions[1:]))
    spelled = dataclasses.replace(mission, catalog=dataclasses.replace(
        catalog, capabilities={**catalog.capabilities, "log_failed": written}))
    for config in ("S", "FP"):
        options = overrides(encoding, config)
        assert format_spec(generate_spec(mission, **options), "structuredslugs") == format_spec(
            generate_spec(spelled, **options), "structuredslugs")


def test_the_log_comes_only_right_after_a_failure_and_never_twice():
    """Read off the audited strategy of Two-Rivers FP with the reference rule: every state that
    activates the log is entered by a failed move, and no successor of such a state activates it
    again; and every failed move leads to the log (the transition relation)."""
    mission = load_mission(MISSIONS / "two_rivers_reference.yaml")
    run = pipeline.run(mission, overrides=overrides("one-hot", "FP"), explain=False)
    stages = {s.name: s for s in run.stages}
    assert stages["audit"].status == "PASS"
    strategy = run.synthesis.strategy
    states = {s.id: s for s in strategy.states}
    logged = 0
    for state in states.values():
        for successor in map(states.get, state.successors):
            failed = bool(successor.inputs.get("move_f"))
            assert bool(successor.outputs.get("log_failed_a")) == failed
            if state.outputs.get("log_failed_a"):
                logged += 1
                assert not successor.outputs.get("log_failed_a")
    assert logged  # the strategy does log


CATALOG = """\
name: base
capabilities:
  go:
    interface: LogState
    parameters: {text: go}
  attempt:
    interface: OperatorDecisionState
    parameters: {outcomes: [done, failed], hint: h, suggestion: done}
    transition_relation: {failure: [log]}
  log:
    interface: LogState
    parameters: {text: logged}
"""


def _write(folder, name, text):
    path = folder / name
    path.write_text(text)
    return path


def test_extends_replaces_in_place_and_adds_at_the_end(tmp_path):
    _write(tmp_path, "base.yaml", CATALOG)
    path = _write(tmp_path, "more.yaml", "extends: base.yaml\ncapabilities:\n"
                  "  log: {interface: LogState, parameters: {text: once}, "
                  "preconditions: [failure]}\n"
                  "  stop: {interface: LogState, parameters: {text: stop}}\n")
    catalog = load_catalog(path)
    assert catalog.name == "more" and list(catalog.capabilities) == ["go", "attempt", "log", "stop"]
    assert catalog.capabilities["log"].preconditions == (Var("failure"),)
    assert catalog.capabilities["attempt"].transitions == {"failure": (Var("log"),)}


@pytest.mark.parametrize("text, message, key", [
    ("extends: nowhere.yaml\n", "catalog file", "extends"),
    ("extends: [base.yaml]\n", "wrong type", "extends"),
    ("extends: more.yaml\n", "cycle", "extends"),
    ("extends: base.yaml\nmemory: {sys_props: {x: false}}\n", "unknown key", "memory"),
    ("extends: base.yaml\ncapabilities:\n  go: {interface: NoSuchState}\n", "unknown interface",
     "capabilities.go.interface"),
])
def test_a_bad_extends_is_located(tmp_path, text, message, key):
    _write(tmp_path, "base.yaml", CATALOG)
    path = _write(tmp_path, "more.yaml", text)
    with pytest.raises(InputError, match=message) as info:
        load_catalog(path)
    assert info.value.file.endswith("more.yaml") and info.value.key == key


def test_a_long_chain_of_extends_is_refused(tmp_path):
    _write(tmp_path, "c0.yaml", CATALOG)
    for i in range(1, 11):
        _write(tmp_path, f"c{i}.yaml", f"extends: c{i - 1}.yaml\n")
    assert load_catalog(tmp_path / "c8.yaml").name == "c8"
    with pytest.raises(InputError, match="more than 8 catalogs"):
        load_catalog(tmp_path / "c10.yaml")


def test_an_error_in_the_base_names_the_base(tmp_path):
    _write(tmp_path, "base.yaml", CATALOG.replace("text: go", "txt: go"))
    path = _write(tmp_path, "more.yaml", "extends: base.yaml\n")
    with pytest.raises(InputError, match="takes no parameter") as info:
        load_catalog(path)
    assert info.value.file.endswith("base.yaml")
    assert load_yaml(path).data == {"extends": "base.yaml"}


@pytest.mark.parametrize("condition, where, message", [
    ("log_f", "preconditions", "capability 'log' has no such outcome; its outcomes: completed"),
    ("go_f", "preconditions", "capability 'go' has no such outcome"),
    ("failure", "postconditions", "a generic outcome may be a precondition only"),
    ("completed | nothing", "preconditions", "undefined name 'nothing'"),
])
def test_outcome_names_in_conditions_are_checked_where_written(condition, where, message):
    text = CATALOG + f"    {where}: ['{condition}']\n"
    with pytest.raises(InputError, match=message) as info:
        catalog_from_doc(parse_yaml(text, "cat.yaml"))
    assert info.value.key == f"capabilities.log.{where}[0]" and info.value.line == 13


def test_failure_needs_a_capability_that_can_fail():
    text = CATALOG.replace("    transition_relation: {failure: [log]}\n", "").replace(
        "outcomes: [done, failed]", "outcomes: [done]").replace("suggestion: done}",
                                                                "suggestion: done}\n")
    text += "    preconditions: [failure]\n"
    with pytest.raises(InputError, match=r"undefined name 'failure'.*no capability has"):
        catalog_from_doc(parse_yaml(text, "cat.yaml"))
    catalog = catalog_from_doc(parse_yaml(text.replace("[failure]", "[completed]"), "cat.yaml"))
    assert catalog.capabilities["log"].preconditions == (Var("completed"),)
