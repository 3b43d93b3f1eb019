"""What people read: plain tables when piped, no raw Python values, live synthesis status,
audit warnings with where to read them."""

from __future__ import annotations

import io
import json

from rich.console import Console
from rich.text import Text

from bdi_supervisor.cli.main import main
from bdi_supervisor.cli.synthesis_view import SynthesisStatus, solving_status
from bdi_supervisor.display import plain, print_table, render_plain, table


def test_piped_tables_keep_every_column_and_cell():
    grid = table("state", "parameters", "outcome")
    long = "text=" + "a very long parameter value " * 8
    grid.add_row("0_prep_pay", long, Text("completed", "green"))
    grid.add_row("1_pay", "[bold]markup[/]", "failure")
    lines = render_plain(grid).splitlines()
    assert lines[0].split() == ["state", "parameters", "outcome"]
    assert long.strip() in lines[1] and lines[1].endswith("completed")
    assert "markup" in lines[2] and "[bold]" not in lines[2]
    assert not any(c in render_plain(grid) for c in "│┃━─")


def test_print_table_is_plain_when_not_a_terminal(capsys):
    grid = table("a", "b")
    grid.add_row("x" * 150, "y")
    print_table(grid)
    out = capsys.readouterr().out
    assert out.splitlines()[1] == "x" * 150 + "  y"


def test_plain_never_shows_python_reprs():
    assert plain(None) == "-" and plain([]) == "-" and plain(True) == "yes"
    assert plain(["a", None]) == "a, -" and plain({"k": None}) == "k=-"


