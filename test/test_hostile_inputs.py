"""Hostile inputs, one family per section: each ends with one clean ``error:`` line (exit 2)
or a verdict, never a traceback, a hang or an overwritten input (docs/reliability.md,
"Hostile input")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli_harness import run_cli
from support.paths import CATALOGS, CTL_MODELS, MISSIONS

from bdi_supervisor import limits
from bdi_supervisor.errors import InputError
from bdi_supervisor.yamlsource import parse_json, parse_yaml

LONG = "9" * (limits.MAX_INT_DIGITS + 1)


def bad_input(outcome, *words: str) -> None:
    """Exit 2, no traceback, one short message saying ``words`` (the file among them)."""
    assert not outcome.traceback, outcome.crash or outcome.err
    assert outcome.code == 2, (outcome.code, outcome.out[-500:], outcome.err)
    assert outcome.err.startswith("error: ") or "error: " in outcome.err, outcome.err
    for word in words:
        assert word in outcome.err, (word, outcome.err)
    assert len(outcome.err) < 2000, "the message quotes too much of the input"


def vending(folder: Path, mission_text: str | None = None,
            catalog_text: str | None = None) -> Path:
    """The vending mission and its catalog side by side in ``folder``, either text replaced."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.yaml").write_text(
        catalog_text if catalog_text is not None else (CATALOGS / "vending.yaml").read_text())
    mission = folder / "mission.yaml"
    mission.write_text(mission_text if mission_text is not None else
                       (MISSIONS / "vending.yaml").read_text().replace(
                           "../catalogs/vending.yaml", "catalog.yaml"))
    return mission


# ------------------------------------------------------------------ integers beyond 4,300 digits


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=8), st.from_regex(r"\A-?[0-9]{1,30}\Z"),
                 st.integers(limits.MAX_INT_DIGITS - 2, limits.MAX_INT_DIGITS + 2).map(
                     lambda n: "7" * n)))
def test_numeral_reads_ascii_decimals_within_the_limit(text):
    """Oracle: a numeral is ``-``? and 1 to MAX_INT_DIGITS ASCII digits, read as ``int``."""
    digits = text.removeprefix("-")
    valid = (0 < len(digits) <= limits.MAX_INT_DIGITS and digits.isascii()
             and digits.isdigit())
    if valid:
        assert limits.numeral(text) == int(text)
    else:
        with pytest.raises(ValueError):
            limits.numeral(text)


@settings(max_examples=60, deadline=None)
@given(digits=st.integers(1, limits.MAX_INT_DIGITS + 50), negative=st.booleans(),
       indent=st.integers(0, 6), json_text=st.booleans())
def test_yaml_and_json_numbers_up_to_the_limit(digits, negative, indent, json_text):
    """A number of up to MAX_INT_DIGITS digits reads as itself; a longer one is an error at
    its line and column, in YAML and in JSON alike."""
    number = ("-" if negative else "") + "1" + "0" * (digits - 1)
    text = (f'{{"k": [\n{" " * indent}{number}]}}' if json_text
            else f"k:\n{' ' * indent}- {number}\n")
    read = (lambda: parse_json(text, "f.json")) if json_text else \
        (lambda: parse_yaml(text, "f.yaml").data)
    if digits <= limits.MAX_INT_DIGITS:
        assert read() == {"k": [int(number)]}
        return
    with pytest.raises(InputError) as caught:
        read()
    assert caught.value.line == 2
    assert caught.value.column == indent + (1 if json_text else 3) + (
        1 if negative and json_text else 0)


@pytest.mark.parametrize("form", ["0x" + "f" * 4000, "0b" + "1" * 20000,
                                  ":".join(["1"] * 6000), "0" + "7" * 5000])
def test_yaml_number_forms_that_build_a_huge_integer(form):
    with pytest.raises(InputError, match="more than 4,300 digits") as caught:
        parse_yaml(f"a: 1\nb: {form}\n", "f.yaml")
    assert (caught.value.line, caught.value.column) == (2, 4)


def _reader_cases(tmp: Path) -> dict[str, tuple[str, list, str]]:
    """Every reader of integers, each given a number one digit too long: (tool, argv, the
    file or option the error must name)."""
    spec = tmp / "s.structuredslugs"
    spec.write_text(f"[INPUT]\na\n\n[OUTPUT]\nx:0...{LONG}\n")
    term = tmp / "t.structuredslugs"
    term.write_text(f"[INPUT]\na\n\n[OUTPUT]\nx:0...7\n\n[SYS_TRANS]\nx' = {LONG}\n")
    slugsin = tmp / "s.slugsin"
    slugsin.write_text(f"[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n$ {LONG} | a b\n")
    strategy = tmp / "strategy.json"
    strategy.write_text(f'{{"format": 1, "states": [{LONG}]}}')
    explanation = tmp / "explanation.json"
    explanation.write_text(f'{{"counter_run": {{"steps": {LONG}}}}}')
    mission_text = (MISSIONS / "vending.yaml").read_text().replace(
        "../catalogs/vending.yaml", "catalog.yaml")
    value = vending(tmp / "value", mission_text.replace("max_steps: 20", f"max_steps: {LONG}"))
    formula = vending(tmp / "formula", mission_text.replace("item = 0", f"item = {LONG}"))
    catalog = vending(tmp / "catalog", catalog_text=(CATALOGS / "vending.yaml").read_text()
                      + f"\nextra_number: {LONG}\n")
    model = tmp / "model.json"
    model.write_text(json.dumps({"name": "m", "directions": ["a"], "actual_world": "w",
                                 "worlds": {"w": {"initial": "s", "states": {"s": {
                                     "labels": [], "next": {"1": "s"}}}}}}).replace(
        '"1": "s"', f'"1": {LONG}'))
    sweep = tmp / "sweep.yaml"
    sweep.write_text(f"missions: [{MISSIONS / 'vending.yaml'}]\nseeds: [{LONG}]\n")
    out = tmp / "out"
    return {
        "structuredslugs range": ("supervisor", ["solve", spec], spec.name),
        "structuredslugs numeral": ("supervisor", ["solve", term], term.name),
        "slugsin buffer": ("supervisor", ["solve", slugsin], slugsin.name),
        "strategy JSON": ("supervisor", ["realize", strategy, "--mission", "vending",
                                         "--out", out], strategy.name),
        "explanation JSON": ("supervisor", ["run", "vending", "--from", explanation],
                             explanation.name),
        "mission value": ("supervisor", ["run", value], "mission.yaml"),
        "mission formula": ("supervisor", ["spec", formula], "mission.yaml"),
        "catalog value": ("supervisor", ["spec", catalog], "catalog.yaml"),
        "CTL model": ("monitor", ["check", model, "AG a"], model.name),
        "sweep seeds": ("supervisor", ["sweep", sweep, "--out", out], sweep.name),
        "forced outcome": ("supervisor", ["run", "vending", "--force", f"pay#{LONG}=completed"],
                           "--force"),
    }


