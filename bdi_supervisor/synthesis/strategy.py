"""Explicit Mealy strategies: the contract between synthesis, audit, reduction and realization.

A strategy state is a pair (input valuation, output valuation) as in slugs' explicit strategies:
``inputs`` are the environment's values on arrival (e.g. the outcome just observed), ``outputs``
the system's answer (e.g. the capability activated now). ``successors`` lists one successor state
per admissible next input (each successor's ``inputs`` is that input). ``rank`` is the index of the
system liveness goal currently pursued. A reduced strategy (:mod:`bdi_supervisor.reduce`) merges
states reached by different inputs, so there each state also carries ``edge_inputs``: the input
valuation of each successor edge, parallel to ``successors``; read edges with :meth:`Strategy.edges`
rather than from the successor's ``inputs``. Values are ``bool`` for Boolean variables and ``int`` for
bounded integers, always decoded to named variables (never raw bits).

``strategy.json`` is :func:`to_json` / :func:`from_json` of this model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bdi_supervisor.errors import InputError

Value = bool | int

FORMAT = "bdi_supervisor/strategy"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class VariableInfo:
    """Name, owner and range of a strategy variable (``kind`` ``bool`` or ``int``)."""

    name: str
    owner: str
    kind: str = "bool"
    low: int = 0
    high: int = 1


@dataclass
class StrategyState:
    id: int
    inputs: dict[str, Value]
    outputs: dict[str, Value]
    successors: list[int] = field(default_factory=list)
    rank: int = 0
    initial: bool = False
    #: input valuation per successor edge (parallel to ``successors``); ``None``: each successor's
    #: own ``inputs`` (raw strategies). Set by the reducer.
    edge_inputs: list[dict[str, Value]] | None = None


@dataclass
class Strategy:
    """An explicit Mealy strategy. ``states`` are indexed by ``id`` (ids are 0..n-1)."""

    variables: list[VariableInfo]
    states: list[StrategyState]
    name: str = "strategy"
    metadata: dict = field(default_factory=dict)

    @property
    def initial_states(self) -> list[StrategyState]:
        return [s for s in self.states if s.initial]

    @property
    def input_names(self) -> list[str]:
        return [v.name for v in self.variables if v.owner == "env"]

    @property
    def output_names(self) -> list[str]:
        return [v.name for v in self.variables if v.owner == "sys"]

    def state(self, state_id: int) -> StrategyState:
        return self.states[state_id]

    def edges(self, state_id: int) -> list[tuple[dict[str, Value], int]]:
        """``(input valuation, successor id)`` per outgoing edge of ``state_id``, in order."""
        state = self.states[state_id]
        if state.edge_inputs is not None:
            return list(zip(state.edge_inputs, state.successors))
        return [(self.states[succ].inputs, succ) for succ in state.successors]

    def transition_count(self) -> int:
        return sum(len(s.successors) for s in self.states)


def to_dict(strategy: Strategy) -> dict:
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": strategy.name,
        "variables": [asdict(v) for v in strategy.variables],
        "states": [asdict(s) for s in strategy.states],
        "metadata": strategy.metadata,
    }


def from_dict(data: dict, source: str = "<strategy>") -> Strategy:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(
            "not a bdi_supervisor strategy",
            file=source,
            key="format",
            found=repr(data.get("format") if isinstance(data, dict) else type(data).__name__),
            expected=repr(FORMAT),
        )
    try:
        variables = [VariableInfo(**v) for v in data["variables"]]
        states = [StrategyState(**s) for s in data["states"]]
    except (KeyError, TypeError) as error:
        raise InputError(f"malformed strategy: {error}", file=source) from None
    for index, state in enumerate(states):
        if state.id != index:
            raise InputError("state ids must be 0..n-1 in order", file=source,
                             key=f"states[{index}].id", found=str(state.id), expected=str(index))
        for succ in state.successors:
            if not 0 <= succ < len(states):
                raise InputError("successor out of range", file=source,
                                 key=f"states[{index}].successors", found=str(succ))
        if state.edge_inputs is not None and len(state.edge_inputs) != len(state.successors):
            raise InputError("edge_inputs must have one valuation per successor", file=source,
                             key=f"states[{index}].edge_inputs",
                             found=str(len(state.edge_inputs)), expected=str(len(state.successors)))
    return Strategy(variables, states, data.get("name", "strategy"), data.get("metadata", {}))


def to_json(strategy: Strategy) -> str:
    return json.dumps(to_dict(strategy), indent=1, sort_keys=False)


def from_json(text: str, source: str = "<strategy>") -> Strategy:
    from bdi_supervisor.yamlsource import parse_json

    return from_dict(parse_json(text, source), source)


def load(path: str | Path) -> Strategy:
    from bdi_supervisor.yamlsource import read_text

    return from_json(read_text(path, "strategy file"), str(path))


def save(strategy: Strategy, path: str | Path) -> None:
    """Write atomically (temp file + rename) so no half-written strategy is left behind."""
    from bdi_supervisor.outpaths import write_text_atomic

    write_text_atomic(path, to_json(strategy))