def test_run_output_has_no_raw_python_values(capsys):
    assert main(["run", "coffee_extended", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "None" not in out and "sm_outcome" not in out
    assert "ENVIRONMENT_SUSTAINED_LIVELOCK ×" in out and "audit.json" in out
    assert not any(c in out for c in "│┃━")  # piped: plain table


def test_run_json_carries_the_audit_warnings(capsys):
    assert main(["run", "coffee_extended", "--seed", "1", "--json", "--no-monitor"]) == 0
    record = json.loads(capsys.readouterr().out)
    kinds = {w["kind"] for w in record["audit_warnings"]}
    assert kinds == {"ENVIRONMENT_SUSTAINED_LIVELOCK"}
    assert {w["strategy"] for w in record["audit_warnings"]} == {"raw", "reduced"}


def test_synthesize_names_the_audit_file_with_the_warnings(tmp_path, capsys):
    assert main(["synthesize", "coffee_extended", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    audit_file = tmp_path / "coffee_extended" / "one-hot-SP" / "audit.json"
    assert f"all of them: {audit_file}" in out
    warnings = json.loads(audit_file.read_text())["warnings"]
    raw_line = next(line for line in out.splitlines() if "raw strategy:" in line)
    assert raw_line.endswith(f"ENVIRONMENT_SUSTAINED_LIVELOCK ×{len(warnings)}")


def test_no_warnings_no_audit_lines(capsys):
    assert main(["run", "coffee", "--seed", "1"]) == 0
    assert "warning" not in capsys.readouterr().out


def test_status_is_quiet_when_piped_or_asked():
    with solving_status("m") as progress:  # pytest's stderr is not a terminal
        assert progress is None
    with solving_status("m", quiet=True) as progress:
        assert progress is None


def test_status_line_shows_phase_pass_steps_nodes_and_time():
    status = SynthesisStatus("quad", Console(file=io.StringIO()), delay=3600)
    status({"stage": "spec"})
    assert status.text().startswith("quad · spec generation · ")
    status({"stage": "synthesis"})
    status({"phase": "encoding"})
    assert status.text().startswith("quad · encoding · ")
    status({"phase": "realizability"})
    assert status.text().startswith("quad · realizability fixpoint · ")
    status({"pass": 2, "goal": 0, "goals": 3, "level": 7, "x_iterations": 12345,
            "live_nodes": 654321, "last_levels": 20})
    text = status.text()
    for part in ("realizability fixpoint", "pass 2", "goal 1/3", "Y level 8/~20",
                 "12.3k cpre steps", "654.3k live nodes"):
        assert part in text
    assert text.endswith(" s")
    status({"phase": "extraction"})
    assert "strategy extraction" in status.text() and "pass 2" in status.text()


def test_status_counts_from_the_first_cpre_step_on_one_line_at_any_width():
    """The counters used to appear only when a Y level ended (90 s into a quadcopter run) and
    then wrapped a 120-column line."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.options import SynthesisOptions
    from bdi_supervisor.specgen.generate import generate_spec
    from bdi_supervisor.synthesis.synthesize import synthesize

    status = SynthesisStatus("two_rivers", Console(file=io.StringIO()), delay=3600,
                             expected=91.0)
    seen: list[tuple[str, str]] = []

    def record(event: dict) -> None:
        status(event)
        kind = ("working" if "working" in event else "level" if "pass" in event
                else event.get("phase", ""))
        seen.append((kind, status.text()))

    synthesize(generate_spec(load_mission("two_rivers")), SynthesisOptions(), progress=record)
    kinds = [k for k, _ in seen]
    first_level = kinds.index("level")
    assert "working" in kinds[:first_level]  # counters before any Y level ended
    working = next(text for k, text in seen if k == "working")
    assert "pass 1" in working and "Y level 1" in working and "live nodes" in working
    assert "of ~91 s" in working
    later = [text for k, text in seen if k == "working" and "pass 2 " in text]
    assert later and all("Y level " in t and "/~" in t for t in later)  # of the last pass's
    status({"working": {"pass": 12, "goal": 2, "goals": 3, "level": 41,
                        "x_iterations": 1234567, "live_nodes": 98765432, "last_levels": 80}})
    for width in (200, 120, 80, 60, 40, 20):
        line = status.text(width)
        assert len(line) <= width
        if width >= 60:
            assert "strategy extraction · " in line and line.endswith(" of ~91 s")
    wide, middle, narrow = status.text(200), status.text(100), status.text(80)
    assert "1.2M cpre steps" in wide and "two_rivers" in wide
    for part in ("pass 12", "Y level 42/~80", "98.8M live nodes"):
        assert part in middle, middle
    assert "cpre steps" not in middle
    assert "pass 12 · Y level 42/~80" in narrow


def test_synthesize_estimates_from_the_last_run_of_the_folder(tmp_path):
    from bdi_supervisor.cli.synthesis_view import last_run_seconds

    folder = tmp_path / "m" / "one-hot-SP"
    assert last_run_seconds(folder) is None
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps(
        {"stages": [{"seconds": 40.5}, {"seconds": 50.0}]}))
    assert last_run_seconds(folder) == 90.5
    (folder / "summary.json").write_text('{"stages": [{"seconds": "x"}]')
    assert last_run_seconds(folder) is None


def test_status_follows_the_real_phases_of_a_run():
    """The phase shown is the one the solver is in: the whole fixpoint used to read
    ``encoding`` until its first Y level ended (36 s on quadcopter one-hot FP)."""
    from bdi_supervisor import pipeline
    from bdi_supervisor.mission import load_mission

    events: list[dict] = []
    status = SynthesisStatus("coffee", Console(file=io.StringIO()), delay=3600)
    shown: list[str] = []

    def record(event: dict) -> None:
        events.append(event)
        status(event)
        shown.append(status.phase)

    pipeline.run(load_mission("coffee"), progress=record)
    steps = [e.get("stage") or e.get("phase") or ("finished " + e["finished"].name
                                                   if "finished" in e else "pass")
             for e in events if "working" not in e]
    steps = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]  # Y levels once
    assert steps == ["spec", "finished spec", "well_separation", "finished well_separation",
                     "synthesis", "encoding", "realizability", "pass", "extraction",
                     "finished synthesis", "audit", "finished audit", "realize",
                     "finished realize"]
    assert "realizability fixpoint" in shown and "strategy extraction" in shown


def test_synthesize_prints_each_stage_line_as_the_stage_ends(capsys, monkeypatch, tmp_path):
    """``spec: OK`` is printed when the spec stage ends, before synthesis starts."""
    from bdi_supervisor.synthesis import synthesize as module

    real = module.synthesize
    before: list[str] = []

    def spying(*args, **kwargs):
        before.append(capsys.readouterr().out)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "synthesize", spying)
    assert main(["synthesize", "coffee", "--quiet", "--out", str(tmp_path)]) == 0
    assert before[0].startswith("spec: OK (")
    assert "well_separation: WELL_SEPARATED (" in before[0]
    assert "synthesis:" not in before[0]
    assert capsys.readouterr().out.startswith("synthesis: REALIZABLE (")


def test_status_appears_only_after_its_delay_and_leaves_nothing():
    import time

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with SynthesisStatus("quick", console, delay=5.0):
        time.sleep(0.05)
    assert buffer.getvalue() == ""
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with SynthesisStatus("slow", console, delay=0.05) as status:
        status({"phase": "encoding"})
        time.sleep(0.6)
    assert "slow · encoding" in buffer.getvalue()


def _terminal(width: int) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=width, color_system=None), buffer


def _missions_table():
    grid = table("mission", "defaults", "sim", "description")
    for name in ("quadcopter_pihawk_dropout", "logistics_p0_holding_start", "coffee"):
        grid.add_row(name, "enumerated-SP", "quadcopter",
                     "PiHawk with a 1 s pose dropout, which ends aborted and exits 1")
    return grid


def _uncut(text: str, width: int) -> None:
    """Every line fits, and every line of a boxed table ends with its border (nothing cut)."""
    for line in text.splitlines():
        assert len(line) <= width, (width, text)
        if line[:1] in "┏┃┡│└":
            assert line[-1:] in "┓┃┩│┘", (width, text)
    assert "…" not in text


def test_narrow_terminal_keeps_names_whole_and_wraps_text():
    """Names and verdicts stay whole; text wraps before it is left out; where even that does
    not fit, the columns the command ranks least go first, saying so."""
    drop = ("sim", "defaults")
    for width in (200, 100, 70, 50):
        console, buffer = _terminal(width)
        print_table(_missions_table(), console, drop=drop)
        text = buffer.getvalue()
        _uncut(text, width)
        for name in ("quadcopter_pihawk_dropout", "logistics_p0_holding_start"):
            assert f" {name} " in text, (width, text)
        assert "PiHawk" in text and "exits" in text  # the description is never left out
        if width >= 100:
            assert " enumerated-SP " in text and " quadcopter " in text
            assert "left out" not in text
        if width == 100:
            assert "which ends aborted and exits 1" not in text  # wrapped
        if width == 50:
            assert "enumerated-SP" not in text
            assert "(defaults, sim left out: the terminal is 50" in text


def test_run_timeline_drops_timing_first_and_keeps_outcome_and_reason():
    """At 60 columns the timeline keeps the state, the outcome and the reason (wrapped), and
    leaves the timing and the parameters out; at 160 it shows every column."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import prepare
    from bdi_supervisor.runtime.progress import print_result
    from bdi_supervisor.runtime.session import RunOptions, run_supervisor

    mission = load_mission("vending_extended")
    prepared = prepare(mission)
    result = run_supervisor(mission, prepared.machine, prepared.reduced,
                            options=RunOptions(force="pay=failure pay=failure", seed=1))
    for width, kept, left_out in ((60, ("state", "outcome", "reason"), ("s", "parameters")),
                                  (160, ("state", "capability", "parameters", "outcome",
                                         "reason", "s"), ())):
        console, buffer = _terminal(width)
        print_result(result, console)
        text = buffer.getvalue()
        _uncut(text, width)
        header = next(line for line in text.splitlines() if line.startswith("┃"))
        cells = [c.strip() for c in header.strip("┃").split("┃")]
        assert all(k in cells for k in kept), (width, text)
        assert not any(k in cells for k in left_out), (width, text)
        assert "forced by" in text and "script" in text and "[override]" in text


def test_long_formulas_wrap_and_the_verdict_stays():
    grid = table("property", "verdict")
    grid.add_row("AG(bel br -> EF bb) & " * 4 + "true", "YES")
    console, buffer = _terminal(40)
    print_table(grid, console)
    text = buffer.getvalue()
    assert " YES " in text and all(len(line) <= 40 for line in text.splitlines())


def _subcommand_parsers():
    import argparse

    from bdi_supervisor.cli.main import build_parser as supervisor
    from bdi_supervisor.cli.monitor import build_parser as monitor

    for tool, build in (("bdi-supervisor", supervisor), ("bdi-monitor", monitor)):
        parser = build()
        choices = next(a for a in parser._actions
                       if isinstance(a, argparse._SubParsersAction)).choices
        for name, sub in choices.items():
            yield tool, parser, name, sub


def test_every_subcommand_help_is_plain_text_with_examples_that_parse():
    """``--help`` without reST markup (````…````, ``:mod:``), and 1-3 examples per subcommand,
    each a command line its parser accepts."""
    import re
    import shlex

    seen = 0
    for tool, parser, name, sub in _subcommand_parsers():
        text = sub.format_help()
        assert "``" not in text and not re.search(r":[a-z]+:`", text), (name, text)
        lines = text.split("examples:\n", 1)[1].splitlines()
        ours = [line.split("  #")[0].strip() for line in lines if line.strip()]
        assert 1 <= len([c for c in ours if c.split()[1] == name]) <= 3, (name, ours)
        for command in ours:
            words = shlex.split(command)
            if words[0] == tool and words[1] == name:
                parser.parse_args(words[1:])  # exits (SystemExit) on a bad example
        seen += 1
    assert seen >= 11


def test_typos_get_the_nearest_option_command_choice_and_mission(capsys):
    import pytest

    for argv, hint in ((["synthesize", "coffee", "--enconding", "one-hot"], "'--encoding'"),
                       (["synthesise", "coffee"], "'synthesize'"),
                       (["run", "coffee", "--encoding", "onehot"], "'one-hot'")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        assert f"(did you mean {hint}?)" in capsys.readouterr().err
    assert main(["run", "cofee"]) == 2
    assert "mission file not found (did you mean 'coffee'?)" in capsys.readouterr().err


def test_version_of_both_tools(capsys):
    import pytest

    from bdi_supervisor import __version__
    from bdi_supervisor.cli.monitor import main as monitor

    for tool, entry in (("bdi-supervisor", main), ("bdi-monitor", monitor)):
        with pytest.raises(SystemExit) as stop:
            entry(["--version"])
        assert stop.value.code == 0
        assert capsys.readouterr().out == f"{tool} {__version__}\n"


def test_top_level_help_has_examples_that_parse():
    import shlex

    from bdi_supervisor.cli.main import build_parser as supervisor
    from bdi_supervisor.cli.monitor import build_parser as monitor

    for tool, build in (("bdi-supervisor", supervisor), ("bdi-monitor", monitor)):
        parser = build()
        commands = [line.split("  #")[0].strip() for line in
                    parser.format_help().split("examples:\n", 1)[1].splitlines()]
        assert len(commands) >= 3
        for command in commands:
            words = shlex.split(command)
            assert words[0] in ("bdi-supervisor", "bdi-monitor")
            if words[0] == tool and "--help" not in words:
                build().parse_args(words[1:])  # SystemExit on a bad example


def test_max_input_size_before_or_after_the_subcommand(capsys):
    for argv in (["--max-input-size", "100", "spec", "coffee"],
                 ["spec", "coffee", "--max-input-size", "100"]):
        assert main(argv) == 2
        assert "larger than the input limit (474 bytes > 100 bytes)" in capsys.readouterr().err
    # given after the subcommand it wins; left out there, the one before it holds
    assert main(["--max-input-size", "100", "spec", "coffee", "--max-input-size", "1M"]) == 0
    capsys.readouterr()


def test_a_prefix_of_one_choice_is_suggested(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["synthesize", "two_rivers", "--liveness", "fair"])
    assert "(did you mean 'fair-outcome'?)" in capsys.readouterr().err


def test_missions_json_is_the_array_its_help_names(capsys):
    assert main(["missions", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert isinstance(records, list) and {"coffee", "two_rivers"} <= {r["name"] for r in records}
    from bdi_supervisor.cli.main import build_parser

    sub = next(a for a in build_parser(["missions"])._actions if a.dest == "command")
    assert "print a JSON array: one record per mission" in sub.choices["missions"].format_help()


def test_solve_shows_a_losing_input_as_a_valuation(tmp_path, capsys):
    spec = tmp_path / "small.structuredslugs"
    spec.write_text("[INPUT]\na\n[OUTPUT]\nb\n[ENV_INIT]\n!a\n[SYS_INIT]\n!b\n[SYS_TRANS]\n"
                    "b' <-> a'\n[SYS_LIVENESS]\nb\n")
    assert main(["solve", str(spec)]) == 1
    out = capsys.readouterr().out
    assert "losing initial input: !a\n" in out and "{" not in out


def test_any_table_at_any_width_is_never_cut():
    """Generated tables at generated widths: every line fits and keeps its border; the columns
    left out are exactly those the note names, the first column never among them; every word
    of a kept cell is shown (whole, where it fits the column)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from bdi_supervisor.display import MIN_WRAPPED, fit_columns

    word = st.text(alphabet="abcdefghij_=-.0123456789", min_size=1, max_size=40)
    cell = st.lists(word, min_size=1, max_size=6).map(" ".join)

    @settings(max_examples=60, deadline=None)
    @given(st.integers(1, 6).flatmap(lambda n: st.tuples(
        st.lists(st.from_regex(r"[a-z]{1,12}", fullmatch=True), min_size=n, max_size=n,
                 unique=True),
        st.lists(st.lists(cell, min_size=n, max_size=n), min_size=1, max_size=4))),
        st.integers(20, 160))
    def check(shape, width):
        headers, rows = shape
        grid = table(*headers)
        for row in rows:
            grid.add_row(*row)
        left = fit_columns(grid, width, drop=headers[::-1])
        kept = [str(c.header) for c in grid.columns]
        assert kept[0] == headers[0] and kept + left == [h for h in headers if h in kept] + [
            h for h in headers if h not in kept]
        console, buffer = _terminal(width)
        console.print(grid)
        lines = buffer.getvalue().splitlines()
        assert all(len(line) <= width for line in lines)
        assert all(line[-1] in "┓┃┩│┘" for line in lines)  # the right border: nothing cut
        body = " ".join(lines)
        if len(kept) > 1:
            for row in rows:
                for h in kept:
                    for w in row[headers.index(h)].split():
                        if len(w) <= MIN_WRAPPED:
                            assert w in body

    check()


def test_a_message_line_wraps_with_a_hanging_indent_or_stays_whole_to_copy():
    """Generated lines at generated widths: on a terminal every piece fits, the continuation
    lines start further in than the first and the words read back in order; a line to copy
    (a path, a command) and any piped line stay one line, exactly as given."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from bdi_supervisor.display import HANG, say

    words = st.lists(st.text(alphabet="abcdefgh/_.=-'", min_size=1, max_size=14),
                     min_size=1, max_size=30).map(" ".join)

    @settings(max_examples=60, deadline=None)
    @given(words, st.integers(0, 6), st.integers(30, 120), st.sampled_from(["", "e.g. "]))
    def check(text, indent, width, label):
        console, buffer = _terminal(width)
        say(console, text, indent, label=label)
        lines = buffer.getvalue().splitlines()
        assert all(len(line) <= width for line in lines)
        assert lines[0].startswith(" " * indent + label) or not label
        assert all(line.startswith(" " * (indent + HANG)) for line in lines[1:])
        assert " ".join(" ".join(lines).split()) == " ".join((label + text).split())
        for copyable, terminal in ((True, True), (False, False)):
            buffer = io.StringIO()
            console = Console(file=buffer, force_terminal=terminal, width=width,
                              color_system=None)
            say(console, text, indent, label=label, copyable=copyable)
            assert buffer.getvalue() == " " * indent + label + text + "\n"

    check()