def test_every_reader_refuses_a_number_too_long(tmp_path):
    for name, (tool, argv, where) in _reader_cases(tmp_path).items():
        outcome = run_cli(tool, argv)
        assert not outcome.traceback, (name, outcome.crash or outcome.err)
        bad_input(outcome, where)
        assert "line" in outcome.err or where == "--force", (name, outcome.err)


@pytest.mark.parametrize("text", ["$ ² | a b", "$ ٣ | a b", "$ -1 | a b", "$ 1_0 | a b"])
def test_slugsin_buffer_counts_are_ascii_numerals(tmp_path, text):
    spec = tmp_path / "s.slugsin"
    spec.write_text(f"[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n{text}\n")
    bad_input(run_cli("supervisor", ["solve", spec]), "s.slugsin", "line 8")


# ------------------------------------------------------------------ the input size limit


@pytest.mark.parametrize("size, accepted", [
    ("1", True), ("64M", True), ("8G", True), ("1T", True), ("1.5K", True),
    ("1025G", False), (str(2**63), False), ("9" * 400, False), ("0", False), ("-1", False),
    ("", False), ("1X", False)])
def test_size_option_range(size, accepted):
    if accepted:
        assert 1 <= limits.parse_size(size) <= limits.MAX_SIZE
    else:
        with pytest.raises(ValueError):
            limits.parse_size(size)


def test_a_large_limit_allocates_nothing(tmp_path):
    """Under an address-space limit 30 MiB above what the process uses, a file is read with
    an 8 GiB input limit (the reader used to allocate the whole limit)."""
    (tmp_path / "small.yaml").write_text("a: 1\n")
    script = textwrap.dedent("""
        import resource, sys
        from bdi_supervisor import limits, yamlsource
        size = next(int(line.split()[1]) * 1024 for line in open('/proc/self/status')
                    if line.startswith('VmSize'))
        limits.set_max_input_bytes(8 * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size + 30 * 2**20, resource.RLIM_INFINITY))
        print(yamlsource.read_text('small.yaml'), end='')
    """)
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to measure the process")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "a: 1\n"


def test_size_environment_variable_out_of_range(tmp_path, monkeypatch):
    monkeypatch.setenv(limits.INPUT_SIZE_ENV, "2000T")
    bad_input(run_cli("supervisor", ["spec", "vending"]), limits.INPUT_SIZE_ENV, "1 TiB")
    monkeypatch.delenv(limits.INPUT_SIZE_ENV)
    outcome = run_cli("supervisor", ["--max-input-size", str(2**63), "spec", "vending"])
    bad_input(outcome, "--max-input-size", "too large")


# ------------------------------------------------------------------ sweeps


def _sweep_file(folder: Path, body: str, missions: list[Path] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sweep.yaml"
    listed = ", ".join(str(m) for m in (missions or [MISSIONS / "vending.yaml"]))
    path.write_text(f"name: hostile\nmissions: [{listed}]\n{body}")
    return path


@settings(max_examples=40, deadline=None)
@given(seeds=st.integers(1, 400), pending=st.integers(1, 2), encodings=st.integers(1, 2),
       repeats=st.one_of(st.integers(1, 500), st.just(10**9), st.just(10**30)))
def test_sweep_grid_is_counted_before_it_is_built(tmp_path_factory, seeds, pending, encodings,
                                                  repeats):
    """Oracle: the product of the axes; more than MAX_SWEEP_TRIALS is an error giving the
    count, at once (a grid of 10**9 trials used to be built in memory)."""
    from bdi_supervisor.sweep.grid import load_sweep

    body = (f"seeds: {list(range(seeds))}\npending: {[True, False][:pending]}\n"
            f"encoding: {['one-hot', 'enumerated'][:encodings]}\nrepeats: {repeats}\n")
    path = _sweep_file(tmp_path_factory.mktemp("sweep"), body)
    count = seeds * pending * encodings * repeats
    if count <= limits.MAX_SWEEP_TRIALS:
        assert len(load_sweep(path).trials) == count
        return
    with pytest.raises(InputError) as caught:
        load_sweep(path)
    assert f"{count:,} trials" in caught.value.message
    assert f"{limits.MAX_SWEEP_TRIALS:,}" in caught.value.message


@pytest.mark.parametrize("body, key, word", [
    ("seeds: [0, 1, 0]\n", "seeds[2]", "seeds[0]"),
    ("encoding: [one-hot, one-hot]\n", "encoding[1]", "encoding[0]"),
    ("pending: [true, false, true]\n", "pending[2]", "pending[0]"),
    ("reordering: [true, {enabled: true}]\n", "reordering[1]", "reordering[0]"),
])
def test_a_repeated_axis_value_names_both(tmp_path, body, key, word):
    from bdi_supervisor.sweep.grid import load_sweep

    with pytest.raises(InputError, match="same trial twice") as caught:
        load_sweep(_sweep_file(tmp_path, body))
    assert caught.value.key == key and word in caught.value.found


def test_repeats_null_is_one_repeat(tmp_path):
    from bdi_supervisor.sweep.grid import load_sweep

    assert len(load_sweep(_sweep_file(tmp_path, "seeds: [0, 1]\nrepeats: null\n")).trials) == 2


def test_missions_with_one_file_name_name_both_files(tmp_path):
    first, second = tmp_path / "a" / "vending.yaml", tmp_path / "b" / "vending.yaml"
    for path in (first, second):
        path.parent.mkdir()
        path.write_text((MISSIONS / "vending.yaml").read_text().replace(
            "../catalogs/", f"{CATALOGS}/"))
    sweep = _sweep_file(tmp_path, "", [first, second])
    outcome = run_cli("supervisor", ["sweep", sweep, "--out", tmp_path / "out"])
    bad_input(outcome, "sweep.yaml", "missions[1]", "same file name", str(first), str(second))


def _row(key: object) -> dict:
    return {"key": key, "status": "OK", "mission": "vending.yaml", "config": "one-hot-SP"}


BAD_LINES = [json.dumps(_row(["a", "list"])), json.dumps(_row({"a": "dict"})),
             json.dumps(_row(7)), json.dumps(_row(None)), json.dumps({"status": "OK"}),
             json.dumps([_row("in a list")]), "not json", '{"key": "torn', "[" * 200 + "]" * 200,
             "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
             '{"key": ' + LONG + "}"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(BAD_LINES),
                          st.text("abcdef0123456789", min_size=1, max_size=6).map(
                              lambda k: json.dumps(_row(k)))), max_size=12))
