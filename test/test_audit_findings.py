"""A failed audit says what failed: each defect kind with its count, one example state in the
mission's terms, where the record lists them and the command that pictures them; for any kind
the record holds, also one this code has never heard of."""

from __future__ import annotations

import json
import shlex

import pytest

from bdi_supervisor.audit.findings import findings, kind_counts
from bdi_supervisor.cli.main import build_parser, main
from bdi_supervisor.mission import load_mission
from bdi_supervisor.synthesis import strategy as strategy_io

#: a mission whose raw strategy fails its audit (goal-unreachable traps: docs/results.md)
FAILING = ["two_rivers", "--liveness", "fair-outcome", "--pending"]


def _block(text: str) -> list[str]:
    """The lines of the failure block, from its first line on."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("audit FAIL:"))
    return lines[start:]


@pytest.mark.parametrize("encoding", ["one-hot", "enumerated"])
def test_synthesize_names_kinds_counts_an_example_the_record_and_the_next_command(
        tmp_path, capsys, encoding):
    assert main(["synthesize", *FAILING, "--encoding", encoding, "--out", str(tmp_path)]) == 1
    block = _block(capsys.readouterr().out)
    folder = tmp_path / "two_rivers" / f"{encoding}-FP"
    record = json.loads((folder / "audit.json").read_text())
    counts = record["stats"]["defect_counts"]
    assert block[0] == ("audit FAIL: the raw strategy is not deployable: "
                        + ", ".join(f"{k} ×{n}" for k, n in counts.items()))
    first = record["defects"][0]
    state = first["trace"][-1]["state"]
    assert block[1].startswith(f"  e.g. {first['kind']} at state {state}: ")
    # in the catalog's words: the labels of variable_mappings, the pending capability
    assert block[2] == "    there: corn=near, farmer=near, goat=near, wolf=near, " \
                       "item=nothing; move pending"
    assert block[3] == "    reached by: move → failure, log_failed → completed"
    # state 4 loops on itself in the strategy: the capability it repeats
    strategy = strategy_io.load(folder / "strategy.json")
    assert state in strategy.state(state).successors
    assert block[4] == "    it runs log_failed again and again, and cannot leave"
    assert block[5] == f"  listed in: {folder / 'audit.json'}, key 'defects'"
    command = block[6].removeprefix("  look closer: ").split("  (")[0]
    words = shlex.split(command)
    assert words[:2] == ["bdi-supervisor", "synthesize"] and "--draw" in words
    parsed = build_parser().parse_args(words[1:])
    assert (parsed.liveness, parsed.pending, parsed.encoding, parsed.out) == (
        "fair-outcome", True, encoding, str(tmp_path))


def test_run_refuses_and_says_why(capsys):
    assert main(["run", *FAILING]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("supervisor audit FAIL; not executing\n")
    block = _block(captured.err)
    assert block[0].startswith("audit FAIL: the raw strategy is not deployable: "
                               "GOAL_UNREACHABLE_TRAP ×")
    assert any(line.startswith("    there: ") for line in block)
    assert any("'bdi-supervisor synthesize two_rivers --liveness fair-outcome --pending' writes"
               in line for line in block)
    assert main(["run", *FAILING, "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    found = record["audit_findings"][0]
    assert found["strategy"] == "raw" and found["verdict"] == "FAIL"
    assert found["examples"][0]["runs"] == "log_failed" and found["examples"][0]["repeats"]


def test_run_from_a_folder_whose_audit_failed(tmp_path, capsys):
    assert main(["synthesize", *FAILING, "--out", str(tmp_path)]) == 1
    folder = tmp_path / "two_rivers" / "one-hot-FP"
    assert not (folder / "reduced.json").exists()
    capsys.readouterr()
    assert main(["run", "two_rivers", "--from", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"supervisor audit FAIL in {folder}; not executing\n")
    assert f"  listed in: {folder / 'audit.json'}, key 'defects'" in err


def test_a_kind_never_heard_of_is_told_the_same_way():
    """The summary is driven by the record: a kind added later needs no code here."""
    mission = load_mission("two_rivers")
    step = {"state": 3, "inputs": {"wolf": 1, "goat": 0, "corn": 0, "farmer": 1,
                                   "move_c": True},
            "outputs": {"item": 1, "move_a": True}, "label": "move_c / move"}
    record = {"verdict": "FAIL", "encoding": "one-hot",
              "defects": [{"kind": "SOMETHING_NEW", "message": "what is new", "states": [3],
                           "trace": [step]}],
              "warnings": [{"kind": "ENVIRONMENT_SUSTAINED_LIVELOCK", "message": "w",
                            "states": [1], "trace": []}],
              "stats": {"defect_counts": {"SOMETHING_NEW": 4,
                                          "ENVIRONMENT_SUSTAINED_LIVELOCK": 2}}}
    found = findings(record, "raw", mission.catalog)
    # the warnings' kind, counted in the same stats, is no defect
    assert found.counts == {"SOMETHING_NEW": 4} and found.total == 4
    (example,) = found.examples
    assert (example.kind, example.state, example.message) == ("SOMETHING_NEW", 3, "what is new")
    assert example.there == "wolf=far, goat=near, corn=near, farmer=far, item=wolf"
    assert example.path == "move → completed" and example.runs == "move"
    assert not example.repeats  # no strategy given: no claim about cycles
    bare = findings(record)  # no catalog: the record's own labels
    assert bare.examples[0].runs == "move" and bare.examples[0].there == ""


def test_counts_without_stats_come_from_the_list():
    record = {"verdict": "FAIL", "defects": [{"kind": "DEADLOCK", "message": "m"},
                                             {"kind": "B", "message": "m"},
                                             {"kind": "DEADLOCK", "message": "m"}]}
    assert kind_counts(record) == {"DEADLOCK": 2, "B": 1}
    assert [e.kind for e in findings(record).examples] == ["DEADLOCK", "B"]
