"""The liveness comparison of a sweep against a verdict reference (sweep/verdicts.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bdi_supervisor.errors import InputError
from bdi_supervisor.sweep import verdicts as v
from bdi_supervisor.sweep.grid import load_sweep
from bdi_supervisor.yamlsource import parse_yaml

SWEEPS = Path(__file__).resolve().parents[1] / "config" / "sweeps"


def row(mission="m", config="one-hot-S", **fields):
    base = {"mission_name": mission, "config": config, "status": "OK",
            "synthesis.status": "REALIZABLE", "audit.status": "PASS", "audit.raw_defects": "",
            "realize.status": "OK"}
    base.update(fields)
    return base


@pytest.mark.parametrize("fields, verdict", [
    ({}, v.REALIZED),
    ({"execute.status": "OK"}, v.REALIZED),
    ({"execute.status": "FAILED"}, v.NOT_EXECUTABLE),
    ({"synthesis.status": "UNREALIZABLE"}, v.UNREALIZABLE),
    ({"synthesis.status": "INCOMPLETE"}, v.INCOMPLETE),
    ({"audit.status": "FAIL", "audit.raw_defects": "GOAL_UNREACHABLE_TRAP"}, v.TRAP),
    ({"audit.status": "FAIL", "audit.raw_defects": "DEADLOCK"}, v.AUDIT_FAIL),
    ({"audit.status": "INCOMPLETE"}, v.INCOMPLETE),
    ({"realize.status": "FAILED"}, v.NOT_REALIZED),
    ({"status": "ERROR"}, v.ERROR),
])
def test_a_row_reads_as_one_verdict(fields, verdict):
    assert v.verdict_of(row(**fields)) == verdict


def test_not_realized_agrees_with_every_failure_but_not_with_realized():
    assert all(v.agrees(ours, v.NOT_REALIZED) for ours in v.VERDICTS if ours != v.REALIZED)
    assert not v.agrees(v.REALIZED, v.NOT_REALIZED)
    assert v.agrees(v.TRAP, v.TRAP) and not v.agrees(v.REALIZED, v.TRAP)


REFERENCE = """
source: a paper
case_studies:
  m: {label: M, verdicts: {S: realized, FP: trap, one-hot-F: unrealizable}}
notes:
  m/FP: why FP
  m/enumerated-F: why enumerated F