def test_results_rows_without_a_text_key_are_skipped_and_counted(tmp_path_factory, lines):
    """Oracle: a line is a row when it is a JSON object whose ``key`` is a string."""
    from bdi_supervisor.sweep.store import ResultStore, read_results

    path = tmp_path_factory.mktemp("results") / "results.jsonl"
    path.write_bytes("".join(f"{line}\n" for line in lines).encode("utf-8", "surrogateescape"))
    expected = [line for line in lines if line not in BAD_LINES]
    found = read_results(path)
    assert [json.dumps(row) for row in found.rows] == expected
    assert found.skipped == len(lines) - len(expected)
    assert ResultStore(path).done == {row["key"] for row in found.rows}


def test_report_only_skips_bad_rows_and_refuses_no_results(tmp_path):
    from bdi_supervisor.sweep.grid import load_sweep

    sweep = _sweep_file(tmp_path, "seeds: [0, 1]\n")
    out = tmp_path / "out"
    outcome = run_cli("supervisor", ["sweep", sweep, "--out", out, "--report-only"])
    bad_input(outcome, "results.jsonl", "no results", "no results file")
    out.mkdir()
    (out / "results.jsonl").write_text("\n".join(BAD_LINES[:6]) + "\n")
    bad_input(run_cli("supervisor", ["sweep", sweep, "--out", out, "--report-only"]),
              "no results of sweep 'hostile'", "6 lines are no trial row")
    key = load_sweep(sweep).trials[0].key
    with (out / "results.jsonl").open("a") as handle:
        handle.write(json.dumps(_row(key)) + "\n")
    outcome = run_cli("supervisor", ["sweep", sweep, "--out", out, "--report-only"])
    assert outcome.code == 0 and not outcome.traceback, outcome.err
    assert "6 lines are no trial row" in outcome.err
    assert (out / "hostile.csv").read_text().count("\n") == 2  # the header and one row


def _sweep_process(folder: Path, argv: list, limit_files: int | None = None, env=None,
                   timeout: float = 240) -> subprocess.CompletedProcess:
    def prepare() -> None:
        import resource

        if limit_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit_files, limit_files))
    return subprocess.run([sys.executable, "-m", "bdi_supervisor", *map(str, argv)],
                          cwd=folder, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=prepare, env=env)


@pytest.mark.parametrize("files", [12, 20])
def test_too_few_open_files_is_one_line(tmp_path, files):
    sweep = _sweep_file(tmp_path, "seeds: [0, 1, 2]\n")
    done = _sweep_process(tmp_path, ["sweep", sweep, "--out", "out", "--workers", "2"],
                          limit_files=files)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: too few open files") and \
        done.stderr.count("\n") == 1, done.stderr


def test_a_pool_whose_manager_dies_ends_with_its_error():
    """The manager thread starts the workers; an error there (too many open files) used to
    leave the sweep waiting for ever."""
    import errno
    from concurrent.futures import ProcessPoolExecutor

    from bdi_supervisor.sweep.backends import LocalBackend

    original = ProcessPoolExecutor._adjust_process_count
    calls = []

    def failing(self):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(errno.EMFILE, "Too many open files")
        original(self)

    ProcessPoolExecutor._adjust_process_count = failing
    try:
        with pytest.raises(OSError) as caught:
            list(LocalBackend(1).map_unordered(_identity, [{"i": i} for i in range(4)]))
    finally:
        ProcessPoolExecutor._adjust_process_count = original
    assert caught.value.errno == errno.EMFILE


def _identity(item: dict) -> dict:
    return item


