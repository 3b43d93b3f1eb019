"""Output paths: no user-given name leaves the output folder; a bad ``-o`` /
``--out`` / ``--bdi-log`` is refused before any work (exit 2, nothing written, no device or link
replaced or followed); written files and folders follow the umask; ``realize`` onto a
``behavior`` that is a file leaves everything as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support.cli_harness import run_cli, snapshot
from support.paths import ROOT

from bdi_supervisor import outpaths
from bdi_supervisor.errors import InputError

MISSIONS = ROOT / "config" / "missions"
VENDING = MISSIONS / "vending.yaml"
SPEC = "[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\nb' <-> a'\n"
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def refused(outcome, *words: str) -> None:
    assert not outcome.traceback, outcome.crash or outcome.err
    assert outcome.code == 2, (outcome.code, outcome.out[-500:], outcome.err)
    for word in words:
        assert word in outcome.err, outcome.err


@pytest.fixture
def no_synthesis(monkeypatch):
    """Synthesis must not start: the checks come first."""
    import bdi_supervisor.synthesis.synthesize as module

    def forbidden(*args, **kwargs):
        raise AssertionError("synthesis started before the output path was checked")

    monkeypatch.setattr(module, "synthesize", forbidden)


def _targets(tmp_path: Path) -> dict[str, Path]:
    """A folder, a FIFO, links to a file and to a device, a missing folder, a file as folder."""
    (tmp_path / "folder").mkdir()
    real = tmp_path / "real.txt"
    real.write_text("keep me\n")
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "devlink").symlink_to("/dev/null")
    found = {"folder": tmp_path / "folder", "link": tmp_path / "link",
             "device link": tmp_path / "devlink", "missing parent": tmp_path / "nope" / "x.out",
             "file as parent": real / "x.out"}
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        found["fifo"] = tmp_path / "fifo"
    if Path("/dev/null").exists():
        found["device"] = Path("/dev/null")
    return found


COMMANDS = {
    "spec -o": lambda target: ("supervisor", ["spec", VENDING, "-o", target]),
    "solve --strategy": lambda target: ("supervisor", ["solve", "SPEC", "--strategy", target]),
    "run --bdi-log": lambda target: ("supervisor", ["run", VENDING, "--bdi-log", target]),
    "grid -o": lambda target: ("monitor", ["grid", "--size", "3", "-o", target]),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_bad_output_file_is_refused_before_work(tmp_path, no_synthesis, command):
    spec = tmp_path / "s.structuredslugs"
    spec.write_text(SPEC)
    for kind, target in _targets(tmp_path).items():
        before = snapshot(tmp_path)
        tool, argv = COMMANDS[command](target)
        argv = [spec if a == "SPEC" else a for a in argv]
        outcome = run_cli(tool, argv)
        refused(outcome)
        assert str(target) in outcome.err, (kind, outcome.err)
        assert snapshot(tmp_path) == before, kind
    assert (tmp_path / "real.txt").read_text() == "keep me\n"
    assert os.path.islink(tmp_path / "link") and os.path.islink(tmp_path / "devlink")


@pytest.mark.skipif(ROOT_USER, reason="root may write anywhere: permissions are not enforced")
def test_unwritable_folder_is_refused(tmp_path, no_synthesis):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        refused(run_cli("supervisor", ["spec", VENDING, "-o", locked / "x.slugsin"]),
                "not writable")
        refused(run_cli("supervisor", ["synthesize", VENDING, "--out", locked / "out"]),
                "not writable")
    finally:
        locked.chmod(0o700)


def test_synthesize_out_onto_a_file_is_refused_before_work(tmp_path, no_synthesis):
    target = tmp_path / "out"
    target.write_text("a file\n")
    refused(run_cli("supervisor", ["synthesize", VENDING, "--out", target]), "out")
    assert target.read_text() == "a file\n"
    link = tmp_path / "linked"
    (tmp_path / "elsewhere").mkdir()
    folder = tmp_path / "elsewhere" / "vending"
    folder.mkdir()
    (tmp_path / "linked").mkdir()
    (link / "vending").symlink_to(folder)
    refused(run_cli("supervisor", ["synthesize", VENDING, "--out", link]))
    assert list(folder.iterdir()) == []


def test_synthesize_refuses_a_link_where_it_writes_a_file(tmp_path, no_synthesis):
    folder = tmp_path / "out" / "vending" / "one-hot-SP"
    folder.mkdir(parents=True)
    victim = tmp_path / "victim.json"
    victim.write_text("{}")
    (folder / "strategy.json").symlink_to(victim)
    refused(run_cli("supervisor", ["synthesize", VENDING, "--out", tmp_path / "out"]),
            "strategy.json", "symbolic link")
    assert victim.read_text() == "{}"


def test_realize_onto_a_behavior_file_changes_nothing(tmp_path):
    out = tmp_path / "out"
    assert run_cli("supervisor", ["synthesize", VENDING, "--out", out]).code == 0
    folder = out / "vending" / "one-hot-SP"
    (folder / "behavior").rename(tmp_path / "old_behavior")
    (folder / "behavior").write_text("not a folder\n")
    before = snapshot(tmp_path)
    outcome = run_cli("supervisor", ["realize", folder / "reduced.json", "--mission", VENDING,
                                     "--out", folder])
    refused(outcome, "behavior")
    assert snapshot(tmp_path) == before
    assert (folder / "behavior").read_text() == "not a folder\n"


@pytest.mark.parametrize("name", ["../escape", "/tmp/abs", "a/b", "..", ".hidden", "x" * 300,
                                  "tab\tname", ""])
def test_sweep_name_cannot_leave_the_folder(tmp_path, name):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"name: {name!r}\nmissions: [{str(VENDING)!r}]\n")
    outcome = run_cli("supervisor", ["sweep", sweep, "--out", tmp_path / "out", "--quiet"])
    refused(outcome, "sweep.yaml", "name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.yaml"]


@pytest.mark.parametrize("option,value", [("--behavior", "../../evil"), ("--behavior", "a/b"),
                                          ("--behavior", "B" * 300),
                                          ("--package", "../pkg"), ("--package", "p" * 300)])
def test_behavior_and_package_names_are_checked(tmp_path, option, value):
    out = tmp_path / "run"
    assert run_cli("supervisor", ["synthesize", VENDING, "--out", out]).code == 0
    reduced = out / "vending" / "one-hot-SP" / "reduced.json"
    target = tmp_path / "realized"
    outcome = run_cli("supervisor", ["realize", reduced, "--mission", VENDING, "--out", target,
                                     option, value])
    refused(outcome)
    assert not target.exists() or not any(target.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["realized", "run"] or \
        sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_long_mission_name_is_refused_before_work(tmp_path, no_synthesis):
    mission = tmp_path / "m.yaml"
    mission.write_text(VENDING.read_text().replace("name: vending", "name: " + "v" * 300)
                       .replace("../catalogs/", str(ROOT / "config" / "catalogs") + "/"))
    refused(run_cli("supervisor", ["synthesize", mission, "--out", tmp_path / "out"]),
            "mission name")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_written_files_follow_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        assert run_cli("supervisor", ["spec", VENDING, "-o", tmp_path / "v.slugsin"]).code == 0
        assert run_cli("supervisor", ["synthesize", VENDING, "--out", tmp_path / "out"]).code == 0
        assert run_cli("monitor", ["grid", "--size", "3", "-o", tmp_path / "g.yaml"]).code == 0
    finally:
        os.umask(old)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    folders = [p for p in tmp_path.rglob("*") if p.is_dir()]
    assert len(files) > 10 and any(p.name == "behavior" for p in folders)
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask, path
    for path in folders:
        assert stat.S_IMODE(path.stat().st_mode) == 0o777 & ~mask, path
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_check_name_and_child():
    assert outpaths.check_name("ci_small-2.v1", "name") == "ci_small-2.v1"
    for bad in ("../x", "/abs", "a/b", "a\\b", "..", ".", "-opt", "x" * 101, "", None, 3,
                "nul\x00", "new\nline"):
        with pytest.raises(InputError):
            outpaths.check_name(bad, "name")
    assert outpaths.child("out", "r", ".csv") == Path("out/r.csv")
    with pytest.raises(InputError):
        outpaths.child("out", "../r", ".csv")


def test_write_text_atomic_never_replaces_a_link_or_device(tmp_path):
    real = tmp_path / "real"
    real.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(InputError, match="symbolic link"):
        outpaths.write_text_atomic(link, "y")
    assert real.read_text() == "x" and link.is_symlink()
    if Path("/dev/null").exists():
        with pytest.raises(InputError, match="device"):
            outpaths.write_text_atomic("/dev/null", "y")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


def test_open_output_refuses_a_fifo_without_blocking(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    fifo = tmp_path / "log.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        outpaths.open_output(fifo)


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}


def test_folder_swap_interrupted_between_its_renames_keeps_the_old_folder(tmp_path, monkeypatch):
    """A failure (or an interrupt) after the old folder was moved aside puts it back."""
    target = tmp_path / "behavior"
    outpaths.write_folder_atomic(target, {"a.py": "old", "sub/b.txt": "old b"})
    renames = []
    real = os.rename

    def second_fails(src, dst):
        renames.append((src, dst))
        if len(renames) == 2:
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(os, "rename", second_fails)
    with pytest.raises(KeyboardInterrupt):
        outpaths.write_folder_atomic(target, {"a.py": "new"})
    monkeypatch.undo()
    assert _tree(target) == {"a.py": "old", "sub/b.txt": "old b"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["behavior"]


def test_folder_left_aside_by_a_crash_comes_back(tmp_path):
    """A crash (SIGKILL) between the two renames leaves only ``.behavior.old``: the next write
    puts it back before swapping, and a left-over old copy beside a new folder is dropped."""
    target = tmp_path / "behavior"
    outpaths.write_folder_atomic(target, {"a.py": "old"})
    os.rename(target, tmp_path / ".behavior.old")
    outpaths.write_folder_atomic(target, {"a.py": "new"})
    assert _tree(target) == {"a.py": "new"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["behavior"]
    (tmp_path / ".behavior.old").mkdir()
    outpaths.write_folder_atomic(target, {"a.py": "newer"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["behavior"]


def test_signal_waits_for_a_deferred_step(tmp_path):
    """SIGTERM inside :func:`interrupts.deferred` is raised when the step ends, as Terminated."""
    import signal

    from bdi_supervisor import interrupts

    done = []
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(interrupts.Terminated), interrupts.handling(), interrupts.deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs between bytecodes: give it many
            pass
        done.append("step")
    assert done == ["step"]
    assert signal.getsignal(signal.SIGTERM) is before


def test_write_error_names_the_file(tmp_path):
    import errno

    error = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert outpaths.write_error(error, "out/x.json").describe() == "no space left on out/x.json"
    error = OSError(errno.EACCES, os.strerror(errno.EACCES))
    assert outpaths.write_error(error, "x").describe() == "cannot write x: Permission denied"


def test_append_whole_keeps_whole_records(tmp_path):
    """A write cut short by the file size limit is taken back: the file holds whole records."""
    import subprocess
    import sys

    log = tmp_path / "log.jsonl"
    script = ("import os, resource, signal\n"
              "from bdi_supervisor import outpaths\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))\n"
              f"fd = os.open({str(log)!r}, os.O_WRONLY | os.O_CREAT)\n"
              "for n in range(10):\n"
              "    outpaths.append_whole(fd, b'x' * 30 + b'\\n', 'log')\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "file too large: log" in result.stderr
    assert log.read_bytes() == (b"x" * 30 + b"\n") * 3


def test_a_swallowed_interrupt_is_raised_again():
    """A signal that lands in a weakref callback of the import system has its exception
    swallowed ("Exception ignored in ..."): it is sent again and stops the command after all."""
    import signal
    import sys
    import time
    import types

    from bdi_supervisor import interrupts

    returned = []
    with pytest.raises(interrupts.Terminated), interrupts.handling():
        interrupts._last[:] = [signal.SIGTERM]
        sys.unraisablehook(types.SimpleNamespace(exc_value=interrupts.Terminated(),
                                                 exc_type=interrupts.Terminated,
                                                 exc_traceback=None, err_msg=None, object=None))
        returned.append(True)  # not raised inside the hook, where Python would print it
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.001)
    assert returned


def _unraisable(error):
    import types

    return types.SimpleNamespace(exc_value=error, exc_type=type(error), exc_traceback=None,
                                 err_msg=None, object=None)


def test_a_signal_during_the_unraisable_hook_is_raised_after_it(monkeypatch):
    """SIGTERM arriving while the hook runs (here: while an unrelated error is printed) would
    raise inside the hook, where Python prints "Exception ignored in sys.unraisablehook" with a
    traceback and swallows it; it is raised once the hook has returned."""
    import signal
    import sys
    import time

    from bdi_supervisor import interrupts

    monkeypatch.setattr(sys, "unraisablehook", lambda u: signal.raise_signal(signal.SIGTERM))
    returned = []
    with pytest.raises(interrupts.Terminated), interrupts.handling():
        sys.unraisablehook(_unraisable(RuntimeError("printed as the signal comes")))
        returned.append(True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.001)
    assert returned


def test_a_block_that_ends_before_the_signal_comes_back_raises_it_as_it_ends():
    """The block ends while a swallowed signal is on its way again: it is raised at the block's
    end, and the signal is not sent after the block (to whatever handler is there then)."""
    import signal
    import sys
    import time

    from bdi_supervisor import interrupts

    heard = []
    outside = signal.signal(signal.SIGTERM, lambda signum, frame: heard.append(signum))
    try:
        with pytest.raises(interrupts.Terminated), interrupts.handling():
            interrupts._last[:] = [signal.SIGTERM]
            sys.unraisablehook(_unraisable(interrupts.Terminated()))
        time.sleep(20 * interrupts.RESEND_DELAY)
    finally:
        signal.signal(signal.SIGTERM, outside)
    assert heard == []


def test_errors_of_objects_torn_down_by_a_stop_are_not_printed(monkeypatch):
    """SIGTERM inside a BDD manager's constructor left a half-built object whose destructor
    printed "Exception ignored in ... __dealloc__" as the command ended with 143."""
    import signal
    import sys
    import types

    from bdi_supervisor import interrupts

    printed = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: printed.append(str(u.exc_value)))

    def unraisable(error):
        return types.SimpleNamespace(exc_value=error, exc_type=type(error), exc_traceback=None,
                                     err_msg=None, object=None)

    with interrupts.handling():
        sys.unraisablehook(unraisable(RuntimeError("before any signal")))
        interrupts._last[:] = [signal.SIGTERM]
        sys.unraisablehook(unraisable(RuntimeError("self.manager is NULL")))
    assert printed == ["before any signal"]
