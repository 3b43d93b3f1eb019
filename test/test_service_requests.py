"""Synthesis requests before the pipeline runs: ``synthesis_options``, the request's own fields,
finding a system (the reference's folder layout, shipped catalogs), the mission a request
becomes (seed spec formulas, time budget). Plain Python, no ROS."""

from __future__ import annotations

import math
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.paths import CATALOGS
from support.reference_data import REFERENCE, needs_reference

from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.service.codes import Code, Refusal
from bdi_supervisor.service.mission import REQUEST_FILE, build_mission, load_seed
from bdi_supervisor.service.request import (
    ServiceOptions,
    SynthesisRequest,
    check_request,
    mission_name,
    parse_options,
    time_budget,
)
from bdi_supervisor.service.systems import resolve_system
from bdi_supervisor.spec.formula import variables

SEED = """spec_name: "vending_demo"
specs:
    OUTPUT:
      - "prep_pay_a"
      - "item:0...3"
    SYS_INIT:
      - "prep_pay_a"
      - "item=0"
"""


def refused(call, *args, **kwargs) -> Refusal:
    with pytest.raises(Refusal) as caught:
        call(*args, **kwargs)
    return caught.value


@pytest.fixture
def home(tmp_path):
    """A synthesis home laid out as the reference's examples, from the shipped catalogs."""
    vending = tmp_path / "vending_demo"
    (vending / "capabilities").mkdir(parents=True)
    (vending / "specs").mkdir()
    shutil.copy(CATALOGS / "vending.yaml", vending / "capabilities" / "vending_capabilities.yaml")
    shutil.copy(CATALOGS / "vending_extended.yaml",
                vending / "capabilities" / "vending_capabilities_extended.yaml")
    (vending / "specs" / "vending_demo_capabilities_spec.yaml").write_text(SEED)
    (vending / "specs" / "vending_demo_full_spec.yaml").write_text("spec_name: full\nspecs:\n")
    (tmp_path / "common" / "pipelines").mkdir(parents=True)
    return tmp_path


# ---------------------------------------------------------------- synthesis_options


def test_options_set_synthesis_fields_and_the_service_keys():
    options = parse_options("encoding: enumerated\nliveness: fair-outcome\npending: false\n"
                            "time_budget_s: 2.5\nnode_budget: 1000\ncapabilities: x.yaml\n"
                            "explain: false\nfail_on_non_well_separated: true\n")
    assert options.overrides == {"encoding": "enumerated", "liveness": "fair-outcome",
                                 "pending": False, "time_budget": 2.5, "node_budget": 1000}
    assert (options.capabilities, options.explain, options.fail_on_non_well_separated) == (
        "x.yaml", False, True)
    assert parse_options("") == parse_options("  \n") == parse_options("{}") == ServiceOptions()
    assert parse_options("null") == ServiceOptions()


@pytest.mark.parametrize("text, where", [
    ("encodings: one-hot", "key 'encodings'"),
    ("encoding: two-hot", "key 'encoding'"),
    ("pending: maybe", "key 'pending'"),
    ("time_budget_s: -1", "key 'time_budget_s'"),
    ("node_budget: 1.5", "key 'node_budget'"),
    ("explain: 1", "key 'explain'"),
    ("capabilities: [a]", "key 'capabilities'"),
    ("[encoding]", "synthesis_options"),
    ("encoding: one-hot\nencoding: enumerated", "synthesis_options"),
    ("{unclosed", "synthesis_options"),
])
def test_bad_options_are_an_invalid_request_naming_the_key(text, where):
    refusal = refused(parse_options, text)
    assert refusal.code == Code.INVALID_REQUEST
    assert len(refusal.messages) == 1 and where in refusal.messages[0]
    assert refusal.messages[0].startswith("synthesis_options")


def test_an_unknown_option_lists_the_known_ones():
    message = refused(parse_options, "liveliness: s").messages[0]
    assert "unknown option" in message and "liveness" in message and "capabilities" in message


def test_overlong_options_are_refused_unread():
    assert refused(parse_options, "x" * 20_000).code == Code.INVALID_REQUEST


@given(st.dictionaries(st.sampled_from(["encoding", "liveness", "pending", "seed",
                                        "reordering", "time_budget_s", "declaration_order"]),
                       st.one_of(st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                                 st.sampled_from(["one-hot", "enumerated", "system-goal",
                                                  "fair-outcome", "random", "as-written"])),
                       max_size=4))
