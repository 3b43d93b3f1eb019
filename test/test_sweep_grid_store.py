"""Sweep files, the results store and the resume logic of the driver (no synthesis needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import ROOT

from bdi_supervisor.errors import InputError
from bdi_supervisor.sweep.backends import SerialBackend
from bdi_supervisor.sweep.grid import load_sweep
from bdi_supervisor.sweep.report import markdown_table, to_csv
from bdi_supervisor.sweep.runner import RESULTS_FILE, run_sweep
from bdi_supervisor.sweep.store import ResultStore, read_rows

COFFEE = ROOT / "config" / "missions" / "coffee.yaml"


def write_sweep(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(f"missions: [{COFFEE}]\n" + body)
    return path


def test_grid_expands_the_product_with_distinct_stable_keys(tmp_path):
    path = write_sweep(tmp_path,
                       "encoding: [one-hot, enumerated]\nliveness: [system-goal, fair-outcome]\n"
                                 "pending: [true, false]\nseeds: [0, 1, 2]\nrepeats: 2\n"
                                 "reordering: [true, {enabled: true, threshold: 1000}]\n")
    sweep = load_sweep(path)
    assert len(sweep.trials) == 2 * 2 * 2 * 3 * 2 * 2
    keys = [t.key for t in sweep.trials]
    assert len(set(keys)) == len(keys)
    assert keys == [t.key for t in load_sweep(path).trials]
    assert {t.config for t in sweep.trials} == {
        f"{e}-{lv}{p}" for e in ("one-hot", "enumerated") for lv in "SF" for p in ("", "P")}


@pytest.mark.parametrize("body, key", [
    ("encoding: [one-hot, binary]\n", "encoding[1]"),
    ("seeds: [0, x]\n", "seeds[1]"),
    ("repeats: 0\n", "repeats"),
    ("budgets: {time: 3}\n", "budgets.time"),
    ("reordering: [{enabled: true, threshold: -5}]\n", "reordering[0].threshold"),
    ("colour: red\n", "colour"),
])
def test_bad_sweep_files_name_the_key(tmp_path, body, key):
    with pytest.raises(InputError) as error:
        load_sweep(write_sweep(tmp_path, body))
    assert error.value.key == key
    assert error.value.line is not None


def test_missing_mission_file_is_an_input_error(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("missions: [nowhere.yaml]\n")
    with pytest.raises(InputError, match="mission file not found"):
        load_sweep(path)


def test_store_drops_a_torn_last_line(tmp_path):
    path = tmp_path / RESULTS_FILE
    path.write_text(json.dumps({"key": "a"}) + "\n" + '{"key": "b", "x"')
    assert [r["key"] for r in read_rows(path)] == ["a"]
    with ResultStore(path) as store:
        assert store.done == {"a"}
        store.append({"key": "c"})
    assert [r["key"] for r in read_rows(path)] == ["a", "c"]
    assert path.read_text().count("\n") == 2


def fake_trial(params: dict) -> dict:
    """Deterministic stand-in for a trial: a row built from the parameters alone."""
    from bdi_supervisor.sweep.grid import Trial

    trial = Trial(**params)
    return {"key": trial.key, "config": trial.config, "mission_name": "coffee", **params,
            "status": "OK", "spec.inputs": 3, "synthesis.status": "REALIZABLE",
            "synthesis.metrics.peak_nodes": 100 + params["seed"],
            "synthesis.metrics.realizability_seconds": 0.001}


class Interrupt(Exception):
    pass


def test_interrupted_sweep_reruns_only_the_missing_trials(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path, "encoding: [one-hot, enumerated]\nseeds: [0, 1, 2]\n"))
    out = tmp_path / "out"
    calls: list[str] = []

    def dying(params):
        if len(calls) == 4:
            raise Interrupt  # the sweep process dies after four trials
        calls.append(params["encoding"] + str(params["seed"]))
        return fake_trial(params)

    with pytest.raises(Interrupt):
        run_sweep(sweep, out, SerialBackend(), job=dying, show_progress=False)
    results = out / RESULTS_FILE
    # ... and the fourth row was only half written when it died
    text = results.read_text().splitlines(keepends=True)
    results.write_text("".join(text[:3]) + text[3][:25])
    finished = {r["key"] for r in read_rows(results)}
    assert len(finished) == 3

    rerun: list[str] = []

    def counting(params):
        row = fake_trial(params)
        rerun.append(row["key"])
        return row

    outcome = run_sweep(sweep, out, SerialBackend(), job=counting, show_progress=False)
    assert sorted(rerun) == sorted(t.key for t in sweep.trials if t.key not in finished)
    assert (outcome.skipped, outcome.ran) == (3, 3)
    rows = read_rows(results)
    assert sorted(r["key"] for r in rows) == sorted(t.key for t in sweep.trials)
    again = run_sweep(sweep, out, SerialBackend(), job=counting, show_progress=False)
    assert again.ran == 0 and len(rerun) == 3


def test_table_aggregates_seeds_and_hides_timing_on_request(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path, "seeds: [0, 1, 2]\n"))
    rows = [fake_trial(t.params) for t in sweep.trials]
    table = markdown_table(rows)
    assert "101.0 ± 1.0" in table and "realizability ms" in table
    assert "realizability ms" not in markdown_table(rows, timing=False)
    assert "realizability_seconds" not in to_csv(rows, timing=False).splitlines()[0]


def test_the_acceptance_counts_are_columns_where_trials_executed(tmp_path):
    """``execute.run_failures`` / ``execute.run_recoveries`` (a sweep with ``execute``) are
    table columns, mean over the trials; a sweep without them has no such columns."""
    sweep = load_sweep(write_sweep(tmp_path, "seeds: [0, 1]\n"))
    rows = [fake_trial(t.params) for t in sweep.trials]
    assert "acceptance failures" not in markdown_table(rows)
    for count, row in enumerate(rows):
        row.update({"execute.run_failures": 2 + 2 * count, "execute.run_recoveries": 2})
    line = next(x for x in markdown_table(rows).splitlines() if x.startswith("| one-hot-"))
    header = next(x for x in markdown_table(rows).splitlines() if x.startswith("| config"))
    assert header.rstrip(" |").endswith("acceptance failures | recovered")
    assert line.rstrip(" |").endswith("3.0 ± 1.4 | 2")


def test_a_second_sweep_on_the_same_folder_is_refused(tmp_path):
    """The results file is locked while a sweep writes it: a second sweep (here another
    process holding the lock) is refused with a message naming the folder, and runs nothing."""
    import subprocess
    import sys
    import time

    sweep = load_sweep(write_sweep(tmp_path, "seeds: [0, 1]\n"))
    out = tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom bdi_supervisor.sweep.store import ResultStore\n"
        f"with ResultStore({str(out / RESULTS_FILE)!r}):\n"
        "    print('locked', flush=True)\n    time.sleep(60)\n")], stdout=subprocess.PIPE,
        text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        ran: list[str] = []
        with pytest.raises(InputError, match="another sweep is writing to this results folder"):
            run_sweep(sweep, out, SerialBackend(), job=lambda p: ran.append(p) or fake_trial(p),
                      show_progress=False)
        assert ran == []
    finally:
        holder.kill()
        holder.wait()
    started = time.monotonic()
    outcome = run_sweep(sweep, out, SerialBackend(), job=fake_trial, show_progress=False)
    assert outcome.ran == 2 and time.monotonic() - started < 30  # the lock died with its holder


def test_report_rows_count_each_trial_once(tmp_path):
    """A results file that holds a trial twice (two sweeps before the lock) is reported with
    one row per trial."""
    from bdi_supervisor.sweep.store import unique_rows

    sweep = load_sweep(write_sweep(tmp_path, "seeds: [0, 1, 2]\n"))
    rows = [fake_trial(t.params) for t in sweep.trials]
    doubled = rows + [dict(r, pid=1) for r in rows] + [{"key": "another-sweep"}]
    unique = unique_rows(doubled, {t.key for t in sweep.trials})
    assert unique == rows
    assert markdown_table(unique) == markdown_table(rows)
