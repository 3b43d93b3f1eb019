"""Answers of the synthesis service: the state instantiations against the supervisor machine
they describe, and each error code against an independent run of the stage that decides it
(the explanation, the audit, the budget). Plain Python, no ROS."""

from __future__ import annotations

import ast
import dataclasses
import shutil

import pytest
from support.paths import CATALOGS, DATA
from support.reference_data import REFERENCE, needs_reference

from bdi_supervisor.common import AuditVerdict, Realizability
from bdi_supervisor.mission import load_mission
from bdi_supervisor.pipeline import chain
from bdi_supervisor.pipeline.audit_reduce import audit_mission
from bdi_supervisor.pipeline.explain import explain_mission
from bdi_supervisor.service.answer import Settings, answer
from bdi_supervisor.service.codes import Code
from bdi_supervisor.service.instantiations import OUTCOME, STATEMACHINE, instantiations
from bdi_supervisor.service.mission import build_mission, load_seed
from bdi_supervisor.service.request import SynthesisRequest, parse_options
from bdi_supervisor.service.systems import resolve_system
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.synthesize import synthesize

VENDING = SynthesisRequest(("prep_pay_a",), ("soda",), ("finished",), "vending_demo",
                           "VendingDemoSM")
COFFEE = SynthesisRequest(("bd_a",), ("br_c",), (), "coffee_maker", "CoffeeSM")
#: coffee asked to finish once the button is detected and coffee brewed in the same step
COFFEE_IMPOSSIBLE = dataclasses.replace(COFFEE, goals=("bd_c & br_c",), sm_outcomes=("finished",))
#: coffee whose button may fail at most twice in a row, which its strategy cannot promise
COFFEE_BOUNDED = dataclasses.replace(COFFEE, system_name="coffee_bounded")
#: the quadcopter's one-hot Fair-Outcome + pending synthesis takes minutes
QUADCOPTER = SynthesisRequest(("arm_a",), ("disarm",), ("finished", "aborted"), "quadcopter",
                              "Q", synthesis_options="{encoding: one-hot, liveness: "
                              "fair-outcome, pending: true}")


@pytest.fixture
def home(tmp_path):
    """The reference's two demo systems, laid out as its examples, from the shipped catalogs."""
    for system, catalog in (("vending_demo", "vending"), ("coffee_maker", "coffee")):
        (tmp_path / system / "capabilities").mkdir(parents=True)
        shutil.copy(CATALOGS / f"{catalog}.yaml",
                    tmp_path / system / "capabilities" / f"{catalog}_capabilities.yaml")
    (tmp_path / "coffee_bounded" / "capabilities").mkdir(parents=True)
    shutil.copy(DATA / "ros" / "coffee_bounded_catalog.yaml",
                tmp_path / "coffee_bounded" / "capabilities" / "coffee_bounded_capabilities.yaml")
    (tmp_path / "vending_demo" / "specs").mkdir()
    (tmp_path / "vending_demo" / "specs" / "vending_demo_capabilities_spec.yaml").write_text(
        'spec_name: "vending_demo"\nspecs:\n  OUTPUT: [prep_pay_a, "item:0...3"]\n'
        '  SYS_INIT: [prep_pay_a, "item=0"]\n')
    return tmp_path


def mission_of(request: SynthesisRequest, home) -> object:
    options = parse_options(request.synthesis_options)
    system = resolve_system(request.system_name, home, capabilities=options.capabilities)
    return build_mission(system, request, options, load_seed(system))


def wiring(states) -> dict[str, dict[str, str]]:
    """State name → {FlexBE outcome: target}, read from the records alone."""
    return {s.name: dict(zip(s.outcomes, s.transitions, strict=True)) for s in states
            if s.state_class not in (STATEMACHINE, OUTCOME)}


def check_records(states, machine, outcome_states=True) -> None:
    """The records describe ``machine``: root, states in order, wiring, autonomy, parameters,
    remapping, outcome pseudo-states; every target is a state or a container outcome."""
    root, *rest = states
    assert (root.state_path, root.state_class) == ("/", STATEMACHINE)
    assert root.initial_state_name == machine.initial and root.outcomes == list(machine.outcomes)
    body = [s for s in rest if s.state_class != OUTCOME]
    assert [s.state_path for s in body] == [f"/{s.name}" for s in machine.states]
    assert wiring(states) == {s.name: s.flexbe_transitions() for s in machine.states}
    for record, state in zip(body, machine.states, strict=True):
        assert dict(zip(record.outcomes, record.autonomy, strict=True)) == state.autonomy
        values = [ast.literal_eval(v) for v in record.parameter_values]
        assert dict(zip(record.parameter_names, values, strict=True)) == state.parameters
        assert dict(zip(record.userdata_keys, record.userdata_remapping, strict=True)) == \
            state.remapping
        assert record.state_class.split("__")[-1] == state.interface_class
        targets = set(record.transitions)
        assert targets <= {s.name for s in machine.states} | set(machine.outcomes)
    pseudo = [s for s in rest if s.state_class == OUTCOME]
    assert [s.state_path for s in pseudo] == (list(machine.outcomes) if outcome_states else [])
    assert rest[:len(body)] == body  # pseudo-states come last
    positions = [s.position for s in body]
    assert len(set(positions)) == len(positions)