@pytest.mark.skipif(sys.version_info < (3, 11), reason="PYTHONSAFEPATH needs Python 3.11")
@pytest.mark.parametrize("module", ["threading", "signal"])
def test_sweep_helpers_never_import_from_the_working_folder(tmp_path, module):
    marker = tmp_path / "IMPORTED"
    (tmp_path / f"{module}.py").write_text(
        f"open({str(marker)!r}, 'a').write('x')\nraise SystemExit('shadowed')\n")
    sweep = _sweep_file(tmp_path, "seeds: [0, 1]\n")
    script = Path(sys.executable).parent / "bdi-supervisor"  # its own folder first on its path
    if not script.exists():
        pytest.skip("needs the bdi-supervisor script beside this Python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    done = subprocess.run([script, "sweep", sweep, "--out", "out", "--workers", "2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=240, env=env)
    assert not marker.exists(), done.stderr
    assert done.returncode == 0, done.stderr
    assert "PYTHONSAFEPATH" not in os.environ


# ------------------------------------------------------------------ outputs never replace inputs

SMALL_SPEC = "[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\nb' <-> a'\n\n[SYS_LIVENESS]\nb | !a\n"
UNREALIZABLE_SPEC = "[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\nb' <-> a'\nb'\n"


def _alias(folder: Path, target: Path, form: str) -> Path:
    """A path that reaches ``target``: itself, through ``./`` and ``..``, a symbolic or a hard
    link made in ``folder``."""
    if form == "same":
        return target
    if form == "dotted":
        return target.parent / "." / ".." / target.parent.name / target.name
    alias = folder / f"alias-{form}{target.suffix}"
    if form == "symlink":
        alias.symlink_to(target)
    else:
        os.link(target, alias)
    return alias


def _output_cases(tmp: Path) -> dict[str, tuple[list, list[Path], Path]]:
    """Commands with an output option pointed at one of their inputs: (argv with ``{OUT}``
    where the output goes, the inputs, the input the output is aimed at)."""
    mission = vending(tmp / "m")
    catalog = tmp / "m" / "catalog.yaml"
    spec = tmp / "w.structuredslugs"
    spec.write_text(SMALL_SPEC)
    bad = tmp / "u.structuredslugs"
    bad.write_text(UNREALIZABLE_SPEC)
    saved = tmp / "saved"
    assert run_cli("supervisor", ["synthesize", mission, "--out", saved, "--quiet"]).code == 0
    run_folder = saved / "vending" / "one-hot-SP"
    return {
        "spec -o mission": (["spec", mission, "-o", "{OUT}"], [mission, catalog], mission),
        "spec -o catalog": (["spec", mission, "-o", "{OUT}"], [mission, catalog], catalog),
        "solve --strategy spec": (["solve", spec, "--strategy", "{OUT}"], [spec], spec),
        "solve --slugs-json spec": (["solve", spec, "--slugs-json", "{OUT}"], [spec], spec),
        "explain -o catalog": (["explain", mission, "-o", "{OUT}"], [catalog], catalog),
        "explain --counter-strategy spec": (["explain", bad, "--counter-strategy", "{OUT}"],
                                            [bad], bad),
        "run --bdi-log catalog": (["run", mission, "--bdi-log", "{OUT}"], [catalog], catalog),
        "run --bdi-log saved strategy": (
            ["run", mission, "--from", run_folder, "--bdi-log", "{OUT}"],
            [run_folder / "reduced.json"], run_folder / "reduced.json"),
    }


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(["spec -o mission", "spec -o catalog", "solve --strategy spec",
                             "solve --slugs-json spec", "explain -o catalog",
                             "explain --counter-strategy spec", "run --bdi-log catalog",
                             "run --bdi-log saved strategy"]),
       form=st.sampled_from(["same", "dotted", "symlink", "hard link"]))
def test_no_output_replaces_an_input(tmp_path_factory, case, form):
    tmp = tmp_path_factory.mktemp("outputs")
    argv, inputs, aimed = _output_cases(tmp)[case]
    before = {path: path.read_bytes() for path in inputs}
    out = _alias(tmp, aimed, "hard" if form == "hard link" else form)
    outcome = run_cli("supervisor", [str(out) if a == "{OUT}" else a for a in argv])
    if form == "symlink":  # a link is never written through, whatever it points to
        bad_input(outcome, "is a symbolic link; it is not replaced")
    else:
        bad_input(outcome, "is an input of this command", str(aimed.resolve()))
    assert {path: path.read_bytes() for path in inputs} == before


def test_an_input_read_through_a_link_is_not_replaced(tmp_path):
    mission = vending(tmp_path / "m")
    link = mission.parent / "link.yaml"  # beside it: the catalog's path is relative
    link.symlink_to(mission)
    before = mission.read_bytes()
    bad_input(run_cli("supervisor", ["spec", link, "-o", mission]),
              "is an input of this command")
    assert mission.read_bytes() == before


def test_realize_never_replaces_the_folder_holding_its_strategy(tmp_path):
    mission = vending(tmp_path / "m")
    assert run_cli("supervisor", ["synthesize", mission, "--out", tmp_path / "r",
                                  "--quiet"]).code == 0
    run_folder = tmp_path / "r" / "vending" / "one-hot-SP"
    strategy = run_folder / "behavior" / "reduced.json"
    strategy.write_bytes((run_folder / "reduced.json").read_bytes())
    outcome = run_cli("supervisor", ["realize", strategy, "--mission", mission,
                                     "--out", run_folder])
    bad_input(outcome, "holds an input of this command", "reduced.json")
    assert strategy.exists()


