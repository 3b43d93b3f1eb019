"""Mutated inputs for the fuzz suite (``test_fuzz.py``) and its longer run (``bench/fuzz/run.py``).

A *case* is one input class (catalog, mission, structuredslugs, slugsin, CTL property, CTL model,
BDI-state lines, a saved strategy, an explanation, a sweep file, a sweep's results), one valid
seed, a list of mutation operations and a command. :func:`run_case`
writes the mutated input into a fresh folder, runs the command in this process
(:func:`cli_harness.run_cli`) and checks what the issue asks of every bad input:

- the exit status is 0, 1, 2 or 3 and no traceback reaches stderr;
- a bad-input error (2) names the file (or the argument) it is about;
- nothing is written outside the output folder ``out/`` (the inputs are unchanged too);
- nothing is half-written: no temporary files are left, every JSON file parses;
- the case ends within :data:`HANG_SECONDS` (budgets bound every phase).

Operations are plain tuples, drawn by hypothesis in the tests (:func:`operations`) and by
``random.Random`` in the bench (:func:`random_operations`), so both mutate the same way.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from support.cli_harness import Outcome, run_cli, snapshot
from support.paths import DATA, ROOT

CONFIG = ROOT / "config"
SAVED = DATA / "supervisors"
HANG_SECONDS = 60

#: fragments that mean something to one of the parsers
TOKENS = (
    ": ", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "<<: *a", "!!python/object:os.system",
    "\n", "\n  ", "'", '"', "#", "~", "null", "true", "1e309", ".nan", "-.inf", "-1", "0",
    "99999999999999999999", "../", "/etc/passwd", "x" * 300, "&", "|", "!", "->", "<->", "^",
    "(", ")", "'", "X ", "next(", "+", "=", "<", "TRUE", "FALSE", "AG ", "EF ", "E[", " U ",
    "bel ", "des ", "int ", "[SYS_INIT]\n", "[ENV_TRANS]\n", "[OUTPUT]\nz:0...1099511627775\n",
    "x:0...7", "$ 2 ", "? 0 ", '{"', '": ', "\t", "\x00", "é", "@", "completed", "failure",
    # integers past Python's 4,300 digits, written plainly and in YAML's other forms
    "9" * 4301, "-" + "7" * 5000, "0x" + "f" * 4000, "0b" + "1" * 15000, ":59" * 3000, "²",
    # control characters as YAML and JSON escapes (raw ones are refused by the parsers)
    '"\\e]0;retitled\\a\\e[31m"', '"\\u001b[2J\\u202e"', "\x1b[31m",
    # sweep axes that multiply, results keys that are no text
    "repeats: 1000000000\n", "seeds: [0, 0]\n", '{"key": ["a"]}', '{"key": {"b": 1}}',
)
DEPTHS = (20, 150, 300, 5_000)
SCALARS = (None, -1, 0, 1.5, float("nan"), float("inf"), 10**30, "", "x" * 500, "../../x",
           "/abs/path", "a b", [], {}, [1, [2, [3]]], {"k": {"k": {"k": None}}}, True,
           "completed", "@item", "!prep_pay", "item=1000000000", "pay_c", "x_a",
           "\x1b]0;retitled\x07", "\u202e", "a" * 90)

OPERATIONS = ("delete", "duplicate", "insert", "replace", "swap_lines", "nest", "byte",
              "truncate", "repeat_word", "swap_word", "long", "yaml_node")
#: drawn more often: they keep the input parseable and reach the later stages
WEIGHTED = (*OPERATIONS, "yaml_node", "yaml_node", "swap_word", "swap_word", "repeat_word",
            "replace", "swap_lines")


# ------------------------------------------------------------------ mutations


def operations():
    """Hypothesis strategy: 1-4 mutation operations."""
    from hypothesis import strategies as st

    op = st.tuples(st.sampled_from(WEIGHTED), st.floats(0, 1), st.floats(0, 1),
                   st.integers(0, 10**6))
    return st.lists(op, min_size=1, max_size=3)


def random_operations(rng: random.Random) -> list[tuple]:
    """The same operations drawn by ``rng`` (the bench)."""
    return [(rng.choice(WEIGHTED), rng.random(), rng.random(), rng.randrange(10**6))
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3)))]


def mutate(text: str, ops: list[tuple]) -> bytes:
    """``text`` after ``ops``, as bytes (some operations make it invalid UTF-8)."""
    data = text.encode("utf-8")
    for name, where, size, pick in ops:
        data = _apply(data, name, where, size, pick)
    return data


def _apply(data: bytes, name: str, where: float, size: float, pick: int) -> bytes:
    at = int(where * len(data))
    span = max(1, int(size * min(200, len(data) - at or 1)))
    if name == "delete":
        return data[:at] + data[at + span:]
    if name == "duplicate":
        return data[:at + span] + data[at:at + span] + data[at + span:]
    if name == "insert":
        return data[:at] + TOKENS[pick % len(TOKENS)].encode() + data[at:]
    if name == "replace":
        return data[:at] + TOKENS[pick % len(TOKENS)].encode() + data[at + span:]
    if name == "swap_lines":
        lines = data.split(b"\n")
        i, j = pick % len(lines), int(size * (len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if name == "nest":
        depth = DEPTHS[pick % len(DEPTHS)]
        opener, closer = ((b"(", b")"), (b"[", b"]"), (b"!", b""), (b"{a: ", b"}"))[pick % 4]
        return data[:at] + opener * depth + data[at:at + span] + closer * depth + data[at + span:]
    if name == "byte":
        return data[:at] + bytes([0x80 + pick % 128]) + data[at:]
    if name == "truncate":
        return data[:at]
    if name == "repeat_word":
        words = data.split()
        if not words:
            return data
        word = words[pick % len(words)]
        return data[:at] + b" " + word + data[at:]
    if name == "swap_word":
        words = data.split()
        if len(words) < 2:
            return data
        old, new = words[pick % len(words)], words[int(size * (len(words) - 1))]
        return data.replace(old, new, 1 + pick % 3)
    if name == "long":
        return data[:at] + b"y" * (1000 + pick % 200_000) + data[at:]
    if name == "yaml_node":
        return _yaml_node(data, size, pick)
    raise ValueError(name)


def _yaml_node(data: bytes, size: float, pick: int) -> bytes:
    """Replace, delete or rename one node of a YAML document (the text is kept if not YAML)."""
    try:
        doc = yaml.safe_load(data)
    except (yaml.YAMLError, ValueError, RecursionError):
        return data
    paths = list(_paths(doc))
    if not paths:
        return data
    path = paths[pick % len(paths)]
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = pick % 3
    value = SCALARS[int(size * (len(SCALARS) - 1))]
    if action == 0 or not isinstance(parent, dict):
        parent[key] = value
    elif action == 1:
        del parent[key]
    else:
        parent[str(value)[:40] if not isinstance(value, (list, dict)) else "renamed"] = \
            parent.pop(key)
    try:
        if data.lstrip()[:1] in (b"{", b"["):  # a JSON input stays JSON (NaN, Infinity too)
            return json.dumps(doc).encode()
        return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False).encode()
    except (yaml.YAMLError, ValueError, TypeError):
        return data


def _paths(node, prefix=()):
    stack = [(node, prefix)]
    while stack:
        current, path = stack.pop()
        items = (current.items() if isinstance(current, dict) else
                 enumerate(current) if isinstance(current, list) else ())
        for key, child in items:
            yield (*path, key)
            if len(path) < 8:
                stack.append((child, (*path, key)))


# ------------------------------------------------------------------ classes


@dataclass(frozen=True)
class InputClass:
    """One kind of input: its file name, its valid seeds and the commands that read it."""

    name: str
    file: str
    seeds: tuple[str, ...]
    commands: tuple[str, ...]


def _catalog_mission(name: str, catalog_file: str = "catalog.yaml") -> str:
    text = (CONFIG / "missions" / f"{name}.yaml").read_text()
    return text.replace(f"../catalogs/{name}.yaml", catalog_file)


def _absolute_catalog(name: str) -> str:
    text = (CONFIG / "missions" / f"{name}.yaml").read_text()
    return text.replace("../catalogs/", (CONFIG / "catalogs").as_posix() + "/")


@functools.cache
def _spec_text(mission: str) -> str:
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.spec.io import format_spec
    from bdi_supervisor.specgen.generate import generate_spec

    spec = generate_spec(load_mission(CONFIG / "missions" / f"{mission}.yaml"))
    return format_spec(spec, "structuredslugs")


SMALL_SPEC = """[INPUT]
a
r:0...3

