"""Terminal presentation of an explanation (``explain``, and ``synthesize``/``run`` on an
unrealizable mission): the verdict, the core in the mission's terms, the assumptions the core
relies on, the counter-strategy's size and the counter-run as a timeline."""

from __future__ import annotations

import os
import shlex

from rich.console import Console
from rich.markup import escape

from bdi_supervisor.display import counted, output_console, plain, print_table, say, table

#: formulas longer than this are cut in the core table (the JSON record has them whole)
FORMULA_CHARS = 70


def where(file: str | None, line: int | None) -> str:
    """``file:line`` with the file relative to the working folder when it is below it."""
    if not file:
        return ""
    try:
        shown = os.path.relpath(file)
    except ValueError:  # another drive
        shown = file
    if shown.startswith(os.pardir):  # not below the working folder
        shown = file
    return f"{shown}:{line}" if line else shown


def print_explanation(data: dict, console: Console | None = None, *,
                      source: str = "", replay_file: str | None = None,
                      timeline=None) -> None:
    """Print an ``explanation.json`` record (``data``); ``source`` is the mission or spec
    argument, ``replay_file`` the saved explanation the replay command reads, ``timeline``
    the replayed counter-run (a run result) of a mission."""
    console = console or output_console()
    name = data.get("mission") or data.get("spec")
    config = f" ({data['config']})" if data.get("config") else ""
    status = data["status"]
    style = {"UNREALIZABLE": "bold red", "REALIZABLE": "bold green"}.get(status, "bold yellow")
    console.print(f"[{style}]{status}[/] {escape(str(name))}{escape(config)}")
    if data.get("incomplete_reason"):
        console.print(f"  {escape(data['incomplete_reason'])}")
    if status == "REALIZABLE":
        console.print(f"  {escape(data.get('message') or '')}")
        needed = data.get("needed_assumptions", {}).get("spec")
        if needed is not None:
            _assumption_lines(console, "assumptions the specification needs", needed)
        return
    if status != "UNREALIZABLE":
        return
    console.print(f"  failure level: [bold]{data['level']}[/] - {escape(data['message'])}")
    core = data["core"]
    checked = {True: "1-minimal, checked", False: "NOT minimal", None: "unchecked"}[
        data.get("core_minimal")]
    grid = table("#", "what", "formula", "where",
                 title=f"Unrealizable core: {counted(len(core), 'guarantee')} ({checked})")
    for k, item in enumerate(core, 1):
        grid.add_row(str(k), escape(item["description"]), escape(_short(item["formula"])),
                     escape(where(item.get("file"), item.get("line"))))
    print_table(grid, console, drop=("formula", "where"))
    needs = data.get("needed_assumptions") or {}
    if needs:
        console.print("[bold]Assumptions the core relies on[/] (without one element, what the "
                      "rest of the core needs):")
        labels = {f"{c['section']}[{c['index']}]": k for k, c in enumerate(core, 1)}
        quiet = [f"#{labels.get(key, key)}" for key, items in needs.items() if not items]
        for key, items in needs.items():
            if items:
                say(console, f"without #{labels.get(key, key)}: {_assumptions(items)}", 2)
        if quiet:
            say(console, f"without {', '.join(quiet)}: no assumption needed", 2)
    if data.get("assumptions_complete") is False:
        rest = [k for k, c in enumerate(core, 1) if f"{c['section']}[{c['index']}]" not in needs]
        say(console, f"without {_numbers(rest)}: not analysed (the analysis stops after its "
            "number of realizability checks: explain --assumption-checks)", 2)
    counter = data.get("counter_strategy") or {}
    if counter:
        truncated = (f", stopped at {counter['max_states']} (--max-states)"
                     if counter.get("truncated") else "")
        console.print(
            f"[bold]Environment counter-strategy[/]: wins from {counter['winning_states']} "
            f"states (the complement of the system's winning region: "
            f"{plain(counter['complement_of_system_region'])}); explicit: "
            f"{counter['explicit_states']} states, {counter['deadlock_states']} deadlocks"
            f"{truncated}")
    run = data.get("counter_run") or {}
    if run:
        _print_counter_run(console, data, run, timeline)
        replay = run.get("replay")
        if replay is not None and replay_file is not None:
            command = ["bdi-supervisor", "run", source, "--from", replay_file, "--sim",
                       "forced", "--max-steps", str(replay["max_steps"])]
            if replay.get("force"):
                command += ["--force", replay["force"]]
            say(console, shlex.join(command), label="Replay: ", copyable=True)


def _numbers(numbers: list[int]) -> str:
    """``#1, #3-#7``: runs of consecutive numbers as ranges."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"#{run[0]}" if len(run) == 1 else f"#{run[0]}-#{run[-1]}" for run in runs)


def _assumption(item: dict) -> str:
    """An assumption as a reader finds it: what it is, and where (for a hand-written spec its
    formula and line)."""
    if item.get("kind") == "spec":
        return f"{item['formula']} (line {item['line']})" if item.get("line") else item["formula"]
    place = where(item.get("file"), item.get("line")) if item.get("line") else ""
    return item["description"] + (f" ({place})" if place else "")


def _assumptions(items: list[dict]) -> str:
    """Assumptions joined by ``; ``, each once (plain text)."""
    return "; ".join(dict.fromkeys(_assumption(i) for i in items))


def _short(text: str, limit: int = FORMULA_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _assumption_lines(console: Console, title: str, items: list[dict]) -> None:
    say(console, _assumptions(items) or "none", label=f"{title}: ")


def _print_counter_run(console: Console, data: dict, run: dict, timeline) -> None:
    end = run.get("end")
    prevented = run.get("prevented")
    if end == "loop":
        what = (f"guarantee {escape(prevented['description'])} ({escape(prevented['formula'])})"
                if prevented else f"liveness guarantee {run.get('goal')}")
        ending = (f"loops back to step {run.get('loop_start')} for ever: {what} never holds "
                  "again while every assumption does")
    elif end == "deadlock":
        ending = ("ends in a deadlock: the environment's last answer leaves the system no move "
                  "that keeps its safety guarantees")
    else:
        ending = "the system has no initial state allowed for the environment's first input"
    console.print(f"[bold]Counter-run[/] (the supervisor loses whatever it does): {ending}")
    if run.get("note"):
        console.print(f"  {escape(run['note'])}")
    if timeline is not None:
        from bdi_supervisor.runtime.progress import print_result

        print_result(timeline, console, title="counter-run replayed with forced outcomes")
        return
    grid = table("step", "inputs", "outputs", "rank")
    for k, step in enumerate(run.get("steps", [])):
        grid.add_row(str(k), escape(plain(step["inputs"])),
                     escape(plain(step["outputs"]) if step["outputs"] is not None
                            else "(no safe answer)"), plain(step["rank"]))
    print_table(grid, console)
