"""The command lines in a hostile environment, each as a real process: closed standard streams,
a pipe closed by its reader, a full device (``/dev/full``, a full file system, the file size
limit), an ASCII-only encoding, SIGINT and SIGTERM. Every case ends with its documented exit
code and without a traceback, and leaves no temporary file behind (``bdi_supervisor.cli.streams``,
``bdi_supervisor.interrupts``, ``bdi_supervisor.outpaths``)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from support.cli_harness import Fault, command, run_process
from support.paths import ROOT

BEER = ROOT / "config" / "ctl" / "beer.yaml"
SMALL = "[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\nb' <-> a'\n"

#: commands that print to stdout, quick ones (tool, argv)
PRINTING = {
    "missions": ("supervisor", ["missions"]),
    "help": ("supervisor", ["--help"]),
    "spec-json": ("supervisor", ["spec", "vending", "--format", "json"]),
    "solve-json": ("supervisor", ["solve", "{spec}", "--json"]),
    "run": ("supervisor", ["run", "coffee", "--seed", "1"]),
    "explain": ("supervisor", ["explain", "two_rivers_goat_stays"]),
    "check": ("monitor", ["check", BEER, "AG(bel br -> EF bb)", "AG(bel br -> AF bb)"]),
}


def _argv(argv: list, tmp_path: Path) -> list:
    spec = tmp_path / "small.structuredslugs"
    spec.write_text(SMALL)
    return [str(a).replace("{spec}", str(spec)) for a in argv]


def _leftovers(folder: Path) -> list[str]:
    """Temporary or hidden files and folders under ``folder``, and JSON files that do not parse."""
    found = []
    for path in folder.rglob("*"):
        if path.name.startswith(".") or path.name.endswith(".tmp"):
            found.append(str(path.relative_to(folder)))
        elif path.suffix in (".json", ".jsonl") and path.is_file():
            for line in (path.read_text().splitlines() if path.suffix == ".jsonl"
                         else [path.read_text()]):
                try:
                    json.loads(line)
                except ValueError:
                    found.append(f"half-written {path.relative_to(folder)}")
    return found


@pytest.mark.parametrize("name", sorted(PRINTING))
def test_pipe_closed_before_any_output_ends_quietly_with_141(tmp_path, name):
    """``| head -0``: the reader is gone before the first write."""
    tool, argv = PRINTING[name]
    outcome = run_process(tool, _argv(argv, tmp_path), Fault(stdout="cut", read=0))
    assert (outcome.code, outcome.err) == (141, "")


#: ``check`` with a failing property many times over: its counterexamples are longer than a
#: pipe's buffer (64 KiB), so the command must meet the closed pipe before it could end
#: with its verdict (a short output fits the buffer and ends with exit 1, as any filter does)
LONG_CHECK = ("monitor", ["check", BEER, *["AG(bel br -> AF bb)"] * 120])


@pytest.mark.parametrize("name", ["missions", "spec-json", "check"])
def test_pipe_closed_after_some_output_is_not_a_verdict(tmp_path, name):
    """``| head -c 10``: the output is cut short, never exit 1 (a negative verdict)."""
    tool, argv = LONG_CHECK if name == "check" else PRINTING[name]
    outcome = run_process(tool, _argv(argv, tmp_path), Fault(stdout="cut", read=10))
    assert outcome.code in (0, 141) and outcome.err == "", outcome
    assert len(outcome.out) == 10


def test_run_cut_by_head_is_141_not_a_negative_verdict(tmp_path):
    """``run two_rivers | head -2`` used to end with rich's exit 1: the README's "mission
    failed". The run's timeline is longer than the pipe's buffer once the reader is gone."""
    outcome = run_process("supervisor", ["run", "two_rivers", "--seed", "3"],
                          Fault(stdout="cut", read=0))
    assert (outcome.code, outcome.err) == (141, "")


