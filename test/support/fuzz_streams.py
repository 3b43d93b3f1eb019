"""The fuzz suite's stream, environment and signal classes: valid commands in a broken
environment, each run as a process of its own (``cli_harness.run_process``).

A *stream case* is a class (how the environment is broken), a command (:data:`COMMANDS`: every
subcommand of both tools, printing and writing) and a number in [0, 1) that places the fault:
which standard descriptors are closed, where the reader closes the pipe, where the file size
limit cuts the writes, which encoding, when SIGTERM comes. :func:`run_stream_case` runs it in a
fresh folder and checks what the issue asks of every command in any environment:

- no traceback (nor an exception the interpreter could only ignore at exit) on stderr;
- the exit status is one the command may end with there: 0/1/2/3, 141 for a pipe closed by its
  reader, 143 for SIGTERM (or the signal itself, when it came before Python had started);
- no hang (:data:`HANG_SECONDS`);
- nothing written outside ``out/`` and nothing half-written under it (no temporary or hidden
  file, every JSON and JSON Lines file parses): ``fuzz_cases.file_problems``.
"""

from __future__ import annotations

import functools
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from support.cli_harness import Fault, run_process
from support.fuzz_cases import SAVED, SMALL_SPEC, CaseResult, _bdi_log, file_problems, outside
from support.paths import ROOT

HANG_SECONDS = 60
CONFIG = ROOT / "config"
BEER = CONFIG / "ctl" / "beer.yaml"

#: (tool, arguments) run in the case folder, which holds ``small.structuredslugs``,
#: ``log.jsonl`` and an empty ``out/``
COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("supervisor", ("missions",)),
    ("supervisor", ("--help",)),
    ("supervisor", ("spec", "vending")),
    ("supervisor", ("spec", "beer_robot", "--format", "slugsin", "-o", "out/beer.slugsin")),
    ("supervisor", ("solve", "small.structuredslugs", "--json", "--strategy", "out/s.json")),
    ("supervisor", ("synthesize", "coffee", "--out", "out")),
    ("supervisor", ("synthesize", "vending_extended", "--out", "out", "--json")),
    ("supervisor", ("run", "coffee_extended", "--seed", "1", "--operator",
                    "--bdi-log", "out/run.jsonl")),
    ("supervisor", ("run", "two_rivers", "--seed", "2")),
    ("supervisor", ("realize", str(SAVED / "beer_robot" / "reduced.json"), "--mission",
                    "beer_robot", "--out", "out")),
    ("supervisor", ("sweep", "{sweep}", "--out", "out/sweep", "--workers", "1", "--report")),
    ("monitor", ("check", str(BEER), "AG(bel br -> EF bb)", "AG(bel br -> AF bb)")),
    ("monitor", ("grid", "--size", "16", "--worlds", "2", "-o", "out/grid16.yaml")),
    ("monitor", ("replay", "log.jsonl", "--mission", "beer_robot", "--json")),
)
SWEEP = (f"name: tiny\nmissions: [{CONFIG / 'missions' / 'coffee.yaml'}]\n"
         "encoding: [one-hot, enumerated]\nbudgets: {time_s: 30}\n")
ENVIRONMENTS = ({"PYTHONIOENCODING": "ascii"},
                {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
                 "PYTHONIOENCODING": ""},
                {"PYTHONIOENCODING": "latin-1"})


@dataclass(frozen=True)
class StreamClass:
    """One way of breaking the environment: how a number in [0, 1) becomes a fault, and the
    exit statuses a command may end with under it."""

    name: str
    fault: Callable[[float], Fault]
    exits: frozenset[int]


def _closed(where: float) -> Fault:
    mask = 1 + int(where * 7) % 7  # a non-empty subset of {0, 1, 2}
    return Fault(closed=tuple(fd for fd in (0, 1, 2) if mask >> fd & 1))


VERDICTS = frozenset({0, 1, 2, 3})
STREAM_CLASSES = {
    "closed_stdio": StreamClass("closed_stdio", _closed, VERDICTS),
    "full_stdout": StreamClass("full_stdout", lambda where: Fault(stdout="full"), VERDICTS),
    "full_disk": StreamClass("full_disk",
                             lambda where: Fault(file_size=int(where * 40_000)), VERDICTS),
    "broken_pipe": StreamClass("broken_pipe",
                               lambda where: Fault(stdout="cut", read=int(where * 3000)),
                               VERDICTS | {141}),
    "ascii": StreamClass("ascii", lambda where: Fault(
        env=ENVIRONMENTS[int(where * len(ENVIRONMENTS)) % len(ENVIRONMENTS)]), VERDICTS),
    # most commands take 0.3-1 s: the signal comes during start-up, the work or the output
    "sigterm": StreamClass("sigterm", lambda where: Fault(signal=signal.SIGTERM,
                                                          after=1.5 * where * where),
                           VERDICTS | {143, -signal.SIGTERM}),
}


@functools.cache
def _log_text() -> str:
    return _bdi_log()


def run_stream_case(kind: str, command_pick: int, where: float, folder: Path,
                    hang_seconds: int = HANG_SECONDS) -> CaseResult:
    """Run command ``command_pick`` of :data:`COMMANDS` under class ``kind``'s fault placed by
    ``where``, in ``folder`` (created), and judge it (``problems`` empty when all is well)."""
    spec = STREAM_CLASSES[kind]
    tool, argv = COMMANDS[command_pick % len(COMMANDS)]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "out").mkdir(exist_ok=True)
    (folder / "small.structuredslugs").write_text(SMALL_SPEC)
    (folder / "log.jsonl").write_text(_log_text())
    (folder / "tiny.yaml").write_text(SWEEP)
    argv = [a.replace("{sweep}", str(folder / "tiny.yaml")) for a in argv]
    before = outside(folder)
    started = time.perf_counter()
    outcome = run_process(tool, argv, spec.fault(where), cwd=folder, timeout=hang_seconds)
    seconds = time.perf_counter() - started
    name = " ".join([tool, *(Path(a).name for a in argv[:2])])
    result = CaseResult(kind, name, _kind(outcome, spec), seconds, message=outcome.err[-300:])
    if outcome.hung:
        result.problems.append(f"no end within {hang_seconds} s")
    elif outcome.traceback:
        result.problems.append("traceback: " + outcome.err[-800:])
    elif outcome.code not in spec.exits:
        result.problems.append(f"exit {outcome.code}")
    result.problems += file_problems(folder, before)
    return result


def _kind(outcome, spec: StreamClass) -> str:
    """The outcome as the bench counts it: ok, negative, bad_input, incomplete, cut (141),
    terminated (143), hang, traceback."""
    if outcome.hung or outcome.traceback:
        return outcome.kind
    return {141: "cut", 143: "terminated", -signal.SIGTERM: "terminated"}.get(
        outcome.code, outcome.kind)
