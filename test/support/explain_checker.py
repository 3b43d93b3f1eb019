"""Explicit-state oracles for explanations, independent of the BDD code.

- :func:`subspec` — a spec with only some of its guarantees (for re-synthesis).
- :func:`check_core` — the core is unrealizable and dropping any element makes it realizable,
  each decided by a fresh :func:`~bdi_supervisor.synthesis.synthesize.synthesize`.
- :func:`check_counter_strategy` — the explicit counter-strategy, checked with the formula
  evaluator: every state's successors are exactly the system's safe answers to one admissible
  input (none: a deadlock), the initial states cover every initial output for some initial input,
  and every cycle satisfies every environment liveness on some edge and misses some system
  liveness on all of its edges (so every play violates the guarantees).
- :func:`check_counter_run` — a counter-run and the label of its replay, against the game's
  definitions on the play itself: every input admissible and every answer safe (the
  environment never breaks an assumption, so no replay is an assumption violation); a deadlock
  leaves the system no safe answer; a loop meets every assumption and misses its guarantee.
- :func:`parse_slugs_counter_strategy` — slugs' ``--counterStrategy`` text as the ``states``
  that :func:`check_counter_strategy` reads (Boolean variables only).
"""

from __future__ import annotations

import dataclasses
import re

from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import Const, evaluate
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.synthesis.synthesize import synthesize
from support.synthesis_checker import _all, components, solutions

GUARANTEES = ("sys_init", "sys_safety", "sys_liveness")


def subspec(spec: GR1Spec, keep: set[tuple[str, int]]) -> GR1Spec:
    """``spec`` with the guarantees ``keep`` ((section, index) pairs) and every assumption."""
    sections = {s: [c for k, c in enumerate(spec.section(s)) if (s, k) in keep]
                for s in GUARANTEES}
    return dataclasses.replace(spec, variables=list(spec.variables), **sections)


def realizable(spec: GR1Spec) -> bool:
    return bool(synthesize(spec, SynthesisOptions(extract=False, diagnose=False)).realizable)


def check_core(spec: GR1Spec, core: list[tuple[str, int]]) -> list[str]:
    problems = []
    if realizable(subspec(spec, set(core))):
        problems.append(f"the core {core} is realizable")
    for drop in core:
        if not realizable(subspec(spec, set(core) - {drop})):
            problems.append(f"the core without {drop} is still unrealizable")
    return problems


def check_counter_strategy(spec: GR1Spec, states: list[dict]) -> list[str]:
    """``states``: the ``states`` of :func:`counterstrategy.to_json` (complete, not truncated)."""
    problems: list[str] = []
    inputs, outputs = spec.inputs, spec.outputs
    full = {s["id"]: {**s["inputs"], **(s["outputs"] or {})} for s in states}
    by_id = {s["id"]: s for s in states}
    # initial: some initial input all of whose initial outputs are covered
    covered = {tuple(sorted(full[s["id"]].items())) for s in states if s["initial"]}
    winning_input = False
    for x in solutions(spec.env_init, inputs, {}, primed=False):
        ys = list(solutions(spec.sys_init, outputs, x, primed=False)) if outputs else [{}]
        ys = [y for y in ys if _all(spec.sys_init, {**x, **y})]
        if all(tuple(sorted({**x, **y}.items())) in covered for y in ys):
            winning_input = True
    if not winning_input:
        problems.append("no initial input from which every initial output is covered")
    edges: dict[int, list[int]] = {}
    for state in states:
        if state["deadlock"]:
            edges[state["id"]] = []
            continue
        cur = full[state["id"]]
        succ = [by_id[t] for t in state["successors"]]
        if not succ:
            problems.append(f"state {state['id']}: no successor")
            continue
        xs = {tuple(sorted(t["inputs"].items())) for t in succ}
        if len(xs) != 1:
            problems.append(f"state {state['id']}: successors with different inputs")
            continue
        x = dict(next(iter(xs)))
        if not _all(spec.env_safety, cur, x):
            problems.append(f"state {state['id']}: input {x} not admissible")
        answers = [y for y in solutions([], outputs, {}, primed=False)
                   if _all(spec.sys_safety, cur, {**x, **y})]
        if succ[0]["deadlock"]:
            if answers:
                problems.append(f"state {state['id']}: a deadlock, but the system has answers")
            edges[state["id"]] = []
            continue
        got = sorted(tuple(sorted(t["outputs"].items())) for t in succ)
        want = sorted(tuple(sorted(y.items())) for y in answers)
        if got != want:
            problems.append(f"state {state['id']}: successors {got} != safe answers {want}")
        edges[state["id"]] = [t["id"] for t in succ]
    env_live = [c.formula for c in spec.env_liveness] or [Const(True)]
    sys_live = [c.formula for c in spec.sys_liveness] or [Const(True)]

    def holds(formula, s: int, t: int) -> bool:
        return bool(evaluate(formula, full[s], full[t]))

    for k, assumption in enumerate(env_live):
        kept = {s: [t for t in ts if not holds(assumption, s, t)] for s, ts in edges.items()}
        for members in components(kept):
            if any(t in members for s in members for t in kept[s]):
                problems.append(f"a cycle through {sorted(members)[:6]} never satisfies "
                                f"assumption {k}")
                break
    for members in components(edges):
        inner = [(s, t) for s in members for t in edges[s] if t in members]
        if inner and all(any(holds(g, s, t) for s, t in inner) for g in sys_live):
            problems.append(f"a cycle through {sorted(members)[:6]} meets every guarantee")
    return problems