@pytest.mark.parametrize("name", ["missions", "spec-json", "solve-json", "check", "explain"])
def test_stdout_on_a_full_device(tmp_path, name):
    tool, argv = PRINTING[name]
    outcome = run_process(tool, _argv(argv, tmp_path), Fault(stdout="full"))
    assert outcome.code == 2 and not outcome.traceback, outcome
    assert outcome.err == "error: no space left on /dev/full (standard output)\n"


@pytest.mark.parametrize("closed", [(0,), (1,), (2,), (0, 1, 2)])
def test_closed_standard_streams(tmp_path, closed):
    """``<&-``, ``>&-``, ``2>&-``: input reads as empty, output is discarded, and a file the
    command writes never takes the place of a closed descriptor."""
    target = tmp_path / "spec.structuredslugs"
    outcome = run_process("supervisor", ["spec", "vending", "-o", target], Fault(closed=closed))
    assert outcome.code == 0 and not outcome.traceback, outcome
    expected = run_process("supervisor", ["spec", "vending"]).out
    assert target.read_text() == expected
    outcome = run_process("supervisor", ["run", "coffee", "--seed", "1", "--operator"],
                          Fault(closed=closed))
    assert outcome.code == 0 and not outcome.traceback, outcome
    if 1 not in closed:
        assert "goal_reached" in outcome.out


def test_closed_stderr_bad_input_still_exits_2(tmp_path):
    outcome = run_process("supervisor", ["spec", tmp_path / "missing.yaml"], Fault(closed=(2,)))
    assert outcome.code == 2


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"},
                                 {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                                  "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}],
                         ids=["PYTHONIOENCODING=ascii", "C-locale"])
def test_ascii_streams_get_ascii_symbols(tmp_path, env):
    fault = Fault(env=env)
    outcome = run_process("supervisor", ["run", "coffee", "--seed", "1"], fault)
    assert outcome.code == 0 and not outcome.traceback, outcome
    assert "raw 4 -> reduced 3 -> realized 3 states" in outcome.out
    outcome = run_process("monitor", ["check", BEER, "AG(bel br -> AF bb)"], fault)
    assert outcome.code == 1 and not outcome.traceback, outcome
    assert outcome.out.isascii()
    outcome = run_process("supervisor", ["explain", "two_rivers_goat_stays"], fault)
    assert outcome.code == 1 and not outcome.traceback, outcome
    assert outcome.out.isascii() and "goat-stays-calm" in outcome.out
    outcome = run_process("monitor", ["grid", "--help"], fault)
    assert outcome.code == 0 and outcome.out.isascii() and "the nxn grid" in outcome.out


#: a synthesis of minutes (the quadcopter's one-hot Fair-Outcome + pending over all states),
#: stopped by a signal
SLOW = ["synthesize", "quadcopter_crazyflie", "--encoding", "one-hot", "--liveness",
        "fair-outcome", "--pending", "--all-states", "--out"]


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_signals_end_with_their_code_and_remove_temporary_files(tmp_path, signum, code):
    out = tmp_path / "out"
    outcome = run_process("supervisor", [*SLOW, out], Fault(signal=signum, after=2.0))
    assert outcome.code == code and not outcome.traceback, outcome
    assert outcome.err.strip().splitlines()[-1] in ("terminated", "interrupted")
    assert _leftovers(tmp_path) == []


def _limited_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _run_limited(argv: list, limit: int, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command("supervisor", argv), cwd=cwd, capture_output=True, text=True,
                          preexec_fn=_limited_file_size(limit), timeout=120)