# ---------------------------------------------------------------- success


@pytest.mark.parametrize("request_, mission", [(VENDING, "vending"), (COFFEE, "coffee")],
                         ids=["vending", "coffee"])
def test_demo_requests_answer_the_shipped_missions_supervisor(home, request_, mission):
    """The demo requests over the reference layout give the supervisor of the shipped mission
    that states the same request (its pipeline run is the oracle)."""
    result = answer(request_, Settings(home=str(home)))
    assert result.code == Code.SUCCESS, result.messages
    expected = chain.run(load_mission(mission)).realization.machine
    check_records(result.states, expected)
    assert result.messages[0].startswith("audit PASS: raw strategy")
    assert "well-separation: WELL_SEPARATED" in result.messages


@needs_reference
@pytest.mark.parametrize("request_, count", [(VENDING, 6), (COFFEE, 4)],
                         ids=["vending", "coffee"])
def test_the_reference_examples_give_the_published_counts(request_, count):
    """The reference's own example folder, unchanged: 6 state instantiations for vending and 4
    for coffee, as the reference's example tests expect."""
    result = answer(request_, Settings(home=str(REFERENCE / "flexbe_synthesis")))
    assert result.code == Code.SUCCESS, result.messages
    assert len(result.states) == count
    mission = mission_of(request_, REFERENCE / "flexbe_synthesis")
    check_records(result.states, chain.run(mission).realization.machine)


@pytest.mark.parametrize("options", [
    "{encoding: enumerated}", "{liveness: fair-outcome}", "{pending: false}",
    "{encoding: enumerated, liveness: fair-outcome, pending: false}"])
@pytest.mark.parametrize("system", ["vending_extended", "coffee_extended"])
def test_records_describe_the_machine_in_every_configuration(system, options):
    """Shipped catalogs by name, every encoding/liveness/pending: the records are the realized
    machine's, whatever its shape (failure outcomes, operator autonomy levels); a configuration
    the audit refuses gets its defect, never states."""
    base = VENDING if system.startswith("vending") else COFFEE
    request = dataclasses.replace(base, system_name=system, synthesis_options=options)
    result = answer(request, Settings())
    if (system, options) == ("vending_extended", "{liveness: fair-outcome}"):
        # Fair-Outcome + pending lets the vending robot loop without failing (nominal livelock):
        # the audit refuses it, and the answer names the defect instead of sending states.
        assert result.code == Code.AUTOMATON_INVALID, result.messages
        assert result.states == []
        assert "audit FAIL: NOMINAL_LIVELOCK" in result.messages
        return
    assert result.code == Code.SUCCESS, result.messages
    check_records(result.states, chain.run(mission_of(request, None)).realization.machine)


def test_outcome_pseudo_states_can_be_left_out(home):
    result = answer(VENDING, Settings(home=str(home), outcome_states=False))
    assert [s.state_class for s in result.states].count(OUTCOME) == 0
    check_records(result.states, chain.run(mission_of(VENDING, home)).realization.machine,
                  outcome_states=False)


def test_instantiations_alias_clashing_class_names():
    from support.realize_cases import vending_catalog, vending_reduced_onehot

    from bdi_supervisor.realize.machine import build_machine

    machine = build_machine(vending_reduced_onehot(), vending_catalog())
    first = machine.states[0]
    machine.states[0] = dataclasses.replace(first, interface_module="my_states.log_state")
    classes = [s.state_class for s in instantiations(machine)[1:len(machine.states) + 1]]
    assert classes[0] == "my_states__LogState" and "flexbe_states__LogState" in classes


def test_a_run_folder_is_written_when_asked(home, tmp_path):
    result = answer(VENDING, Settings(home=str(home), out_dir=str(tmp_path / "out")))
    folder = tmp_path / "out" / "VendingDemoSM" / "one-hot-SP"
    assert result.messages[-1] == f"run folder: {folder}"
    assert (folder / "audit_reduced.json").is_file()
    assert (folder / "behavior" / "package.xml").is_file()


# ---------------------------------------------------------------- failures


def test_unrealizable_gives_the_explanation_core_in_mission_terms(home):
    result = answer(COFFEE_IMPOSSIBLE, Settings(home=str(home)))
    assert result.code == Code.SPEC_UNSYNTHESIZABLE and result.states == []
    mission = mission_of(COFFEE_IMPOSSIBLE, home)
    explanation = explain_mission(mission).explanation  # the oracle
    assert explanation.status == Realizability.UNREALIZABLE
    core = [m for m in result.messages if m.startswith("core: ")]
    assert core == [f"core: {n.description}: {n.formula}"
                    + (f" [{n.where()}]" if n.where() else "") for n in explanation.core]
    assert any(line.endswith("[goal]") for line in core)  # the request's own rule
    assert result.messages[0].startswith("unrealizable: ")