#: the label of a replayed counter-run, by how the play ends
REPLAY_LABELS = {"deadlock": "deadlock", "loop": "loop"}


def check_counter_run(spec: GR1Spec, run: dict, label: str) -> list[str]:
    """``run``: an explanation's ``counter_run`` record; ``label``: its replay's status."""
    problems: list[str] = []
    steps = run["steps"]
    if REPLAY_LABELS.get(run["end"]) != label:
        problems.append(f"a counter-run that ends in a {run['end']} is replayed as {label!r}")
    full = [{**s["inputs"], **(s["outputs"] or {})} for s in steps]
    if not _all(spec.env_init, steps[0]["inputs"]):
        problems.append("the first input breaks the initial assumptions")
    if steps[0]["outputs"] is not None and not _all(spec.sys_init, full[0]):
        problems.append("the first answer breaks the initial guarantees")
    for k in range(1, len(steps)):
        if not _all(spec.env_safety, full[k - 1], steps[k]["inputs"]):
            problems.append(f"step {k}: the environment breaks an assumption")
        if steps[k]["outputs"] is not None and not _all(spec.sys_safety, full[k - 1], full[k]):
            problems.append(f"step {k}: the system's answer is not safe")
    if run["end"] == "deadlock":
        if len(steps) < 2 or steps[-1]["outputs"] is not None:
            return [*problems, "a deadlock needs a last step without an answer"]
        last, x = full[-2], steps[-1]["inputs"]
        if any(_all(spec.sys_safety, last, {**x, **y})
                 for y in solutions(spec.sys_safety, spec.outputs, last, primed=True)):
            problems.append("a deadlock, but the system has a safe answer to the last input")
    if run["end"] == "loop":
        start = run["loop_start"]
        edges = [(k, k + 1) for k in range(start, len(steps) - 1)] + [(len(steps) - 1, start)]
        if not _all(spec.env_safety, full[-1], steps[start]["inputs"]) or not _all(
                spec.sys_safety, full[-1], full[start]):
            problems.append("the loop's way back breaks safety")
        for k, assumption in enumerate(spec.env_liveness):
            if not any(evaluate(assumption.formula, full[a], full[b]) for a, b in edges):
                problems.append(f"the loop never meets assumption {k}")
        goal = spec.sys_liveness[run["goal"]].formula
        if any(evaluate(goal, full[a], full[b]) for a, b in edges):
            problems.append(f"the loop meets guarantee {run['goal']}, which it should prevent")
    return problems


_STATE = re.compile(r"State (\d+) with rank \((\d+),(\d+)\) -> <(.*)>")


def parse_slugs_counter_strategy(spec: GR1Spec, text: str, initial: int) -> list[dict]:
    """The states of slugs' ``--counterStrategy`` ``text`` for a spec of Boolean variables (the
    first ``initial`` states are the initial ones: slugs lists them first)."""
    inputs = {v.name for v in spec.variables if v.owner == "env"}
    states: list[dict] = []
    for line in text.splitlines():
        found = _STATE.fullmatch(line)
        if found:
            values = dict(part.split(":") for part in found.group(4).split(", ") if part)
            values = {name: value == "1" for name, value in values.items()}
            number = int(found.group(1))
            outputs = {n: v for n, v in values.items() if n not in inputs}
            states.append({"id": number, "rank": [int(found.group(2)), int(found.group(3))],
                           "initial": number < initial,
                           "inputs": {n: v for n, v in values.items() if n in inputs},
                           "outputs": outputs or None, "successors": []})
        elif line.startswith("\tWith successors : "):
            states[-1]["successors"] = [int(t) for t in line.split(":", 1)[1].split(",")]
    for state in states:
        state["deadlock"] = state["outputs"] is None
    return states