@pytest.mark.parametrize("argv, first, second", [
    (["explain", "{BAD}", "-o", "{A}", "--counter-strategy", "{A}"], "-o", "--counter-strategy"),
    (["explain", "{BAD}", "--counter-strategy", "{A}", "--slugs-counter-strategy", "{L}"],
     "--counter-strategy", "--slugs-counter-strategy"),
    (["explain", "{BAD}", "-o", "{A}", "--slugs-counter-strategy", "{H}"], "-o",
     "--slugs-counter-strategy"),
    (["solve", "{SPEC}", "--strategy", "{A}", "--slugs-json", "{A}"], "--strategy",
     "--slugs-json"),
    (["solve", "{SPEC}", "--strategy", "{A}", "--slugs-json", "{D}"], "--strategy",
     "--slugs-json"),
])
def test_two_outputs_on_one_file_are_refused(tmp_path, argv, first, second):
    spec, bad = tmp_path / "w.structuredslugs", tmp_path / "u.structuredslugs"
    spec.write_text(SMALL_SPEC)
    bad.write_text(UNREALIZABLE_SPEC)
    existing = tmp_path / "a.json"
    existing.write_text("{}")
    os.link(existing, tmp_path / "hard.json")
    (tmp_path / "link.json").symlink_to(existing)
    names = {"{SPEC}": spec, "{BAD}": bad, "{A}": existing, "{H}": tmp_path / "hard.json",
             "{L}": tmp_path / "link.json", "{D}": tmp_path / "sub" / ".." / "a.json"}
    (tmp_path / "sub").mkdir()
    outcome = run_cli("supervisor", [names.get(a, a) for a in argv])
    if "{L}" in argv:  # a link is refused as an output before the two are compared
        bad_input(outcome, "symbolic link")
    else:
        bad_input(outcome, f"{first} and {second} name the same file")
    assert existing.read_text() == "{}"


def _value_options():
    """Every option and positional of both command lines that takes a text value, with the
    arguments its subcommand needs besides: ``(tool, command, name, argv with '')``."""
    import argparse

    from bdi_supervisor.cli.main import build_parser as supervisor_parser
    from bdi_supervisor.cli.monitor import build_parser as monitor_parser

    cases = []
    for tool, parser in (("supervisor", supervisor_parser()), ("monitor", monitor_parser())):
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for command, subparser in sub.choices.items():
            takes = [a for a in subparser._actions if a.nargs in (None, "?")
                     and not isinstance(a, (argparse._StoreTrueAction,
                                            argparse._StoreFalseAction,
                                            argparse._HelpAction,
                                            argparse.BooleanOptionalAction))
                     and a.type in (None, str) and not a.choices]
            for action in takes:
                argv = [command]
                for other in subparser._actions:
                    if other is action or not (other.required or not other.option_strings):
                        continue
                    if isinstance(other, argparse._HelpAction):
                        continue
                    argv += [*other.option_strings[:1], "1"]
                name = action.option_strings[0] if action.option_strings else None
                argv += [name, ""] if name else []
                if name is None:  # the positional itself is empty
                    argv = [command] + ["" if o is action else "1" for o in subparser._actions
                                        if not o.option_strings and o.dest != "help"]
                    argv += [arg for o in subparser._actions if o.required and o.option_strings
                             for arg in (o.option_strings[0], "1")]
                cases.append((tool, command, name or action.metavar or action.dest, argv))
    return cases


def test_every_empty_value_is_refused_naming_its_argument():
    cases = _value_options()
    assert len(cases) > 30  # every text option of both tools
    for tool, _command, name, argv in cases:
        outcome = run_cli(tool, argv)
        assert not outcome.traceback, (argv, outcome.crash or outcome.err)
        assert outcome.code == 2, (argv, outcome.err)
        assert "an empty value" in outcome.err and name in outcome.err, (argv, outcome.err)


# ------------------------------------------------------------------ stale outputs


def test_outputs_not_written_leave_no_older_file_behind(tmp_path):
    spec, bad = tmp_path / "w.structuredslugs", tmp_path / "u.structuredslugs"
    spec.write_text(SMALL_SPEC)
    bad.write_text(UNREALIZABLE_SPEC)
    cases = [
        (["explain", spec, "--counter-strategy", "{OLD}"], "the spec is realizable"),
        (["explain", spec, "--slugs-counter-strategy", "{OLD}"], "the spec is realizable"),
        (["solve", bad, "--strategy", "{OLD}"], "the spec is UNREALIZABLE"),
        (["solve", spec, "--no-strategy", "--slugs-json", "{OLD}"], "--no-strategy"),
        (["run", "two_rivers_goat_stays", "--bdi-log", "{OLD}"], "nothing ran"),
    ]
    for argv, reason in cases:
        old = tmp_path / "old.out"
        old.write_text("from an earlier run")
        outcome = run_cli("supervisor", [old if a == "{OLD}" else a for a in argv])
        assert outcome.code in (0, 1) and not outcome.traceback, (argv, outcome.err)
        assert not old.exists(), argv
        assert f"{old}: not written ({reason}" in outcome.err, (argv, outcome.err)
        assert "an earlier run left there was removed" in outcome.err


def test_a_run_folder_holds_only_this_runs_files(tmp_path):
    """A mission realizable once and unrealizable the next time: the strategy, the audit and
    the behavior of the first run must not stay beside the explanation of the second."""
    text = (MISSIONS / "vending.yaml").read_text().replace("../catalogs/vending.yaml",
                                                           "catalog.yaml")
    mission = vending(tmp_path / "m", text)
    out = tmp_path / "out"
    assert run_cli("supervisor", ["synthesize", mission, "--out", out, "--quiet"]).code == 0
    folder = out / "vending" / "one-hot-SP"
    assert (folder / "behavior").is_dir() and (folder / "strategy.json").exists()
    vending(tmp_path / "m", text.replace('formula: "item = 0"}',
                                         'formula: "item = 0"}\n    - {name: never, '
                                         'formula: "FALSE"}'))
    outcome = run_cli("supervisor", ["synthesize", mission, "--out", out, "--quiet"])
    assert outcome.code == 1, outcome.err
    left = sorted(p.name for p in folder.iterdir())
    summary = json.loads((folder / "summary.json").read_text())
    listed = sorted({Path(f).name for stage in summary["stages"] for f in stage["files"]}
                    | {"summary.json"})
    assert left == listed
    assert "explanation.json" in left and "strategy.json" not in left and "behavior" not in left


# ------------------------------------------------------------------ names that alias