def test_unrealizable_without_explanation(home):
    request = dataclasses.replace(COFFEE_IMPOSSIBLE, synthesis_options="explain: false")
    result = answer(request, Settings(home=str(home)))
    assert result.code == Code.SPEC_UNSYNTHESIZABLE
    assert not [m for m in result.messages if m.startswith("core")]


def test_a_failed_audit_names_the_defect_kinds(home):
    """A realizable request whose strategy retries the button more often than its catalog
    allows: the audit's verdict on the same strategy, synthesized independently, is the
    oracle."""
    result = answer(COFFEE_BOUNDED, Settings(home=str(home)))
    mission = mission_of(COFFEE_BOUNDED, home)
    spec = generate_spec(mission)
    strategy = synthesize(spec, dataclasses.replace(mission.synthesis, order="as-written"))
    audit = audit_mission(strategy.strategy, mission, spec).raw_audit
    assert audit.verdict == AuditVerdict.FAIL
    assert audit.defect_kinds == ["BOUNDED_FAILURE_VIOLATION"]
    assert result.code == Code.AUTOMATON_INVALID and result.states == []
    assert result.messages[0] == "audit FAIL: " + ", ".join(sorted(set(audit.defect_kinds)))
    for defect in audit.defects:
        assert f"{defect.kind}: {defect.message}" in result.messages


def test_a_spent_time_budget_is_the_references_timeout_code():
    request = dataclasses.replace(QUADCOPTER, synthesis_timeout_s=0.5)
    result = answer(request, Settings())
    assert result.code == Code.SYNTHESIS_FAILED and result.states == []
    assert result.messages[0].startswith("synthesis stopped: the time budget of 0.5 s ran out")
    assert "synthesis_timeout_s" in result.messages[0]


def test_not_well_separated_fails_when_asked():
    """The quadcopter's one-hot Fair-Outcome + pending spec is not well-separated."""
    request = dataclasses.replace(QUADCOPTER, synthesis_timeout_s=120.0, synthesis_options=(
        "{encoding: one-hot, liveness: fair-outcome, pending: true, "
        "fail_on_non_well_separated: true}"))
    result = answer(request, Settings())
    assert result.code == Code.SYNTHESIS_FAILED
    assert result.messages == ["well-separation: NON_WELL_SEPARATED (P-all/E-just)"]


@pytest.mark.parametrize("request_, code", [
    (SynthesisRequest(system_name=""), Code.INVALID_REQUEST),
    (dataclasses.replace(VENDING, goals=("sodaa",)), Code.INVALID_REQUEST),
    (dataclasses.replace(VENDING, synthesis_options="encoding: 3"), Code.INVALID_REQUEST),
    (dataclasses.replace(VENDING, system_name="nosuch"), Code.NO_SYSTEM_CONFIG),
    (dataclasses.replace(VENDING, specification_file_name="x.yaml"), Code.INVALID_REQUEST),
], ids=["no-system", "unknown-name", "bad-option", "no-such-system", "no-such-spec"])
def test_bad_requests_get_their_code_and_one_message(home, request_, code):
    result = answer(request_, Settings(home=str(home)))
    assert (result.code, result.states, len(result.messages)) == (code, [], 1), result


def test_a_seed_spec_that_does_not_fit_the_catalog(home):
    spec = home / "vending_demo" / "specs" / "vending_demo_capabilities_spec.yaml"
    spec.write_text('specs:\n  OUTPUT: ["item:0...5"]\n')
    result = answer(VENDING, Settings(home=str(home)))
    assert result.code == Code.SPEC_COMPILATION_FAILED and "item:0...5" in result.messages[0]
    spec.write_text('specs:\n  SYS_TRANS: ["nothing_known"]\n')
    result = answer(VENDING, Settings(home=str(home)))
    assert result.code == Code.SPEC_COMPILATION_FAILED
    assert "nothing_known" in result.messages[0]


def test_the_enumerated_encoding_accepts_the_seeds_one_hot_activation(home):
    request = dataclasses.replace(VENDING, synthesis_options="encoding: enumerated")
    result = answer(request, Settings(home=str(home)))
    assert result.code == Code.SUCCESS, result.messages
    assert len(result.states) == 6


@pytest.mark.parametrize("request_, why", [
    (dataclasses.replace(COFFEE, goals=()), "no goal given"),
    (dataclasses.replace(VENDING, synthesis_options="audit: {time_budget_s: 0}"),
     "time budget"),
], ids=["no-goal", "no-time"])
def test_an_audit_that_cannot_finish_is_audit_incomplete(home, request_, why):
    result = answer(request_, Settings(home=str(home)))
    assert result.code == Code.AUDIT_INCOMPLETE and result.states == []
    assert result.messages[0] == "audit INCOMPLETE"
    assert result.messages[1].startswith("audit incomplete: ") and why in result.messages[1]


def test_bad_audit_options_are_an_invalid_request(home):
    request = dataclasses.replace(VENDING, synthesis_options="audit: {livelock: sometimes}")
    result = answer(request, Settings(home=str(home)))
    assert result.code == Code.INVALID_REQUEST
    assert result.messages[0].startswith("synthesis_options, key 'audit.livelock'")