def test_options_either_validate_or_are_refused(values):
    """Whatever the values, the options are refused with INVALID_REQUEST or give synthesis
    options that validate (the oracle: ``SynthesisOptions.validate``)."""
    import yaml

    try:
        options = parse_options(yaml.safe_dump(values))
    except Refusal as refusal:
        assert refusal.code == Code.INVALID_REQUEST
        return
    import dataclasses

    synthesis = dataclasses.replace(SynthesisOptions(), **options.overrides)
    synthesis.validate()
    assert set(options.overrides) == {"time_budget" if k == "time_budget_s" else k
                                      for k in values}


# ---------------------------------------------------------------- the request's fields


@pytest.mark.parametrize("name", ["", "..", ".", "../vending", "a/b", "x" * 200, "-x", "a b"])
def test_system_names_are_one_path_component(name):
    refusal = refused(check_request, SynthesisRequest(system_name=name))
    assert refusal.code == Code.INVALID_REQUEST and "system_name" in refusal.messages[0]


@pytest.mark.parametrize("timeout", [-1.0, math.nan, math.inf])
def test_timeouts_must_be_finite_and_not_negative(timeout):
    refusal = refused(check_request, SynthesisRequest(system_name="v", synthesis_timeout_s=timeout))
    assert refusal.code == Code.INVALID_REQUEST and "synthesis_timeout_s" in refusal.messages[0]


def test_an_empty_outcome_name_is_refused():
    request = SynthesisRequest(system_name="v", sm_outcomes=("finished", " "))
    assert "sm_outcomes[1]" in refused(check_request, request).messages[0]


def test_the_request_timeout_wins_over_the_options_and_the_default():
    options = parse_options("time_budget_s: 5")
    assert time_budget(SynthesisRequest(synthesis_timeout_s=60.0), options, 900.0) == 60.0
    assert time_budget(SynthesisRequest(), options, 900.0) == 5
    assert time_budget(SynthesisRequest(), ServiceOptions(), 900.0) == 900.0
    assert time_budget(SynthesisRequest(), ServiceOptions(), None) is None


@given(st.text(max_size=40), st.text(max_size=20))
def test_mission_names_are_identifiers(spec_name, system_name):
    name = mission_name(SynthesisRequest(spec_name=spec_name, system_name=system_name))
    assert name.isidentifier() and name.isascii() and len(name) <= 66


def test_mission_name_from_the_webui_container_path():
    assert mission_name(SynthesisRequest(spec_name="/Main/Synthesized SM")) == "Synthesized_SM"
    assert mission_name(SynthesisRequest(spec_name="", system_name="vending_demo")) == \
        "vending_demo"


# ---------------------------------------------------------------- systems


def test_the_reference_layout_picks_the_capabilities_file_and_the_seed_spec(home):
    system = resolve_system("vending_demo", home)
    assert system.catalog.name == "vending_capabilities.yaml"
    assert system.seed_spec.name == "vending_demo_capabilities_spec.yaml"
    extended = resolve_system("vending_demo", home, capabilities="vending_capabilities_extended")
    assert extended.catalog.name == "vending_capabilities_extended.yaml"
    full = resolve_system("vending_demo", home, spec_file="vending_demo_full_spec.yaml")
    assert full.seed_spec.name == "vending_demo_full_spec.yaml"


@needs_reference
@pytest.mark.parametrize("system, catalog, seed", [
    ("vending_demo", "vending_capabilities.yaml", "vending_demo_capabilities_spec.yaml"),
    ("coffee_maker", "coffee_capabilities.yaml", "coffee_demo_capabilities_spec.yaml"),
    ("hello_world", "hello_world_capabilities.yaml", None),
])
def test_the_reference_examples_folder_works_unchanged(system, catalog, seed):
    found = resolve_system(system, REFERENCE / "flexbe_synthesis")
    assert found.catalog.name == catalog
    assert (found.seed_spec.name if found.seed_spec else None) == seed


