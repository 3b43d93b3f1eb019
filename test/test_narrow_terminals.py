"""What a person sees at a narrow terminal (60 and 80 columns): the real commands (``missions``,
``run``, ``run --operator``, ``explain``, a failed audit) in a pseudo-terminal of that size.

Nothing is cut: every line fits the terminal, every table row ends with its right border, and
every kept column shows each of its cells in full (the column's text, read down the table,
is the cells' text in order, wrapped only at spaces). Where a terminal is too narrow for every
column, the ones left out are exactly those the note under the table names, and each command
keeps what matters most (a mission's name and description, a step's outcome and reason, a core
element's description) and gives up timing first. Expected cells come from the same command's
``--json`` record, an oracle that no terminal layout touched."""

from __future__ import annotations

import json
import re

import pytest
from support.terminal import run_in_terminal, terminal_available

from bdi_supervisor.cli.main import main
from bdi_supervisor.display import plain

pytestmark = pytest.mark.skipif(terminal_available() is not None,
                                reason=terminal_available() or "")

WIDTHS = (60, 80)
#: the rows of a boxed table: its header between the top border and the header rule, its body
TOP, HEADER_RULE, BOTTOM = "┏", "┡", "└"
#: a vending run with two forced failures and seeded random ones (the README's example)
VENDING_RUN = ["run", "vending_extended", "--force", "pay=failure pay=failure"]


def _words(text: str) -> str:
    return " ".join(text.split())


def _tables(lines: list[str]) -> list[dict]:
    """Every boxed table on the screen: its column headers and each column's text read down
    the body (the pieces of every row joined by spaces)."""
    tables, index = [], 0
    while index < len(lines):
        if not lines[index].startswith(TOP):
            index += 1
            continue
        header_lines, index = [], index + 1
        while not lines[index].startswith(HEADER_RULE):
            header_lines.append(lines[index])
            index += 1
        body, index = [], index + 1
        while not lines[index].startswith(BOTTOM):
            body.append(lines[index])
            index += 1
        headers = _columns(header_lines, "┃")
        tables.append({"headers": [_words(h) for h in headers],
                       "columns": dict(zip((_words(h) for h in headers),
                                           (_words(c) for c in _columns(body, "│"))))})
    return tables


def _columns(rows: list[str], bar: str) -> list[str]:
    """The cells of ``rows`` (box lines) joined down each column."""
    cells = [row.strip()[1:-1].split(bar) for row in rows]
    return [" ".join(row[k] for row in cells) for k in range(len(cells[0]))]


def _left_out(text: str, width: int) -> list[list[str]]:
    """The columns each table's note says were left out, in the order the notes come."""
    notes = re.findall(r"\(([^()]*) left out: the terminal is (\d+) columns wide",
                       _words(text))
    assert all(int(w) == width for _, w in notes), notes
    return [names.split(", ") for names, _ in notes]


#: lines that carry a path or a command to copy: left whole for the terminal to wrap, so that
#: a copy of one is one line
COPYABLE = ("  listed in: ", "  look closer: ", "output: ", "Replay: ")


def _fits(screen, width: int, typed: tuple[str, ...] = ()) -> None:
    """Every line the tool wrote fits but those it left whole to copy (as is what a person
    typed after a question: the terminal wraps them), tables keep their right border, nothing
    ends in an ellipsis."""
    for line in screen.lines:
        shown = next((line[:-len(a)] for a in typed if line.endswith(": " + a)), line)
        if not shown.startswith(COPYABLE):
            assert len(shown) <= width, (width, line, screen.text)
        if line[:1] in "┏┃┡│└":
            assert line[-1:] in "┓┃┩│┘", (width, line, screen.text)  # its border: not cut
    assert "…" not in screen.text


def _json(argv: list[str], capsys) -> dict | list:
    main([*argv, "--json"])
    return json.loads(capsys.readouterr().out)


def _check_table(table: dict, full: list[str], left_out: list[str], expected: dict,
                 keep: tuple[str, ...], first_dropped: str | None = None) -> None:
    """The kept columns are the full header less exactly those the note names; ``keep`` are
    among them; each kept column that ``expected`` has shows its cells whole, in order."""
    assert table["headers"] == [h for h in full if h not in left_out], (table, left_out)
    assert set(keep) <= set(table["headers"]), (table["headers"], keep)
    if left_out and first_dropped:
        assert first_dropped in left_out, left_out
    for header, cells in expected.items():
        if header in table["headers"]:
            assert table["columns"][header] == _words(" ".join(cells)), (header, table)


@pytest.mark.parametrize("width", WIDTHS)
def test_missions_keep_names_and_descriptions(width, capsys, tmp_path):
    records = _json(["missions"], capsys)
    screen = run_in_terminal(["missions"], width, cwd=tmp_path)
    assert screen.code == 0, screen.text
    _fits(screen, width)
    (table,) = _tables(screen.lines)
    (left_out,) = _left_out(screen.text, width) or [[]]
    full = ["mission", "defaults", "sim", "extra", "FlexBE state packages", "description"]
    expected = {"mission": [r["name"] for r in records],
                "description": [r["description"] for r in records],
                "defaults": [r["defaults"] for r in records],
                "sim": [r["sim"] for r in records]}
    _check_table(table, full, left_out, expected, keep=("mission", "description"))