[OUTPUT]
b
x:0...7

[ENV_INIT]
!a

[SYS_INIT]
x = 0

[ENV_TRANS]
r' = r | r' = r + 1

[SYS_TRANS]
b' <-> (a' & !b)
x' = r'

[SYS_LIVENESS]
b | !a'
"""
SMALL_SLUGSIN = "[INPUT]\na\n\n[OUTPUT]\nb\n\n[SYS_TRANS]\n| ! a' b'\n\n[SYS_LIVENESS]\n| b ! a\n"
CTL_PROPERTIES = ("AG(bel br -> EF bb)", "AG(bel br -> AF bb)", "E[!hb U bb]",
                  "AG(des bb -> int EF bb)", "!EX(atF & hb) | A[br U (bb | od)]")


@functools.cache
def _bdi_log() -> str:
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import load_folder
    from bdi_supervisor.runtime.session import RunOptions, run_supervisor

    mission = load_mission(CONFIG / "missions" / "beer_robot.yaml")
    prepared = load_folder(SAVED / "beer_robot", mission)
    records: list[dict] = []
    run_supervisor(mission, prepared.machine, prepared.reduced,
                   options=RunOptions(force="open_door=failure"), callbacks=[records.append])
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)


@functools.cache
def _saved_run() -> dict[str, str]:
    """A synthesized vending run (its ``reduced.json``), an explanation of an unrealizable
    mission, a sweep file and the results rows of that sweep, made once in a scratch folder."""
    import tempfile

    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import explain_mission, run

    scratch = Path(tempfile.mkdtemp(prefix="bdi-fuzz-seeds-"))
    vending = load_mission(CONFIG / "missions" / "vending.yaml")
    run(vending, out_dir=scratch)
    folder = scratch / "vending" / vending.synthesis.config
    explained = explain_mission(load_mission(CONFIG / "missions" / "two_rivers_goat_stays.yaml"))
    sweep = (f"name: fuzz\nmissions: [{(CONFIG / 'missions' / 'vending.yaml').as_posix()}]\n"
             "encoding: [one-hot, enumerated]\nseeds: [0, 1]\nrepeats: 1\n"
             "budgets: {time_s: 30, nodes: null}\n")
    return {"reduced": (folder / "reduced.json").read_text(),
            "explanation": json.dumps(explained.to_dict(), indent=1),
            "sweep": sweep, "results": _results(sweep, scratch)}


def _results(sweep: str, scratch: Path) -> str:
    """Result rows of every trial of ``sweep`` (as a sweep writes them, its trials run here)."""
    from bdi_supervisor.sweep.grid import load_sweep
    from bdi_supervisor.sweep.trial import run_trial

    path = scratch / "sweep.yaml"
    path.write_text(sweep)
    rows = [run_trial(trial.params) for trial in load_sweep(path).trials]
    return "".join(json.dumps(row, sort_keys=True, default=str) + "\n" for row in rows)


def classes() -> dict[str, InputClass]:
    """The input classes (seeds are read when first asked for)."""
    return {
        "catalog": InputClass("catalog", "catalog.yaml", (
            (CONFIG / "catalogs" / "vending.yaml").read_text(),), ("spec", "synthesize")),
        "mission": InputClass("mission", "mission.yaml", (
            _absolute_catalog("vending"), _absolute_catalog("coffee")),
            ("spec", "synthesize", "run")),
        "structuredslugs": InputClass("structuredslugs", "spec.structuredslugs",
                                      (SMALL_SPEC, _spec_text("vending")), ("solve",)),
        "slugsin": InputClass("slugsin", "spec.slugsin", (SMALL_SLUGSIN,), ("solve",)),
        "ctl_property": InputClass("ctl_property", "property.txt", CTL_PROPERTIES, ("check",)),
        "ctl_model": InputClass("ctl_model", "model.yaml",
                                ((CONFIG / "ctl" / "beer.yaml").read_text(),), ("check",)),
        "bdi_lines": InputClass("bdi_lines", "log.jsonl", (_bdi_log(),), ("replay",)),
        "strategy": InputClass("strategy", "reduced.json", (_saved_run()["reduced"],),
                               ("realize", "run_from")),
        "explanation": InputClass("explanation", "explanation.json",
                                  (_saved_run()["explanation"],), ("run_from",)),
        "sweep": InputClass("sweep", "sweep.yaml", (_saved_run()["sweep"],), ("report",)),
        "results": InputClass("results", "out/results.jsonl", (_saved_run()["results"],),
                              ("report",)),
    }


def _argv(kind: str, command: str, folder: Path, path: Path, data: bytes) -> tuple[str, list]:
    out = folder / "out"
    out.mkdir(exist_ok=True)
    if kind == "catalog":
        (folder / "mission.yaml").write_text(_catalog_mission("vending"))
        path = folder / "mission.yaml"
    if command == "spec":
        return "supervisor", ["spec", path, "--format", "json", "-o", out / "spec.json"]
    if command == "synthesize":
        return "supervisor", ["synthesize", path, "--out", out, "--time-budget", "2", "--json"]
    if command == "run":
        return "supervisor", ["run", path, "--json", "--max-steps", "30",
                              "--bdi-log", out / "bdi.jsonl"]
    if command == "solve":
        return "supervisor", ["solve", path, "--time-budget", "2", "--json",
                              "--strategy", out / "strategy.json"]
    if command == "check" and kind == "ctl_property":
        text = data.decode("utf-8", "replace")
        return "monitor", ["check", CONFIG / "ctl" / "beer.yaml", text, "--json"]
    if command == "check":
        return "monitor", ["check", path, CTL_PROPERTIES[0], "--json"]
    if command == "realize":
        return "supervisor", ["realize", path, "--mission", CONFIG / "missions" / "vending.yaml",
                              "--out", out, "--json"]
    if command == "run_from":
        mission = "vending" if kind == "strategy" else "two_rivers_goat_stays"
        return "supervisor", ["run", CONFIG / "missions" / f"{mission}.yaml", "--from",
                              folder if kind == "strategy" else path, "--json",
                              "--max-steps", "30", "--bdi-log", out / "bdi.jsonl"]
    if command == "report" and kind == "sweep":
        (out / "results.jsonl").write_text(_saved_run()["results"])
        return "supervisor", ["sweep", path, "--out", out, "--report-only"]
    if command == "report":
        (folder / "sweep.yaml").write_text(_saved_run()["sweep"])
        return "supervisor", ["sweep", folder / "sweep.yaml", "--out", out, "--report-only"]
    if command == "replay":
        return "monitor", ["replay", path, "--mission", CONFIG / "missions" / "beer_robot.yaml",
                           "--from", SAVED / "beer_robot", "--json"]
    raise ValueError(command)


# ------------------------------------------------------------------ running and judging


@dataclass
class CaseResult:
    kind: str
    command: str
    outcome: str  # ok, negative, bad_input, incomplete, traceback, hang, exit N
    seconds: float
    problems: list[str] = field(default_factory=list)
    message: str = ""


class Hang(Exception):
    """A case ran past :data:`HANG_SECONDS`."""


@contextlib.contextmanager
def _alarm(seconds: int):
    if not hasattr(signal, "SIGALRM") or os.name != "posix":
        yield
        return

    def ring(signum, frame):
        raise Hang()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_case(kind: str, seed: int, ops: list[tuple], command_pick: int, folder: Path,
             hang_seconds: int = HANG_SECONDS) -> CaseResult:
    """Mutate seed ``seed`` of class ``kind`` by ``ops``, run one of its commands in ``folder``
    (empty, created), and judge the outcome (``CaseResult.problems`` empty when all is well)."""
    spec = classes()[kind]
    command = spec.commands[command_pick % len(spec.commands)]
    data = mutate(spec.seeds[seed % len(spec.seeds)], ops)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / spec.file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    tool, argv = _argv(kind, command, folder, path, data)
    before = outside(folder)
    started = time.perf_counter()
    try:
        with _alarm(hang_seconds):
            outcome = run_cli(tool, argv)
    except Hang:
        return CaseResult(kind, command, "hang", time.perf_counter() - started,
                          [f"no end within {hang_seconds} s"])
    seconds = time.perf_counter() - started
    result = CaseResult(kind, command, outcome.kind, seconds, message=outcome.err[-300:])
    result.problems = judge(kind, outcome, folder, before, spec.file)
    if outcome.code == 2 and kind == "sweep" and "results.jsonl" in outcome.err:
        result.problems = [p for p in result.problems if not p.startswith("error names")]
    return result


def judge(kind: str, outcome: Outcome, folder: Path, before: dict, file: str) -> list[str]:
    """What is wrong with ``outcome`` (see the module docstring)."""
    problems = []
    if outcome.traceback:
        problems.append("traceback: " + (outcome.crash or outcome.err)[-800:])
    elif outcome.code not in (0, 1, 2, 3):
        problems.append(f"exit {outcome.code}")
    if outcome.code == 2 and not outcome.traceback:
        named = file in outcome.err or "catalog.yaml" in outcome.err or \
            "mission.yaml" in outcome.err or (kind == "ctl_property" and "properties[" in
                                              outcome.err)
        if not named:
            problems.append(f"error names no file: {outcome.err[-300:]}")
        if len(outcome.err) > 3000:
            problems.append(f"error message of {len(outcome.err)} characters")
    if kind == "bdi_lines" and outcome.code == 2:
        problems.append("a malformed log line made the replay fail")
    return problems + file_problems(folder, before, inputs=(folder / file,))


def outside(folder: Path) -> dict:
    """The snapshot of ``folder`` outside its output folder ``out/`` (to compare after)."""
    return {k: v for k, v in snapshot(folder).items() if not k.startswith("out")}


def file_problems(folder: Path, before: dict, inputs: tuple[Path, ...] = ()) -> list[str]:
    """Files written or changed outside ``out/`` since ``before`` (:func:`outside`), and
    half-written outputs under it: temporary or hidden files, JSON or JSON Lines that do not
    parse (but the ``inputs`` placed there, a sweep's results)."""
    problems = []
    after = outside(folder)
    if after != before:
        changed = sorted(set(after) ^ set(before)) or sorted(
            k for k in after if after[k] != before.get(k))
        problems.append(f"written outside out/: {changed[:5]}")
    out = folder / "out"
    if out.exists():
        for path in out.rglob("*"):
            if path.name.endswith(".tmp") or path.name.startswith("."):
                problems.append(f"half-written: {path.relative_to(folder)}")
            elif path.suffix in (".json", ".jsonl") and path.is_file() and path not in inputs:
                text = path.read_text(errors="replace")
                try:
                    for line in text.splitlines() if path.suffix == ".jsonl" else [text]:
                        json.loads(line)
                except ValueError:
                    problems.append(f"half-written JSON: {path.relative_to(folder)}")
    return problems