def test_missing_systems_and_files(home):
    refusal = refused(resolve_system, "nosuch", home)
    assert refusal.code == Code.NO_SYSTEM_CONFIG
    assert str(home / "nosuch") in refusal.messages[0] and "vending_extended" in \
        refusal.messages[0]
    assert refused(resolve_system, "common", home).code == Code.SYSTEM_CONFIG_NOT_FOUND
    refusal = refused(resolve_system, "vending_demo", home, capabilities="nope.yaml")
    assert refusal.code == Code.SYSTEM_CONFIG_NOT_FOUND
    assert "vending_capabilities.yaml" in refusal.messages[0]  # the files there
    assert refused(resolve_system, "vending_demo", home, spec_file="nope").code == \
        Code.INVALID_REQUEST
    for name in ("../vending_demo/capabilities/x.yaml", "..", "/etc/passwd"):
        assert refused(resolve_system, "vending_demo", home, capabilities=name).code == \
            Code.INVALID_REQUEST


def test_several_capability_files_without_a_marked_one_must_be_chosen(home):
    (home / "vending_demo" / "capabilities" / "vending_capabilities.yaml").rename(
        home / "vending_demo" / "capabilities" / "base.yaml")
    refusal = refused(resolve_system, "vending_demo", home)
    assert refusal.code == Code.SYSTEM_CONFIG_NOT_FOUND and "capabilities: FILE" in \
        refusal.messages[0]


def test_shipped_catalogs_by_name(home):
    assert resolve_system("coffee_extended", home).catalog == CATALOGS / "coffee_extended.yaml"
    assert resolve_system("two_rivers", None).catalog == CATALOGS / "two_rivers.yaml"
    assert refused(resolve_system, "vending", home, capabilities="x").code == \
        Code.INVALID_REQUEST


# ---------------------------------------------------------------- the mission


def test_the_seed_spec_gives_default_initial_conditions_the_request_replaces(home):
    system = resolve_system("vending_demo", home)
    request = SynthesisRequest(initial_conditions=("prep_pay_a",), goals=("soda",),
                               sm_outcomes=("finished",), system_name="vending_demo",
                               spec_name="VendingDemoSM")
    mission = build_mission(system, request, ServiceOptions(), load_seed(system), 900.0)
    texts = [item.text for item in mission.request.initial_conditions]
    assert texts == ["prep_pay_a", "item = 0"]  # the seed's prep_pay_a is the request's
    assert mission.name == "VendingDemoSM" and mission.file == REQUEST_FILE
    assert mission.synthesis == SynthesisOptions(time_budget=900.0)
    assert mission.catalog.name == "vending_demo" and mission.constraints == {}
    other = build_mission(system, SynthesisRequest(initial_conditions=("item = 2",),
                                                   system_name="vending_demo"),
                          ServiceOptions(), load_seed(system))
    mentioned = [{v.name for v in variables(i.formula)} for i in other.request.initial_conditions]
    assert mentioned == [{"item"}, {"prep_pay_a"}]


def test_request_errors_name_the_goal_and_the_key(home):
    system = resolve_system("vending_demo", home)
    for request, key in [
        (SynthesisRequest(goals=("soda &",), system_name="v"), "request.goals[0]"),
        (SynthesisRequest(initial_conditions=("a", "(b"), system_name="v"),
         "request.initial_conditions[1]"),
        (SynthesisRequest(sm_outcomes=("failed",), system_name="v"), "request.sm_outcomes"),
        (SynthesisRequest(sm_outcomes=("finished", "finished"), system_name="v"),
         "request.sm_outcomes"),
        (SynthesisRequest(sm_outcomes=("fin ished",), system_name="v"), "request.sm_outcomes"),
    ]:
        refusal = refused(build_mission, system, request, ServiceOptions())
        assert refusal.code == Code.INVALID_REQUEST
        assert refusal.messages[0].startswith(f"{REQUEST_FILE}, key '{key}"), refusal.messages


def test_a_broken_catalog_or_seed_spec_has_its_own_code(home):
    folder = home / "vending_demo"
    (folder / "specs" / "vending_demo_capabilities_spec.yaml").write_text("specs: [1\n")
    assert refused(load_seed, resolve_system("vending_demo", home)).code == \
        Code.SPEC_COMPILATION_FAILED
    (folder / "capabilities" / "vending_capabilities.yaml").write_text("capabilities: 3\n")
    refusal = refused(build_mission, resolve_system("vending_demo", home),
                      SynthesisRequest(system_name="vending_demo"), ServiceOptions())
    assert refusal.code == Code.CONFIG_FILE_INVALID
    assert "vending_capabilities.yaml" in refusal.messages[0]
