"""Explaining an unrealizable mission: the explanation of its spec in the mission's terms, and
its counter-run replayed by the embedded executor with forced outcomes.

:func:`explain_mission` is what ``bdi-supervisor explain MISSION`` prints and what the
synthesis stage writes as ``explanation.json`` for an unrealizable mission;
:func:`load_counter_run` is the counter-run saved there, as a supervisor ``run --from`` runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.pipeline.prepared import Prepared
from bdi_supervisor.spec.gr1 import GR1Spec

if TYPE_CHECKING:
    from bdi_supervisor.mission.model import Mission


@dataclass
class MissionExplanation:
    """An :class:`~bdi_supervisor.explain.explanation.Explanation` of a mission's spec, with
    its counter-run replayed by the embedded executor (``timeline``; None without a
    counter-run) and the forced outcomes that replay it (``replay``)."""

    mission: Mission
    config: str
    explanation: Any
    replay: Any = None
    timeline: Any = None

    def to_dict(self) -> dict:
        data = self.explanation.to_dict()
        data["mission"] = self.mission.name
        data["config"] = self.config
        if self.explanation.lasso is not None:
            from bdi_supervisor.synthesis.strategy import to_dict

            data["counter_run"]["strategy"] = to_dict(self.explanation.lasso)
        if self.replay is not None:
            data["counter_run"]["replay"] = self.replay.to_dict()
        if self.timeline is not None:
            data["counter_run"]["timeline"] = self.timeline.to_dict()
        return data


def mission_namer(mission: Mission) -> Any:
    """Names of spec clauses in the mission's terms, with the catalog's lines."""
    from bdi_supervisor.explain.naming import Namer
    from bdi_supervisor.yamlsource import load_yaml

    path = getattr(mission, "catalog_path", None)
    doc = load_yaml(path, "capability catalog") if path else None
    return Namer(doc, path)


def explain_mission(mission: Mission, overrides: dict | None = None, *, spec: GR1Spec | None = None,
                    max_states: int | None = None, assumptions: bool = True,
                    assumption_checks: int | None = None) -> MissionExplanation:
    """Explain a mission's spec (generated here unless ``spec`` is given) and replay its
    counter-run with forced outcomes (the embedded executor, ``forced`` simulator).
    ``overrides`` replace fields of the mission's synthesis options, as in ``pipeline.run``;
    ``assumption_checks``: see :class:`~bdi_supervisor.explain.explanation.ExplainOptions`
    (None: its default)."""
    from bdi_supervisor.common import Realizability
    from bdi_supervisor.errors import BudgetExceeded
    from bdi_supervisor.explain.explanation import (
        DEFAULT_ASSUMPTION_CHECKS,
        ExplainOptions,
        Explanation,
        explain,
    )
    from bdi_supervisor.specgen.generate import generate_spec
    from bdi_supervisor.synthesis.gr1 import Budget

    overrides = dict(overrides or {})
    options = dataclasses.replace(mission.synthesis, **overrides)
    if spec is None:  # the time budget covers generating the spec too
        budget = Budget(options.time_budget)
        try:
            spec = generate_spec(mission, check=budget.check_time, **overrides)
        except BudgetExceeded as exhausted:
            return MissionExplanation(mission, options.config, Explanation(
                mission.name, Realizability.INCOMPLETE,
                incomplete_reason=f"{exhausted} during spec generation"))
        left = budget.remaining()
        if left is not None:
            options = dataclasses.replace(options, time_budget=max(left, 1e-3))
    # the generated spec is already in the mission's declaration order
    solver = dataclasses.replace(options, order="as-written")
    checks = DEFAULT_ASSUMPTION_CHECKS if assumption_checks is None else assumption_checks
    explanation = explain(spec, ExplainOptions(solver, max_states, assumptions, checks),
                          mission_namer(mission))
    explained = MissionExplanation(mission, options.config, explanation)
    if explanation.lasso is not None and explanation.run is not None:
        if any(_activates(mission, state.outputs) for state in explanation.lasso.states):
            explained.replay, explained.timeline = replay_counter_run(mission, explanation)
        else:
            explanation.counter_run["note"] = ("the supervisor has no first step: no "
                                               "capability can start")
    return explained


def _activates(mission: Mission, outputs: dict) -> bool:
    """Do a strategy state's outputs start a capability (either encoding)?"""
    from bdi_supervisor.specgen.propositions import BOOTSTRAP_CAPABILITY, activation

    if outputs.get("capability"):
        return True
    return any(outputs.get(activation(c)) for c in mission.catalog.capabilities
               if c != BOOTSTRAP_CAPABILITY)