def _timeline_cells(steps: list[dict]) -> dict[str, list[str]]:
    def outcome(step):
        return step["outcome"] + (f" [{step['layer']}]" if step["forced"] else "")

    return {"#": [str(s["step"]) for s in steps], "state": [s["state"] for s in steps],
            "capability": [s["capability"] for s in steps],
            "outcome": [outcome(s) for s in steps], "→ next": [plain(s["next"]) for s in steps],
            "reason": [plain(s["reason"] or None) for s in steps]}


TIMELINE = ["#", "state", "capability", "parameters", "outcome", "→ next", "reason", "s"]


@pytest.mark.parametrize("width", WIDTHS)
def test_run_timeline_keeps_outcome_and_reason_and_drops_timing_first(width, capsys, tmp_path):
    record = _json([*VENDING_RUN, "--quiet"], capsys)
    screen = run_in_terminal([*VENDING_RUN, "--quiet"], width, cwd=tmp_path)
    assert screen.code == 0, screen.text
    _fits(screen, width)
    (table,) = _tables(screen.lines)
    (left_out,) = _left_out(screen.text, width)
    _check_table(table, TIMELINE, left_out, _timeline_cells(record["result"]["steps"]),
                 keep=("#", "outcome", "reason"), first_dropped="s")
    assert "status: goal_reached" in _words(screen.text)


@pytest.mark.parametrize("width", WIDTHS)
def test_explain_keeps_what_each_core_element_is(width, capsys, tmp_path):
    record = _json(["explain", "two_rivers_goat_stays"], capsys)
    screen = run_in_terminal(["explain", "two_rivers_goat_stays"], width, cwd=tmp_path)
    assert screen.code == 1, screen.text
    _fits(screen, width)
    core, replay = _tables(screen.lines)
    notes = _left_out(screen.text, width)
    core_left = notes[0] if "what" in core["headers"] and len(core["headers"]) < 4 else []
    items = record["core"]
    _check_table(core, ["#", "what", "formula", "where"], core_left,
                 {"#": [str(k) for k in range(1, len(items) + 1)],
                  "what": [item["description"] for item in items]}, keep=("#", "what"))
    replay_left = notes[-1] if len(replay["headers"]) < len(TIMELINE) else []
    assert set(replay_left) <= set(TIMELINE) and "outcome" in replay["headers"]
    assert "reason" in replay["headers"]
    if "where" in core["headers"]:  # where each element comes from: the file's line, whole
        # (a path longer than its column folds: read down the column it is the same path)
        assert core["columns"]["where"].replace(" ", "") == "".join(
            f"{item['file']}:{item['line']}" for item in items if item["file"])


#: coffee_extended as an operator runs it: a FlexBE outcome name, then the catalog's words
OPERATOR_ANSWERS = ("fail", "completed", "completed", "completed")
#: how each of its questions ends (the suggestion in brackets), also when it wraps
QUESTION = r"\[completed/failure\].*?\(completed\): "


@pytest.mark.parametrize("width", WIDTHS)
def test_operator_session_wraps_questions_and_prints_each_step(width, tmp_path):
    screen = run_in_terminal(["run", "coffee_extended", "--operator", "--quiet"], width,
                             answers=OPERATOR_ANSWERS, question=QUESTION, cwd=tmp_path)
    assert screen.code == 0, screen.text
    _fits(screen, width, typed=OPERATOR_ANSWERS)
    text = _words(screen.text)
    header = text.index("mission coffee_extended: supervisor raw")
    first_question = text.index("0_bd Detect button press [completed/failure]")
    assert header < first_question  # the header before the first question
    # each question whole (wrapped at words), with the FlexBE names it also takes
    assert text.count("[completed/failure] (FlexBE:") == len(OPERATOR_ANSWERS)
    steps = ["#0 0_bd: failure → 0_bd (operator choice)",
             "#1 0_bd: completed → 1_gr (operator choice)",
             "#2 1_gr: completed → 2_br (operator choice)",
             "#3 2_br: completed → 0_bd (operator choice)"]
    positions = [text.index(step) for step in steps]
    assert positions == sorted(positions) and positions[0] > first_question
    assert "status: goal_reached" in text
    assert "┏" not in screen.text  # the steps were printed as they ended: no table after


@pytest.mark.parametrize("width", WIDTHS)
def test_a_failed_audit_is_told_whole(width, tmp_path):
    screen = run_in_terminal(["synthesize", "two_rivers", "--liveness", "fair-outcome",
                              "--pending", "--out", tmp_path], width, cwd=tmp_path)
    assert screen.code == 1, screen.text
    _fits(screen, width)
    text = _words(screen.text)
    assert "audit FAIL: the raw strategy is not deployable: GOAL_UNREACHABLE_TRAP ×" in text
    assert "there: corn=near, farmer=near, goat=near, wolf=near, item=nothing; move pending" in text
    assert "it runs log_failed again and again, and cannot leave" in text
    # the record's path and the next command, each on one line: copied whole
    folder = tmp_path / "two_rivers" / "one-hot-FP"
    assert f"  listed in: {folder / 'audit.json'}, key 'defects'" in screen.lines
    closer = next(line for line in screen.lines if line.startswith("  look closer: "))
    assert closer.startswith("  look closer: bdi-supervisor synthesize two_rivers --liveness "
                             f"fair-outcome --pending --out {tmp_path} --draw  (")
    assert f"output: {folder}" in screen.lines
    # continuation lines of a wrapped line start further in than the line: a hanging indent
    block = screen.lines[next(k for k, line in enumerate(screen.lines)
                              if line.startswith("  e.g. ")):]
    for line in block[1:block.index(f"  listed in: {folder / 'audit.json'}, key 'defects'")]:
        assert line.startswith("    "), (line, screen.text)