def _catalog(capabilities: dict[str, dict], extra: str = "") -> str:
    """A catalog of capabilities chained in order (``{name: {"fails": bool}}``: an operator
    decision that may fail, else a LogState)."""
    lines = [f"name: names\nstate_outcome_mappings: {{failed: failure}}\n{extra}capabilities:"]
    names = list(capabilities)
    for index, (name, spec) in enumerate(capabilities.items()):
        before = f"[{names[index - 1]}]" if index else f"['!{name}']"
        if spec.get("fails"):
            lines += [f"  {name}:", "    interface: OperatorDecisionState",
                      "    parameters: {outcomes: [done, failed], hint: step, suggestion: done}",
                      f"    preconditions: {before}",
                      f"    postconditions: {{completed: [{name}], failure: ['!{name}']}}"]
        else:
            lines += [f"  {name}:", "    interface: LogState", "    parameters: {text: step}",
                      f"    preconditions: {before}", f"    postconditions: [{name}]"]
    return "\n".join(lines) + "\n"


def _meanings(capabilities: dict[str, dict]) -> dict[str, set[str]]:
    """Oracle: every name with the things it names (activation ``_a``, outcomes ``_c``/``_f``,
    pending ``_p`` of failure-capable ones, memory ``_m``, and the capability itself)."""
    found: dict[str, set[str]] = {}
    for cap, spec in capabilities.items():
        derived = {"": "capability", "_a": "activation", "_c": "completion", "_f": "failure",
                   "_m": "memory"} | ({"_p": "pending"} if spec.get("fails") else {})
        for suffix, kind in derived.items():
            found.setdefault(cap + suffix, set()).add(f"{kind} of {cap}")
    return found


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "a_a", "a_c", "a_f", "a_m", "a_p", "b", "b_c",
                                        "a_c_a"]),
                       st.fixed_dictionaries({"fails": st.booleans()}), min_size=1,
                       max_size=4))
def test_derived_names_never_alias(tmp_path_factory, capabilities):
    """A catalog loads exactly when no name means two things; then the spec declares every
    proposition once."""
    from bdi_supervisor.catalog.loader import load_catalog

    folder = tmp_path_factory.mktemp("names")
    path = folder / "catalog.yaml"
    path.write_text(_catalog(capabilities))
    clashes = {name for name, meant in _meanings(capabilities).items() if len(meant) > 1}
    if clashes:
        with pytest.raises(InputError) as caught:
            load_catalog(path)
        assert "is both" in caught.value.message
        assert any(f"'{name}'" in caught.value.message for name in clashes)
        return
    load_catalog(path)
    mission = folder / "mission.yaml"
    mission.write_text(f"name: names\ncatalog: catalog.yaml\nrequest:\n  initial_conditions: "
                       f"[{next(iter(capabilities))}_a]\n  goals: [{list(capabilities)[-1]}]\n")
    outcome = run_cli("supervisor", ["spec", mission, "--format", "json"])
    assert outcome.code == 0, outcome.err
    declared = [*json.loads(outcome.out)["inputs"], *json.loads(outcome.out)["outputs"]]
    assert len(declared) == len(set(declared))


@pytest.mark.parametrize("capabilities, extra, both", [
    ({"pay": {}, "pay_c": {}}, "", ("capability 'pay_c'", "completed proposition of capability "
                                    "'pay'")),
    ({"x": {}, "x_a": {}}, "", ("capability 'x_a'", "activation of capability 'x'")),
    ({"x": {"fails": True}, "x_p": {}}, "", ("capability 'x_p'", "pending proposition")),
    ({"x": {}, "x_m": {}}, "", ("capability 'x_m'", "memory proposition of capability 'x'")),
    ({"x": {}}, "variable_mappings:\n  sys_props:\n    x_a: {0: none, 1: one}\n",
     ("variable 'x_a'", "activation of capability 'x'")),
    ({"x": {}}, "memory:\n  sys_props:\n    x_c: false\n",
     ("memory 'x_c'", "completed proposition of capability 'x'")),
    ({"finished": {}}, "", ("capability 'finished'", "SM outcome proposition 'finished'")),
])
def test_aliasing_names_are_refused_naming_both(tmp_path, capabilities, extra, both):
    mission = vending(tmp_path, catalog_text=_catalog(capabilities, extra))
    outcome = run_cli("supervisor", ["spec", mission])
    bad_input(outcome, "catalog.yaml", "is both", *both)


@pytest.mark.parametrize("name, ok", [
    ("v" * 83, True), ("v" * 84, False), ("V1_mission", True), ("_hidden", False),
    ("x" * 100, False)])
def test_mission_names_that_cannot_name_a_package_are_refused_at_load(tmp_path, name, ok):
    text = (MISSIONS / "vending.yaml").read_text().replace("../catalogs/vending.yaml",
                                                           "catalog.yaml")
    mission = vending(tmp_path, text.replace("name: vending", f"name: {name}"))
    spec = run_cli("supervisor", ["spec", mission])
    if not ok:
        bad_input(spec, "mission.yaml", "key 'name'", "ROS package")
        return
    assert spec.code == 0, spec.err
    outcome = run_cli("supervisor", ["synthesize", mission, "--out", tmp_path / "out",
                                     "--quiet"])
    assert outcome.code == 0, outcome.err


# ------------------------------------------------------------------ files of another mission


@pytest.fixture(scope="module")
def saved_runs(tmp_path_factory):
    """A vending and a coffee run folder and an explanation of two_rivers_goat_stays."""
    out = tmp_path_factory.mktemp("saved")
    for mission in ("vending", "coffee"):
        assert run_cli("supervisor", ["synthesize", mission, "--out", out,
                                      "--quiet"]).code == 0
    explanation = out / "explanation.json"
    run_cli("supervisor", ["explain", "two_rivers_goat_stays", "-o", explanation, "--json"])
    return {"vending": out / "vending" / "one-hot-SP", "coffee": out / "coffee" / "one-hot-SP",
            "explanation": explanation}