def counter_run_endings(run: dict) -> Any:
    """How a replay of the counter-run ``run`` (its record: ``end``, ``loop_start``, ``goal``,
    ``prevented``) is labelled: by the game's ending, never as an assumption violation (every
    input of a counter-run is one the assumptions allow). A deadlock ends ``deadlock`` (the
    environment's last outcome leaves the supervisor no safe move), a loop at the step limit
    ``loop`` (a guarantee never holds again), an outcome the play does not contain ``stopped``
    (the replay left the counter-run)."""
    from bdi_supervisor.explain.counterrun import DEADLOCK, LOOP
    from bdi_supervisor.runtime.executor import Endings

    left = ("stopped", "outcome {outcome!r} of {capability} at {state} is not the counter-run's "
                       "(the replay left the play)")
    if run.get("end") == DEADLOCK:
        return Endings(unanswered=(
            "deadlock", "the environment's outcome {outcome!r} of {capability} at {state} leaves "
                        "the supervisor no move that keeps its safety guarantees (a deadlock: "
                        "the environment wins)"), unanswered_outcome=None)
    if run.get("end") == LOOP:
        prevented = run.get("prevented")
        what = (f"guarantee {prevented.get('description')}" if isinstance(prevented, dict)
                else f"liveness guarantee {run.get('goal')}")
        what = what.replace("{", "{{").replace("}", "}}")
        return Endings(unanswered=left, unanswered_outcome=None, limit=(
            "loop", f"the play loops back to step {run.get('loop_start')} for ever: {what} never "
                    "holds again while every assumption does (replayed for {max_steps} steps)"))
    return Endings(unanswered=left, unanswered_outcome=None)


def replay_counter_run(mission: Mission, explanation: Any) -> tuple[Any, Any]:
    """Run the counter-run's lasso strategy with its outcomes forced: (replay, run result)."""
    from bdi_supervisor.explain.replay import mission_machine, replay_script
    from bdi_supervisor.runtime.session import RunOptions, run_supervisor

    machine = mission_machine(explanation.lasso, mission)
    replay = replay_script(machine, mission.catalog, explanation.run)
    result = run_supervisor(mission, machine, explanation.lasso, options=RunOptions(
        sim="forced", force=replay.force or None, max_steps=replay.max_steps,
        endings=counter_run_endings(explanation.counter_run)))
    return replay, result


def load_counter_run(path: Path, mission: Mission) -> Prepared:
    """The counter-run saved in an ``explanation.json`` as a supervisor to run (``run --from
    explanation.json --force ...`` replays it)."""
    from bdi_supervisor.explain.replay import mission_machine
    from bdi_supervisor.limits import excerpt
    from bdi_supervisor.specgen.match import check_variables
    from bdi_supervisor.synthesis.strategy import from_dict
    from bdi_supervisor.yamlsource import load_json

    data = load_json(path, "explanation")
    run = data.get("counter_run") if isinstance(data, dict) else None
    if not isinstance(run, dict) or not isinstance(run.get("strategy"), dict):
        raise InputError("the explanation has no counter-run", file=str(path),
                         key="counter_run.strategy",
                         expected="an explanation.json of an unrealizable mission")
    if data.get("mission") != mission.name:
        raise InputError(f"the explanation is not one of mission {mission.name!r}",
                         file=str(path), key="mission", found=excerpt(data.get("mission")),
                         expected=f"an explanation.json of mission {mission.name!r}")
    lasso = from_dict(run["strategy"], str(path))
    check_variables(lasso.variables, mission, str(path), "counter-run")
    machine = mission_machine(lasso, mission)
    counts = {"raw": len(lasso.states), "reduced": len(lasso.states),
              "realized": len(machine.states)}
    return Prepared(lasso, lasso, machine, counts, None, str(path),
                    endings=counter_run_endings(run))