@pytest.mark.parametrize("argv,target", [
    (["spec", "vending", "-o", "spec.structuredslugs"], "spec.structuredslugs"),
    (["synthesize", "coffee", "--out", "out"], "out/coffee/one-hot-SP/"),
    (["run", "coffee", "--seed", "1", "--bdi-log", "log.jsonl"], "log.jsonl"),
], ids=["spec -o", "synthesize", "run --bdi-log"])
def test_file_size_limit_is_reported_and_nothing_is_half_written(tmp_path, argv, target):
    """The system's file size limit stands in for a full disk (the write fails part-way)."""
    result = _run_limited(argv, 1500, tmp_path)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: file too large: {target}"), result.stderr
    assert _leftovers(tmp_path) == []
    if target == "spec.structuredslugs":
        assert not (tmp_path / target).exists()


def _tiny_filesystem() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c",
                            "mount -t tmpfs -o size=4k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _tiny_filesystem(),
                    reason="cannot mount a small tmpfs in a user namespace here (unshare -rm)")
@pytest.mark.parametrize("argv", [["spec", "beer_robot", "-o", "{mnt}/spec.structuredslugs"],
                                  ["synthesize", "vending", "--out", "{mnt}/out"],
                                  ["sweep", "ci_small", "--out", "{mnt}/sweep", "--workers",
                                   "1"]],
                         ids=["spec -o", "synthesize", "sweep"])
def test_full_file_system(tmp_path, argv):
    """A 4 KiB tmpfs: ``no space left on <file>``, exit 2, nothing half-written."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    line = " ".join(f"'{a}'" for a in command("supervisor", [
        a.replace("{mnt}", str(mnt)) for a in argv]))
    script = f"mount -t tmpfs -o size=4k tmpfs '{mnt}' && {line}; code=$?; " \
             f"cp -a '{mnt}' '{tmp_path}/copy'; exit $code"
    result = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                            text=True, timeout=300, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    assert "error: no space left on " + str(mnt) in result.stderr, result.stderr
    assert _leftovers(tmp_path / "copy") == []


def test_sigterm_stops_a_sweep_and_its_running_trial_at_once(tmp_path):
    """The pool's running trial is stopped with the sweep (it used to run to its end, 20 s and
    more, before the sweep could exit); its row is not written, so a rerun runs it again. The
    trial, the quadcopter's one-hot Fair-Outcome + pending synthesis over all states, takes
    minutes."""
    import time

    from support.paths import MISSIONS

    mission = tmp_path / "quadcopter.yaml"
    text = (MISSIONS / "quadcopter_crazyflie.yaml").read_text()
    mission.write_text(text.replace("catalog: ../", f"catalog: {MISSIONS.parent}/")
                       .replace("  pending: true\n", "  pending: true\n  reachable: false\n", 1))
    sweep = tmp_path / "slow.yaml"
    sweep.write_text(f"name: slow\nmissions: [{mission}]\n"
                     "encoding: [one-hot]\nliveness: [fair-outcome]\npending: [true]\n"
                     "budgets: {time_s: 300}\n")
    out = tmp_path / "out"
    started = time.monotonic()
    outcome = run_process("supervisor", ["sweep", sweep, "--out", out, "--workers", "1",
                                         "--quiet"], Fault(signal=signal.SIGTERM, after=4.0))
    assert outcome.code == 143 and not outcome.traceback, outcome
    assert time.monotonic() - started < 30
    assert (out / "results.jsonl").read_text() == ""
    assert _leftovers(tmp_path) == []


def test_an_interrupt_wrapped_by_a_library_is_still_an_interrupt(monkeypatch, capsys):
    """SIGTERM during a class body (a matplotlib import) reaches the command as a RuntimeError
    caused by it: the command still ends with 143, not a traceback."""
    from bdi_supervisor import interrupts
    from bdi_supervisor.cli import missions
    from bdi_supervisor.cli.main import main

    def wrapped(args):
        try:
            raise interrupts.Terminated()
        except interrupts.Terminated as stop:
            raise RuntimeError("Error calling __set_name__") from stop

    monkeypatch.setattr(missions, "run", wrapped)
    assert main(["missions"]) == 143
    assert capsys.readouterr().err == "terminated\n"

    def plain_bug(args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(missions, "run", plain_bug)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["missions"])