"""


def test_reference_cells_and_the_table():
    reference = v.reference_from_doc(parse_yaml(REFERENCE, "ref.yaml"))
    assert reference.verdict("m", "enumerated", "S") == v.REALIZED
    assert reference.verdict("m", "one-hot", "F") == v.UNREALIZABLE
    assert reference.verdict("m", "enumerated", "F") is None
    rows = [row(), row(config="enumerated-S"),
            row(config="one-hot-FP", **{"audit.status": "FAIL",
                                        "audit.raw_defects": "GOAL_UNREACHABLE_TRAP"}),
            row(config="enumerated-FP"),
            row(config="one-hot-F", **{"synthesis.status": "UNREALIZABLE"}),
            row(config="enumerated-F", **{"synthesis.status": "UNREALIZABLE"}),
            row(mission="other")]
    table = v.comparison_table(rows, reference)
    lines = table.splitlines()
    assert lines[2].startswith("| M (`m`) | one-hot | realized / realized ✓ |")
    assert "trap / trap ✓ [1]" in lines[2] and "unrealizable / unrealizable ✓" in lines[2]
    assert "realized / trap ✗ [1]" in lines[3] and "unrealizable [2]" in lines[3]
    assert lines[4].startswith("| `other` | one-hot | realized |")
    assert "1. why FP" in table and "2. why enumerated F" in table
    assert v.disagreements(rows, reference) == [("m", "enumerated", "FP", v.REALIZED, v.TRAP)]


def test_trials_of_one_cell_that_differ_are_counted():
    rows = [row(), row(**{"synthesis.status": "UNREALIZABLE"}), row()]
    assert v.summarize(rows)[("m", "one-hot", "S")] == "realized×2, unrealizable×1"


@pytest.mark.parametrize("text, key", [
    ("case_studies: {m: {verdicts: {X: realized}}}", "case_studies.m.verdicts.X"),
    ("case_studies: {m: {verdicts: {S: great}}}", "case_studies.m.verdicts.S"),
    ("case_studies: {m: {verdicts: {S: realized}, extra: 1}}", "case_studies.m"),
    ("case_studies: {}\nnotes: {m/Q: x}", "notes.m/Q"),
    ("source: a", ""),
    ("case_studies: {m: {verdicts: {}, well_separation: {F: separated}}}",
     "case_studies.m.well_separation.F"),
    ("case_studies: {m: {verdicts: {}, stated: {F: [a]}}}", "case_studies.m.stated.F"),
    ("case_studies: {m: {verdicts: {}, modellings: {n: 1}}}", "case_studies.m.modellings.n"),
    ("case_studies: {m: {verdicts: {}, modellings: {n: a}}, k: {verdicts: {}, "
     "modellings: {n: b}}}", "case_studies.k.modellings.n"),
    ("case_studies: {m: {verdicts: {}}, k: {verdicts: {}, modellings: {m: b}}}",
     "case_studies.k.modellings.m"),
])
def test_a_bad_reference_names_the_key(text, key):
    with pytest.raises(InputError) as error:
        v.reference_from_doc(parse_yaml(text, "ref.yaml"))
    assert "ref.yaml" in str(error.value) and key in str(error.value)


def test_the_paper_sweep_executes_and_compares_with_the_paper():
    sweep = load_sweep(SWEEPS / "paper.yaml")
    assert sweep.compare == str((SWEEPS / "paper_verdicts.yaml").resolve())
    assert all(t.execute for t in sweep.trials)
    reference = v.load_reference(sweep.compare)
    missions = {Path(t.mission).stem for t in sweep.trials}
    studied = {m for s in reference.case_studies.values() for m in (s.mission, *s.modellings)}
    assert studied <= missions  # both modellings of each case study are swept
    # every stated cell has a configuration in the grid, and says where the paper states it
    configs = {(Path(t.mission).stem, t.config) for t in sweep.trials}
    for mission, study in reference.case_studies.items():
        for encoding, config in {*study.verdicts, *study.separation}:
            assert (mission, f"{encoding}-{config}") in configs
            assert re.search(r"Table \d+|App\. [D-F]|§\d|§[D-F]",
                             study.stated[(encoding, config)]), (mission, encoding, config)


def _pinned_rows() -> list[dict]:
    """One sweep row per shipped mission and cell, read off the pinned verdict table
    (test/support/expected_verdicts.py, which test_verdicts.py checks against the pipeline)."""
    from support.expected_verdicts import CONFIGS, ENCODINGS, EXPECTED, GROUPS

    rows = []
    for group, cells in EXPECTED.items():
        for encoding in ENCODINGS:
            for config, cell in zip(CONFIGS, cells[encoding]):
                rows.append({
                    "mission_name": GROUPS[group][0], "config": f"{encoding}-{config}",
                    "status": "OK", "synthesis.status": cell.synthesis,
                    "well_separation.status": cell.separation,
                    "audit.status": cell.audit or "skipped",
                    "audit.raw_defects": ", ".join(cell.defects),
                    "realize.status": "OK" if cell.audit == "PASS" else "skipped",
                    "execute.status": "OK" if cell.executable else "FAILED"})
    return rows


def test_every_difference_from_the_paper_is_explained():
    """Our pinned verdicts against the paper's cells: every cell where the verdict or the
    well-separation diagnosis differs (✗) has a note, and the notes name the cells they
    explain by the same mark."""
    reference = v.load_reference(SWEEPS / "paper_verdicts.yaml")
    rows = _pinned_rows()
    ours, seps = v.summarize(rows), v.separations(rows)
    differing = []
    for key, mine in ours.items():
        theirs, sep = reference.verdict(*key), reference.separation(*key)
        if (theirs and not v.agrees(mine, theirs)) or (sep and seps[key] != sep):
            differing.append(key)
            assert reference.note(*key), f"no note for {key}"
    table = v.comparison_table(rows, reference)
    assert table.count("✗") >= len(differing) > 0
    # the cells the paper states and both of our modellings: the logging rule decides FP
    assert ours[("two_rivers", "one-hot", "FP")] == v.TRAP
    assert ours[("two_rivers_reference", "one-hot", "FP")] == v.REALIZED
    assert reference.verdict("two_rivers_reference", "one-hot", "FP") == v.REALIZED


def test_modellings_are_compared_with_their_case_study():
    reference = v.reference_from_doc(parse_yaml(
        "case_studies:\n  m: {label: M, modellings: {m_ref: another rule}, verdicts: {FP: trap},"
        " well_separation: {FP: not well-separated}}\n", "ref.yaml"))
    rows = [row(mission="m_ref", config="one-hot-FP",
                **{"well_separation.status": "NON_WELL_SEPARATED"}),
            row(mission="m", config="one-hot-FP",
                **{"audit.status": "FAIL", "audit.raw_defects": "GOAL_UNREACHABLE_TRAP",
                   "well_separation.status": "WELL_SEPARATED"})]
    lines = v.comparison_table(rows, reference).splitlines()
    assert lines[2].startswith("| M (`m`) | one-hot |")
    assert "trap / trap ✓<br>WS / NWS ✗" in lines[2]
    assert lines[3].startswith("| M (`m_ref`, another rule) | one-hot |")
    assert "realized / trap ✗<br>NWS / NWS ✓" in lines[3]
    assert v.disagreements(rows, reference) == [("m_ref", "one-hot", "FP", v.REALIZED, v.TRAP)]


def _trial_row(trial) -> dict:
    """A realized row of a two_rivers trial, with its key and mission file as a sweep writes
    them."""
    return {**row(mission="two_rivers", config=trial.config), "key": trial.key,
            "mission": trial.mission}


def test_a_partial_sweep_says_what_ran_and_compares_only_that(tmp_path):
    """Trials not yet run read *not run* and are not compared; the report says N of M."""
    from bdi_supervisor.sweep.report import write_reports

    sweep = load_sweep(SWEEPS / "paper.yaml")
    trials = [t for t in sweep.trials if Path(t.mission).stem == "two_rivers"]
    done = [t for t in trials if t.liveness == "system-goal"]
    rows = [_trial_row(t)
            for t in done]
    planned = v.planned_cells(trials, rows)
    assert sum(planned.values()) == len(trials) == 8
    table = v.comparison_table(rows, v.load_reference(sweep.compare), planned)
    assert table.startswith(f"**{len(done)} of {len(trials)} trials ran**")
    line = next(x for x in table.splitlines() if "| one-hot |" in x)
    cells = [c.strip() for c in line.split("|")[3:7]]
    assert cells[0].startswith("realized / realized ✓") and cells[1].startswith("realized")
    assert cells[2:] == [v.NOT_RUN, v.NOT_RUN]  # F and FP: no ✓ or ✗, no note
    files = write_reports(rows, tmp_path, "paper", sweep.compare, trials)
    text = {f.name: f.read_text() for f in files if f.suffix == ".md"}
    assert text["paper.md"].startswith(f"**{len(done)} of {len(trials)} trials ran.** Not run: "
                                       "two_rivers enumerated-F, two_rivers enumerated-FP")
    assert "The cells as the reference states them" in text["paper_verdicts.md"]
    full = [_trial_row(t)
            for t in trials]
    assert v.comparison_table(full, None, v.planned_cells(trials, full)).startswith(
        "All 8 trials of the sweep ran.")


def test_execute_enters_a_trials_key_only_when_set():
    """Sweeps without ``execute`` keep the trial keys they had, so their results resume."""
    import dataclasses
    import hashlib
    import json

    trial = load_sweep(SWEEPS / "ci_small.yaml").trials[0]
    params = {k: val for k, val in trial.params.items() if k != "execute"}
    params["mission"] = Path(trial.mission).name
    text = json.dumps(params, sort_keys=True, separators=(",", ":"))
    assert trial.key == hashlib.sha256(text.encode()).hexdigest()[:16]
    assert dataclasses.replace(trial, execute=True).key != trial.key


def test_the_plot_labels_unrealizable_cells(tmp_path, monkeypatch):
    """A configuration with no strategy has no bars: the states chart says it is unrealizable
    there (and only there); one whose audit failed has only its raw bar: the chart says so."""
    plt = pytest.importorskip("matplotlib.pyplot", reason="the plot needs matplotlib (reports)")
    from bdi_supervisor.sweep.report import plot

    kept = []
    monkeypatch.setattr(plt, "close", kept.append)  # keep the figure to look at
    rows = [row(config="one-hot-S", **{"synthesis.metrics.strategy_states": 5,
                                       "synthesis.metrics.peak_nodes": 100}),
            row(config="one-hot-F", **{"synthesis.status": "UNREALIZABLE",
                                       "synthesis.metrics.peak_nodes": 80}),
            row(config="one-hot-FP", **{"synthesis.metrics.strategy_states": 7,
                                        "synthesis.metrics.peak_nodes": 90,
                                        "audit.status": "FAIL"}),
            row(config="one-hot-FP", **{"synthesis.status": "INCOMPLETE", "audit.status": None})]
    assert plot(rows, tmp_path / "p.png") == tmp_path / "p.png"
    nodes, states = kept[0].axes
    labels = [t.get_text() for t in states.texts]
    assert labels == ["unrealizable", "audit FAIL"] and not nodes.texts
    ticks = [t.get_text() for t in states.get_xticklabels()]
    assert ticks[round(states.texts[0].get_position()[0])].startswith("one-hot-F ")
    assert ticks[round(states.texts[1].get_position()[0])].startswith("one-hot-FP")