@pytest.mark.parametrize("argv, refused", [
    (["realize", "{coffee}/reduced.json", "--mission", "vending", "--out", "{tmp}"], True),
    (["realize", "{vending}/reduced.json", "--mission", "coffee", "--out", "{tmp}"], True),
    (["realize", "{vending}/reduced.json", "--mission", "vending", "--out", "{tmp}"], False),
    (["run", "vending", "--from", "{coffee}"], True),
    (["run", "coffee", "--from", "{coffee}", "--max-steps", "5"], False),
    (["run", "vending", "--from", "{explanation}"], True),
    (["run", "two_rivers", "--from", "{explanation}"], True),
])
def test_saved_files_of_another_mission_are_refused(saved_runs, tmp_path, argv, refused):
    names = {**{f"{{{k}}}": str(v) for k, v in saved_runs.items()}, "{tmp}": str(tmp_path)}
    argv = [next((a.replace(k, v) for k, v in names.items() if k in a), a) for a in argv]
    outcome = run_cli("supervisor", argv)
    if refused:
        bad_input(outcome, "is not one of mission")
        assert not (tmp_path / "behavior").exists()
    else:
        assert outcome.code in (0, 1) and not outcome.traceback, outcome.err


# ------------------------------------------------------------------ every stage under the budget


@settings(max_examples=60, deadline=None)
@given(bits=st.integers(1, 6), data=st.data())
def test_lazy_enumeration_is_the_sorted_one(bits, data):
    """Oracle: all_sorted (every path of the BDD, then sorted); the lazy one gives the same
    assignments in the same order, one at a time."""
    from bdi_supervisor.spec.structuredslugs import parse_spec
    from bdi_supervisor.synthesis.symbolic import build_game
    from bdi_supervisor.synthesis.valuations import all_sorted, sorted_lazily

    names = [f"v{i}" for i in range(bits)]
    rows = data.draw(st.sets(st.integers(0, 2**bits - 1)))
    spec = parse_spec("[INPUT]\n" + "\n".join(names) + "\n")
    game = build_game(spec)
    u = game.false
    for row in rows:
        u |= game.bdd.cube({n: bool(row >> i & 1) for i, n in enumerate(names)})
    assert list(sorted_lazily(game, u, names)) == all_sorted(game, u, names)


BIG_INPUT = "[INPUT]\nx:0...16777215\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n!b'\n\n[SYS_LIVENESS]\nb\n"
LONG_RUN = ("[INPUT]\nx:0...65535\n\n[OUTPUT]\nb\n\n[ENV_INIT]\nx = 0\n\n[ENV_TRANS]\n"
            "x' = x + 1 | x = 65535\n\n[SYS_TRANS]\n!b'\n\n[SYS_LIVENESS]\nb\n")


@pytest.mark.parametrize("argv, states", [([], 256), (["--max-states", "10"], 10)])
def test_explain_of_a_24_bit_input_enumerates_lazily(tmp_path, argv, states):
    """2^24 initial states: the explicit counter-strategy stops at max_states at once (it used
    to enumerate and sort every one: no end, 3 GB)."""
    spec = tmp_path / "big.structuredslugs"
    spec.write_text(BIG_INPUT)
    outcome = run_cli("supervisor", ["explain", spec, "--json", *argv])
    assert outcome.code == 1 and not outcome.traceback, outcome.err
    record = json.loads(outcome.out)["counter_strategy"]
    assert record["explicit_states"] == states and record["truncated"]
    assert record["winning_states"] == 2 * 2**24  # every valuation of x and b


def test_a_counter_run_that_does_not_close_is_incomplete(tmp_path):
    spec = tmp_path / "long.structuredslugs"
    spec.write_text(LONG_RUN)
    outcome = run_cli("supervisor", ["explain", spec, "--json", "--no-assumptions"])
    assert outcome.code == 3 and not outcome.traceback, outcome.err
    assert "counter-run step budget" in json.loads(outcome.out)["incomplete_reason"]


@pytest.mark.parametrize("sections", [
    dict(zip(("env_init", "env_trans", "env_liveness", "sys_init", "sys_trans", "sys_liveness"),
             values)) for values in __import__("itertools").product(("TRUE", "FALSE"), repeat=6)
])
def test_specs_without_variables(tmp_path, sections):
    """Oracle (one state, no moves to choose): the system wins when the environment fails its
    part first (initial, safety, then liveness), else when it keeps its own. ``explain``
    counts that one state (it said 0 beside one explicit state), and nothing leaks onto
    stderr (``dd`` warned about empty renamings)."""
    ei, et, el, si, st_, sl = (sections[k] == "TRUE" for k in sections)
    realizable = not ei or (si and (not et or (st_ and (not el or sl))))
    spec = tmp_path / "empty.structuredslugs"
    spec.write_text("".join(f"[{k.upper()}]\n{v}\n\n" for k, v in sections.items()))
    solved = run_cli("supervisor", ["solve", spec, "--json"])
    explained = run_cli("supervisor", ["explain", spec, "--json"])
    for outcome in (solved, explained):
        assert outcome.code == (0 if realizable else 1), outcome.err
        assert outcome.err == "", outcome.err
    if not realizable:
        record = json.loads(explained.out)["counter_strategy"]
        assert record["initial_inputs"] == 1  # the one (empty) input
        # the environment wins the game from the one state (its initial part aside) when it
        # can move and the system cannot keep its safety or its liveness
        won = et and (not st_ or (el and not sl))
        assert record["winning_states"] == (1 if won else 0)
        assert (record["explicit_states"] > 0) == si  # a play starts in a system's state


