"""Input size and shape limits: every oversized, overnested, alias-bombed,
non-UTF-8 or special input ends with a clear error naming the file, exit 2, no traceback, fast."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from support.cli_harness import run_cli
from support.paths import ROOT

from bdi_supervisor import limits
from bdi_supervisor.errors import InputError
from bdi_supervisor.yamlsource import parse_json, parse_yaml, read_lines

MISSIONS = ROOT / "config" / "missions"
CATALOGS = ROOT / "config" / "catalogs"
CTL_MODEL = ROOT / "config" / "ctl" / "beer.yaml"

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))


def bad_input(outcome, name: str, *words: str) -> None:
    """Exit 2, no traceback, the message names the file (and says ``words``)."""
    assert not outcome.traceback, outcome.crash or outcome.err
    assert outcome.code == 2, (outcome.code, outcome.err)
    assert name in outcome.err, outcome.err
    for word in words:
        assert word in outcome.err, outcome.err
    assert len(outcome.err) < 2000, "the message quotes too much of the input"


def vending_copy(folder: Path, catalog_text: str | None = None,
                 mission_text: str | None = None) -> Path:
    """The vending mission and catalog side by side in ``folder`` (either text replaced)."""
    folder.mkdir(parents=True, exist_ok=True)
    catalog = folder / "catalog.yaml"
    catalog.write_text(catalog_text if catalog_text is not None
                       else (CATALOGS / "vending.yaml").read_text())
    mission = folder / "mission.yaml"
    mission.write_text(mission_text if mission_text is not None else
                       (MISSIONS / "vending.yaml").read_text().replace(
                           "../catalogs/vending.yaml", "catalog.yaml"))
    return mission


# ------------------------------------------------------------------ YAML alias expansion


def test_billion_laughs_is_one_kilobyte():
    assert len(LAUGHS) < 1024


@pytest.mark.parametrize("kind", ["catalog", "mission", "ctl_model", "sweep"])
def test_billion_laughs_fails_fast(tmp_path, kind):
    started = time.perf_counter()
    if kind == "catalog":
        mission = vending_copy(tmp_path, catalog_text=LAUGHS)
        outcome = run_cli("supervisor", ["spec", mission])
        name = "catalog.yaml"
    else:
        path = tmp_path / "laughs.yaml"
        path.write_text(LAUGHS)
        name = "laughs.yaml"
        if kind == "mission":
            outcome = run_cli("supervisor", ["synthesize", path, "--out", tmp_path / "out"])
        elif kind == "ctl_model":
            outcome = run_cli("monitor", ["check", path, "a"])
        else:
            outcome = run_cli("supervisor", ["sweep", path, "--out", tmp_path / "out"])
    bad_input(outcome, name, "aliases expand")
    assert time.perf_counter() - started < 5
    assert not (tmp_path / "out").exists()


def test_alias_limit_can_be_raised(monkeypatch):
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: [" + ", ".join(["*a"] * 50) + "]\n"
    monkeypatch.setenv(limits.ALIAS_NODES_ENV, "100")
    with pytest.raises(InputError, match="aliases expand"):
        parse_yaml(text, "f.yaml")
    monkeypatch.setenv(limits.ALIAS_NODES_ENV, "1000")
    assert len(parse_yaml(text, "f.yaml").data["b"]) == 50


def test_merge_keys_still_work():
    doc = parse_yaml("base: &b {x: 1, y: 2}\nuse: {<<: *b, z: 3}\n")
    assert doc.data["use"] == {"x": 1, "y": 2, "z": 3}


def test_recursive_alias_is_an_error():
    with pytest.raises(InputError, match="recursive alias") as caught:
        parse_yaml("a: &a [1, *a]\n", "r.yaml")
    assert caught.value.line == 1


# ------------------------------------------------------------------ nesting depth


def _deep_yaml(depth: int, style: str) -> str:
    if style == "flow":
        return "catalog: " + "[" * depth + "]" * depth + "\n"
    return "".join("  " * i + "k:\n" for i in range(depth)) + "  " * depth + "v\n"


@pytest.mark.parametrize("depth", [300, 100_000])
@pytest.mark.parametrize("style", ["flow", "block"])
def test_deep_yaml_is_a_positioned_error(tmp_path, depth, style):
    path = tmp_path / "deep.yaml"
    path.write_text(_deep_yaml(depth if style == "flow" else min(depth, 3000), style))
    outcome = run_cli("supervisor", ["spec", path])
    bad_input(outcome, "deep.yaml", "nested deeper", "line")


def test_yaml_at_the_depth_limit_still_loads():
    text = "k: " + "[" * (limits.MAX_DATA_DEPTH - 1) + "]" * (limits.MAX_DATA_DEPTH - 1) + "\n"
    assert parse_yaml(text).data["k"] is not None


@pytest.mark.parametrize("depth", [300, 100_000])
def test_deep_json_strategy_is_a_positioned_error(tmp_path, depth):
    path = tmp_path / "strategy.json"
    path.write_text('{"states": ' + "[" * depth + "]" * depth + "}")
    outcome = run_cli("supervisor", ["realize", path, "--mission", MISSIONS / "vending.yaml",
                                     "--out", tmp_path / "out"])
    bad_input(outcome, "strategy.json", "nested deeper", "column")
    assert not (tmp_path / "out").exists()


def test_json_depth_position():
    with pytest.raises(InputError) as caught:
        parse_json('{"a":\n  ' + "[" * 200 + "]" * 200 + "}", "x.json")
    assert (caught.value.line, caught.value.column) == (2, 3 + limits.MAX_DATA_DEPTH - 1)


@pytest.mark.parametrize("depth", [300, 100_000])
@pytest.mark.parametrize("shape", ["parentheses", "negations", "chain"])
def test_deep_structuredslugs_formula(tmp_path, depth, shape):
    body = {"parentheses": "(" * depth + "a" + ")" * depth, "negations": "!" * depth + "a",
            "chain": " -> ".join(["a"] * depth)}[shape]
    path = tmp_path / "deep.structuredslugs"
    path.write_text(f"[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n{body}\n")
    outcome = run_cli("supervisor", ["solve", path])
    bad_input(outcome, "deep.structuredslugs", "nested deeper", "line 8, column")


@pytest.mark.parametrize("depth", [300, 100_000])
def test_deep_slugsin_formula(tmp_path, depth):
    path = tmp_path / "deep.slugsin"
    path.write_text("[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n" + "! " * depth + "b'\n")
    outcome = run_cli("supervisor", ["solve", path])
    bad_input(outcome, "deep.slugsin", "nested deeper", "line 8, column")


def test_long_flat_slugsin_clause_is_fine(tmp_path):
    """slugsin nests ``& a & b …`` as deep as a clause is long: flattened, it is shallow."""
    path = tmp_path / "wide.slugsin"
    path.write_text("[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n" + "| a " * 20_000 + "b'\n")
    outcome = run_cli("supervisor", ["solve", path, "--json"])
    assert outcome.code == 0, outcome.err


def test_slugsin_buffer_bomb(tmp_path):
    path = tmp_path / "bomb.slugsin"
    body = "$ 60 b " + " ".join(f"^ ? {i} ? {i}" for i in range(59))
    path.write_text(f"[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n{body}\n")
    bad_input(run_cli("supervisor", ["solve", path]), "bomb.slugsin", "expand")


@pytest.mark.parametrize("depth", [300, 100_000])
def test_deep_mission_formula(tmp_path, depth):
    text = (MISSIONS / "vending.yaml").read_text().replace(
        "../catalogs/vending.yaml", str(CATALOGS / "vending.yaml")).replace(
        "goals: [soda]", "goals: ['" + "(" * depth + "soda" + ")" * depth + "']")
    mission = tmp_path / "deep_goal.yaml"
    mission.write_text(text)
    bad_input(run_cli("supervisor", ["spec", mission]), "deep_goal.yaml", "nested deeper")


def test_deep_catalog_formula(tmp_path):
    text = (CATALOGS / "vending.yaml").read_text().replace(
        'preconditions: ["!prep_pay"]', "preconditions: ['" + "!" * 300 + "prep_pay']")
    mission = vending_copy(tmp_path, catalog_text=text)
    bad_input(run_cli("supervisor", ["spec", mission]), "catalog.yaml", "nested deeper")


@pytest.mark.parametrize("depth", [300, 100_000])
@pytest.mark.parametrize("shape", ["parentheses", "operators", "conjunction"])
def test_deep_ctl_property(depth, shape):
    prop = {"parentheses": "(" * depth + "br" + ")" * depth, "operators": "AG " * depth + "br",
            "conjunction": " & ".join(["br"] * depth)}[shape]
    outcome = run_cli("monitor", ["check", CTL_MODEL, prop])
    assert outcome.code == 2 and not outcome.traceback, outcome.err
    assert "nested deeper" in outcome.err and "column" in outcome.err
    assert len(outcome.err) < 2000


def test_ctl_property_at_the_limit_is_checked():
    depth = limits.MAX_FORMULA_DEPTH - 1
    for prop in ("!" * depth + "br", " & ".join(["br"] * depth), "AG " * depth + "br"):
        outcome = run_cli("monitor", ["check", CTL_MODEL, prop, "--json"])
        assert outcome.code in (0, 1) and not outcome.traceback, outcome.err


def test_formula_at_the_limit_is_synthesized(tmp_path):
    """A formula just under the depth limit goes through every stage that walks it."""
    depth = limits.MAX_FORMULA_DEPTH - 1
    path = tmp_path / "limit.structuredslugs"
    body = "(" + "!" * (depth - 3) + "b'" + ")" + " | a"
    path.write_text(f"[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n{body}\n")
    outcome = run_cli("supervisor", ["solve", path, "--json"])
    assert outcome.code == 0, outcome.err
    assert run_cli("supervisor", ["solve", path, "--json", "--check-separation"]).code == 0


# ------------------------------------------------------------------ sizes, encodings, kinds


def test_size_limit_and_how_to_raise_it(tmp_path, monkeypatch):
    mission = vending_copy(tmp_path)
    monkeypatch.setenv(limits.INPUT_SIZE_ENV, "200")
    outcome = run_cli("supervisor", ["spec", mission])
    bad_input(outcome, "mission.yaml", "input limit", "--max-input-size")
    assert run_cli("supervisor", ["--max-input-size", "1M", "spec", mission]).code == 0
    monkeypatch.setenv(limits.INPUT_SIZE_ENV, "1M")
    assert run_cli("supervisor", ["spec", mission]).code == 0
    outcome = run_cli("supervisor", ["--max-input-size", "100", "spec", mission])
    bad_input(outcome, "mission.yaml", "input limit")
    monkeypatch.setenv(limits.INPUT_SIZE_ENV, "lots")
    bad_input(run_cli("supervisor", ["spec", mission]), limits.INPUT_SIZE_ENV)


def test_bad_size_option_is_a_usage_error(tmp_path):
    outcome = run_cli("supervisor", ["--max-input-size", "-5", "spec", "x.yaml"])
    assert outcome.code == 2 and not outcome.traceback


@pytest.mark.parametrize("which", ["mission", "catalog", "spec", "ctl_model", "strategy"])
def test_non_utf8_file_names_the_file(tmp_path, which):
    junk = "name: caf\xe9\n".encode("latin-1")
    if which == "catalog":
        mission = vending_copy(tmp_path)
        (tmp_path / "catalog.yaml").write_bytes((CATALOGS / "vending.yaml").read_bytes() + junk)
        bad_input(run_cli("supervisor", ["spec", mission]), "catalog.yaml", "UTF-8", "line")
        return
    path = tmp_path / {"mission": "m.yaml", "spec": "s.structuredslugs", "ctl_model": "c.yaml",
                       "strategy": "s.json"}[which]
    path.write_bytes(junk)
    argv = {"mission": ["spec", path], "spec": ["solve", path],
            "strategy": ["realize", path, "--mission", MISSIONS / "vending.yaml",
                         "--out", tmp_path / "out"]}.get(which)
    outcome = run_cli("monitor", ["check", path, "a"]) if argv is None else \
        run_cli("supervisor", argv)
    bad_input(outcome, path.name, "UTF-8", "line 1, column 10")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_input_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "mission.yaml"
    os.mkfifo(fifo)
    bad_input(run_cli("supervisor", ["spec", fifo]), "mission.yaml", "not a regular file")
    catalog_fifo = tmp_path / "c" / "catalog.yaml"
    mission = vending_copy(tmp_path / "c")
    catalog_fifo.unlink()
    os.mkfifo(catalog_fifo)
    outcome = run_cli("supervisor", ["spec", mission])
    assert outcome.code == 2 and not outcome.traceback


def test_folder_as_input(tmp_path):
    bad_input(run_cli("monitor", ["check", tmp_path, "a"]), str(tmp_path), "folder")


def test_long_catalog_value_is_quoted_short(tmp_path):
    mission = vending_copy(tmp_path)
    text = mission.read_text().replace("catalog.yaml", "x" * 20_000 + ".yaml")
    mission.write_text(text)
    outcome = run_cli("supervisor", ["spec", mission])
    bad_input(outcome, "mission.yaml", "characters")
    assert len(outcome.err) < 700


def test_long_formula_is_quoted_short(tmp_path):
    path = tmp_path / "long.structuredslugs"
    path.write_text("[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n" + "a & " * 5000 + "&\n")
    outcome = run_cli("supervisor", ["solve", path])
    bad_input(outcome, "long.structuredslugs", "characters")
    assert len(outcome.err) < 700


def test_read_lines_streams_and_skips_overlong_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 5000 + b"\n" + b'{"b": 2}')
    lines = list(read_lines(path, max_line=100))
    assert [n for n, _ in lines] == [1, 2, 3]
    assert lines[1][1] is None and json.loads(lines[2][1]) == {"b": 2}


def test_shipped_inputs_are_within_the_limits():
    """Every shipped YAML input loads (the limits leave real inputs alone)."""
    for path in sorted((ROOT / "config").rglob("*.yaml")):
        if path.parent.name in ("catalogs", "missions", "sweeps", "ctl", "worlds"):
            from bdi_supervisor.yamlsource import load_yaml

            load_yaml(path)


def test_catalog_that_is_plain_text_is_quoted_short(tmp_path):
    """A ``catalog:`` naming a text file used to print the whole file in the error."""
    mission = vending_copy(tmp_path, catalog_text="just some words " * 2000)
    outcome = run_cli("supervisor", ["spec", mission])
    bad_input(outcome, "catalog.yaml", "characters")
    assert len(outcome.err) < 500


def test_sweep_results_skip_a_deep_line(tmp_path):
    from bdi_supervisor.sweep.store import read_rows

    path = tmp_path / "results.jsonl"
    path.write_text('{"key": "a"}\n' + "[" * 100_000 + "]" * 100_000 + '\n{"key": "b"}\n')
    assert [row["key"] for row in read_rows(path)] == ["a", "b"]


@pytest.mark.parametrize("tagged", ["!mytag w1", "!!python/name:os.system w1", "!!binary aGk=",
                                    "!!set {w1}"])
def test_ctl_model_with_a_yaml_tag_is_refused(tmp_path, tagged):
    """Tags of any kind are refused with their line, for CTL models as for every input."""
    model = tmp_path / "model.yaml"
    model.write_text(CTL_MODEL.read_text().replace("actual_world: w1", f"actual_world: {tagged}"))
    outcome = run_cli("monitor", ["check", model, "AG(bel br -> EF bb)"])
    bad_input(outcome, "model.yaml", "line 8", "YAML tag", "is not accepted")


@pytest.mark.parametrize("tag", ["!!python/object/apply:os.system", "!list", "!!omap"])
def test_tag_on_a_collection_is_refused(tmp_path, tag):
    """A tag on a list or mapping used to be dropped silently (the collection was kept)."""
    text = (MISSIONS / "vending.yaml").read_text().replace("goals:", f"goals: {tag}", 1)
    mission = vending_copy(tmp_path, mission_text=text.replace("../catalogs/vending.yaml",
                                                               "catalog.yaml"))
    outcome = run_cli("supervisor", ["spec", mission])
    bad_input(outcome, "mission.yaml", "line 7", "YAML tag", tag)


def test_plain_tags_still_load():
    doc = parse_yaml("a: !!str 5\nb: !!int '7'\nc: {<<: {d: 1}}\n")
    assert doc.data == {"a": "5", "b": 7, "c": {"d": 1}}
