"""The same sweep on the local process pool and on a local Dask cluster gives the same table
(timing columns excluded); the CLI resumes and reports."""

from __future__ import annotations

import pytest
from support.paths import ROOT

from bdi_supervisor.cli.main import main
from bdi_supervisor.sweep.backends import DaskBackend, LocalBackend
from bdi_supervisor.sweep.grid import load_sweep
from bdi_supervisor.sweep.report import COLUMNS, markdown_table
from bdi_supervisor.sweep.runner import RESULTS_FILE, run_sweep
from bdi_supervisor.sweep.store import read_rows

COFFEE = ROOT / "config" / "missions" / "coffee.yaml"
SWEEP = (f"name: tiny\nmissions: [{COFFEE}]\nencoding: [one-hot, enumerated]\n"
         "liveness: [system-goal, fair-outcome]\ndeclaration_order: random\nseeds: [0, 1]\n"
         "budgets: {time_s: 30}\n")


@pytest.fixture
def sweep_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(SWEEP)
    return path


def test_local_pool_and_dask_cluster_give_the_same_table(sweep_file, tmp_path):
    distributed = pytest.importorskip("distributed")
    sweep = load_sweep(sweep_file)
    local = run_sweep(sweep, tmp_path / "local", LocalBackend(2), show_progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        dask = run_sweep(sweep, tmp_path / "dask", DaskBackend(client), show_progress=False)
    assert local.ran == dask.ran == len(sweep.trials) == 8 and local.errors == dask.errors == 0
    a, b = read_rows(local.results), read_rows(dask.results)
    assert {r["synthesis.status"] for r in a} == {"REALIZABLE"}
    assert len({r["pid"] for r in a}) == len(a)  # one process per trial on the local pool
    assert markdown_table(a, timing=False) == markdown_table(b, timing=False)
    # per trial too, on every table column (CUDD's final live-node count depends on when its
    # garbage collector last ran, so not every metric is a function of the parameters)
    sources = [c.source for c in COLUMNS if c.source and not c.timing]
    per_trial = [{r["key"]: [r.get(s) for s in sources] for r in rows} for rows in (a, b)]
    assert per_trial[0] == per_trial[1]
    assert "peak BDD nodes" in markdown_table(a)


def test_cli_resumes_after_a_truncated_results_file_and_reports(sweep_file, tmp_path):
    out = tmp_path / "out"
    args = ["sweep", str(sweep_file), "--out", str(out), "--workers", "2", "--quiet"]
    assert main(args) == 0
    results = out / RESULTS_FILE
    full = read_rows(results)
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:5]) + lines[5][:40])  # killed while writing row 6
    assert main([*args, "--report"]) == 0
    rows = read_rows(results)
    assert len(rows) == 8
    assert sorted(r["key"] for r in rows) == sorted(r["key"] for r in full)
    kept = {r["key"]: r["pid"] for r in full[:5]}
    assert all(r["pid"] == kept[r["key"]] for r in rows if r["key"] in kept)
    assert {r["pid"] for r in rows[5:]}.isdisjoint(kept.values())  # only the missing ran again
    for suffix in ("csv", "md"):
        assert (out / f"tiny.{suffix}").stat().st_size > 0
    assert "coffee" in (out / "tiny.md").read_text()


def test_cli_bad_sweep_file_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(f"missions: [{COFFEE}]\nencoding: [hex]\n")
    assert main(["sweep", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "encoding[0]" in capsys.readouterr().err


@pytest.mark.parametrize("address", ["not a url", "http://127.0.0.1:80", "tcp://host",
                                     "tcp://127.0.0.1:99999"])
def test_cli_bad_scheduler_address_exits_2_saying_what_one_looks_like(sweep_file, tmp_path,
                                                                     capsys, address):
    assert main(["sweep", str(sweep_file), "--out", str(tmp_path / "o"), "--scheduler",
                 address]) == 2
    err = capsys.readouterr().err
    assert "--scheduler" in err and "tcp://HOST:PORT" in err and "Traceback" not in err


def test_cli_empty_scheduler_address_is_a_usage_error(sweep_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["sweep", str(sweep_file), "--out", str(tmp_path / "o"), "--scheduler", ""])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--scheduler" in err and "empty value" in err
    assert "Traceback" not in err


def test_cli_from_a_deleted_working_folder_exits_2(sweep_file, tmp_path):
    import subprocess
    import sys

    gone = tmp_path / "gone"
    gone.mkdir()
    script = (f"import os, sys\nos.chdir({str(gone)!r})\nos.rmdir({str(gone)!r})\n"
              "from bdi_supervisor.cli.main import main\n"
              f"sys.exit(main(['sweep', {str(sweep_file)!r}, '--workers', '1']))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: the current folder no longer exists")


def test_report_without_matplotlib_names_the_extra(sweep_file, tmp_path, capsys, monkeypatch):
    import importlib.util

    out = tmp_path / "out"
    assert main(["sweep", str(sweep_file), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    real = importlib.util.find_spec
    missing = set()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a, **k: None
                        if name in missing else real(name, *a, **k))
    monkeypatch.setattr("bdi_supervisor.sweep.report.write_parquet", lambda rows, path: None)
    capsys.readouterr()
    missing.add("pyarrow")  # the Parquet copy is optional: not missed, not mentioned
    assert main(["sweep", str(sweep_file), "--out", str(out), "--report-only"]) == 0
    assert "not written" not in capsys.readouterr().err
    missing.add("matplotlib")
    monkeypatch.setattr("bdi_supervisor.sweep.report.plot", lambda rows, path: None)
    assert main(["sweep", str(sweep_file), "--out", str(out), "--report-only"]) == 0
    err = capsys.readouterr().err
    assert "the .png plot not written: matplotlib not installed; " \
           "pip install 'bdi_supervisor[reports]'" in err and "parquet" not in err


def _slow_trial(item: dict) -> dict:
    import time

    time.sleep(item["seconds"])
    return item


def test_a_stopped_pool_ends_its_manager_without_an_error(monkeypatch):
    """The caller stops taking results (the store met a full disk) while a trial runs and more
    wait: the pool's manager fails the waiting ones and ends. It used to die with
    InvalidStateError on a future cancelled before it did (Python 3.11), printed as a
    traceback."""
    import threading
    import time

    errors = []
    monkeypatch.setattr(threading, "excepthook", errors.append)
    items = [{"seconds": 0}] + [{"seconds": 30}] * 6
    results = LocalBackend(1).map_unordered(_slow_trial, items)
    started = time.monotonic()
    assert next(results) == ({"seconds": 0}, {"seconds": 0})
    time.sleep(1.0)  # the second trial is running, the others wait
    results.close()
    assert time.monotonic() - started < 20
    assert [repr(e.exc_value) for e in errors] == []