def _chain_catalog(folder: Path, count: int) -> Path:
    """A mission over ``count`` LogState capabilities run one after the other."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["name: chain", "capabilities:"]
    for i in range(count):
        before = f"[c{i - 1}]" if i else "['!c0']"
        lines += [f"  c{i}:", "    interface: LogState", "    parameters: {text: step}",
                  f"    preconditions: {before}", f"    postconditions: [c{i}]"]
    (folder / "catalog.yaml").write_text("\n".join(lines) + "\n")
    mission = folder / "mission.yaml"
    mission.write_text(f"name: chain{count}\ncatalog: catalog.yaml\nrequest:\n"
                       f"  initial_conditions: [c0_a]\n  goals: [c{count - 1}]\n")
    return mission


@pytest.mark.parametrize("count, stopped", [(300, "well_separation"), (1000, "spec")])
def test_every_stage_keeps_the_run_budget(tmp_path, count, stopped):
    """300 capabilities: well-separation used to ignore the budget (no end); 1000: spec
    generation builds half a million mutual exclusions. Both stop within the run's budget."""
    import time

    mission = _chain_catalog(tmp_path, count)
    started = time.monotonic()
    outcome = run_cli("supervisor", ["synthesize", mission, "--time-budget", "2", "--quiet",
                                     "--json", "--out", tmp_path / "out"])
    assert time.monotonic() - started < 60, "no end near the budget"
    assert outcome.code == 1 and not outcome.traceback, outcome.err
    stages = {s["name"]: s for s in json.loads(outcome.out)["stages"]}
    last = list(stages.values())[-1]
    assert last["status"] == "INCOMPLETE" and "exhausted during" in \
        last["record"]["incomplete_reason"]
    if stopped == "spec":
        assert list(stages) == ["spec"]
    elif "well_separation" in stages:  # the spec was built in time (an unloaded machine)
        assert stages["well_separation"]["status"] == "ANALYSIS_INCOMPLETE"
    assert sum(s["seconds"] for s in stages.values()) < 2 * 3  # the stages share 2 s


# ------------------------------------------------------------------ control characters


HOSTILE_TEXT = "Insert \x1b]0;retitled\x07\x1b[31mred\u202eevil\r\x9b31m\x00"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_printable_escapes_every_control_character(text):
    """Oracle: no C0/C1 control but newline and tab, no DEL and no bidirectional override
    remains, and undoing the escapes of a text without backslashes gives it back."""
    from bdi_supervisor.limits import printable

    shown = printable(text)
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f
                   or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069 for c in shown)
    if "\\" not in text:
        import re

        undone = re.sub(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})",
                        lambda m: chr(int(m.group(1) or m.group(2), 16)), shown)
        assert undone == text


def _hostile_mission(tmp: Path) -> Path:
    catalog = (CATALOGS / "vending.yaml").read_text().replace(
        "{text: Insert Coin}", "{text: " + json.dumps(HOSTILE_TEXT) + "}").replace(
        "item: {0: None,", "item: {0: " + json.dumps("None\x1b[2J") + ",")
    return vending(tmp, catalog_text=catalog)


@pytest.mark.parametrize("argv", [
    ["run", "{M}"], ["run", "{M}", "--seed", "3"], ["spec", "{M}"],
    ["spec", "{M}", "--format", "slugsin"], ["realize", "{R}", "--mission", "{M}",
                                               "--out", "{O}"],
])
def test_input_text_never_reaches_the_terminal_raw(tmp_path, argv):
    mission = _hostile_mission(tmp_path / "m")
    if "{R}" in argv:
        assert run_cli("supervisor", ["synthesize", mission, "--out", tmp_path / "s",
                                      "--quiet"]).code == 0
    names = {"{M}": mission, "{R}": tmp_path / "s" / "vending" / "one-hot-SP" / "reduced.json",
             "{O}": tmp_path / "out"}
    outcome = run_cli("supervisor", [names.get(a, a) for a in argv])
    assert outcome.code == 0 and not outcome.traceback, outcome.err
    for stream in (outcome.out, outcome.err):
        assert not any(c in stream for c in "\x1b\x07\r\x9b\x00\u202e"), stream[-500:]
    if argv[0] == "run":
        assert "\\x1b]0;retitled\\x07" in outcome.out


def test_errors_quoting_input_escape_it(tmp_path):
    mission = vending(tmp_path, (MISSIONS / "vending.yaml").read_text().replace(
        "../catalogs/vending.yaml", "catalog.yaml") + '"colour\\e[31m": x\n')
    outcome = run_cli("supervisor", ["spec", mission])
    bad_input(outcome, "unknown key", "colour\\x1b[31m")
    assert "\x1b" not in outcome.err


@pytest.mark.parametrize("where", ["world successor", "world initial", "automaton successor",
                                   "automaton initial", "accessible world", "accessible source"])
def test_ctl_model_names_given_as_lists_are_bad_input(tmp_path, where):
    """A list or a mapping where a state or world name belongs could not be looked up (a
    traceback); it is an unknown name at its key."""
    import yaml

    model = yaml.safe_load((CTL_MODELS / "beer.yaml").read_text())
    world = model["worlds"]["w1"]
    automaton = next(model[k] for k in ("belief", "desire", "intention") if k in model)
    state = next(iter(automaton["states"].values()))
    if where == "world successor":
        world["states"]["L0"]["next"][1] = ["F1"]
    elif where == "world initial":
        world["initial"] = {"L0": None}
    elif where == "automaton successor":
        state["next"] = {1: [next(iter(automaton["states"]))]}
    elif where == "automaton initial":
        automaton["initial"] = [1]
    elif where == "accessible world":
        state["out"] = [["w1"]]
    else:
        state["out"] = {"w1": [["w2"]]}
    path = tmp_path / "model.yaml"
    path.write_text(yaml.safe_dump(model))
    outcome = run_cli("monitor", ["check", path, "AG(bel br -> EF bb)"])
    bad_input(outcome, "model.yaml", "unknown")
