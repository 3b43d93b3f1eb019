"""Explicit Mealy strategies: the contract between synthesis, audit, reduction and realization.

A strategy state is a pair (input valuation, output valuation) as in slugs' explicit strategies:
``inputs`` are the environment's values on arrival (e.g. the outcome just observed), ``outputs`` the
system's answer (e.g. the capability activated now). ``successors`` lists one successor state per
admissible next input (each successor's ``inputs`` is that input). ``rank`` is the index of the
system liveness goal currently pursued. A reduced strategy (:mod:`bdi_supervisor.reduce`) merges
states reached by different inputs, so there each state also carries ``edge_inputs``: the input
valuation of each successor edge, parallel to ``successors``; read edges with :meth:`Strategy.edges`
rather than from the successor's ``inputs``. Values are ``bool`` for Boolean variables and ``int``
for bounded integers, always decoded to named variables (never raw bits).

``strategy.json`` is :func:`to_json` / :func:`from_json` of this model.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bdi_supervisor.errors import InputError
from bdi_supervisor.spec.gr1 import Variable

Value = bool | int

FORMAT = "bdi_supervisor/strategy"
FORMAT_VERSION = 1


@dataclass
class StrategyState:
    """One state of an explicit strategy: its valuation, successors, goal rank and whether it
    is initial."""

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

    variables: list[Variable]
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
        "variables": [{"name": v.name, "owner": v.owner, "kind": v.kind, "low": v.low,
                       "high": v.high} for v in strategy.variables],
        "states": [asdict(s) for s in strategy.states],
        "metadata": strategy.metadata,
    }


def from_dict(data: dict, source: str = "<strategy>") -> Strategy:
    """The strategy ``data`` describes, validated whole: format and version, variable names,
    owners, kinds and ranges, and every state's ids, valuations (known variables of the right
    owner, values of their kind within their range), successors and ranks. Anything else is an
    :class:`InputError` naming the key (``states[3].outputs.item``)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(
            "not a bdi_supervisor strategy",
            file=source,
            key="format",
            found=repr(data.get("format") if isinstance(data, dict) else type(data).__name__),
            expected=repr(FORMAT),
        )
    check = _Checker(source)
    version = data.get("version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise check.error("unsupported strategy format version", "version", version,
                          str(FORMAT_VERSION))
    name = data.get("name", "strategy")
    if not isinstance(name, str):
        raise check.error("the strategy name is not a string", "name", name, "a string")
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        raise check.error("metadata is not a mapping", "metadata", metadata, "a mapping")
    variables = check.variables(data.get("variables"))
    states = check.states(data.get("states"), variables)
    return Strategy(variables, states, name, metadata)


_STATE_KEYS = ("id", "inputs", "outputs", "successors", "rank", "initial", "edge_inputs")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_@.\[\]']*\Z")


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Checker:
    """The checks of :func:`from_dict`, each an :class:`InputError` naming the key."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.ranges: dict[str, tuple[str, str, int, int]] = {}

    def error(self, message: str, key: str, found: object, expected: str) -> InputError:
        from bdi_supervisor.limits import excerpt

        return InputError(message, file=self.source, key=key, found=excerpt(found),
                          expected=expected)

    def variables(self, raw: object) -> list[Variable]:
        if not isinstance(raw, list):
            raise self.error("variables is not a list", "variables", raw, "a list of variables")
        out = []
        for index, item in enumerate(raw):
            key = f"variables[{index}]"
            if not isinstance(item, dict) or set(item) - {"name", "owner", "kind", "low", "high"}:
                raise self.error("malformed variable", key, item,
                                 "{name, owner, kind, low, high}")
            info = Variable(**{"kind": "bool", "low": 0, "high": 1, **item}) \
                if "name" in item and "owner" in item else None
            if info is None:
                raise self.error("a variable needs a name and an owner", key, item,
                                 "{name, owner, kind, low, high}")
            if not isinstance(info.name, str) or not _VARIABLE_NAME.match(info.name):
                raise self.error("unsafe variable name", f"{key}.name", info.name,
                                 "letters, digits, '_', '@', '.', brackets, \"'\"")
            if info.name in self.ranges:
                raise self.error("duplicate variable", f"{key}.name", info.name,
                                 "each variable once")
            if info.owner not in ("env", "sys"):
                raise self.error("bad variable owner", f"{key}.owner", info.owner, "env or sys")
            if info.kind not in ("bool", "int"):
                raise self.error("bad variable kind", f"{key}.kind", info.kind, "bool or int")
            if not (_integer(info.low) and _integer(info.high) and info.low <= info.high) or (
                    info.kind == "bool" and (info.low, info.high) != (0, 1)):
                raise self.error("bad variable range", key, (info.low, info.high),
                                 "integers low <= high (0 and 1 for bool)")
            self.ranges[info.name] = (info.owner, info.kind, info.low, info.high)
            out.append(info)
        return out

    def valuation(self, raw: object, owner: str, key: str) -> dict[str, Value]:
        if not isinstance(raw, dict):
            raise self.error("a valuation is not a mapping", key, raw, "variable: value")
        for name, value in raw.items():
            spec = self.ranges.get(name)
            if spec is None or spec[0] != owner:
                raise self.error(f"not an {'input' if owner == 'env' else 'output'} variable of "
                                 "the strategy", f"{key}.{name}", name,
                                 f"a declared {owner} variable")
            _, kind, low, high = spec
            if (kind == "bool" and not isinstance(value, bool)) or (kind == "int" and not (
                    _integer(value) and low <= value <= high)):
                raise self.error("value out of the variable's range", f"{key}.{name}", value,
                                 "true or false" if kind == "bool" else f"an integer {low}..{high}")
        return raw

    def states(self, raw: object, variables: list[Variable]) -> list[StrategyState]:
        if not isinstance(raw, list):
            raise self.error("states is not a list", "states", raw, "a list of states")
        out = []
        for index, item in enumerate(raw):
            key = f"states[{index}]"
            if not isinstance(item, dict) or set(item) - set(_STATE_KEYS) or not {
                    "id", "inputs", "outputs"} <= set(item):
                raise self.error("malformed state", key, item,
                                 "{id, inputs, outputs, successors, rank, initial, edge_inputs}")
            state = StrategyState(**item)
            if state.id != index or not _integer(state.id):
                raise self.error("state ids must be 0..n-1 in order", f"{key}.id", state.id,
                                 str(index))
            self.valuation(state.inputs, "env", f"{key}.inputs")
            self.valuation(state.outputs, "sys", f"{key}.outputs")
            if not isinstance(state.successors, list) or not all(
                    _integer(s) and 0 <= s < len(raw) for s in state.successors):
                raise self.error("successor out of range", f"{key}.successors",
                                 state.successors, f"state ids 0..{len(raw) - 1}")
            if not _integer(state.rank) or state.rank < 0:
                raise self.error("bad rank", f"{key}.rank", state.rank, "an integer >= 0")
            if not isinstance(state.initial, bool):
                raise self.error("bad initial flag", f"{key}.initial", state.initial,
                                 "true or false")
            if state.edge_inputs is not None:
                if not isinstance(state.edge_inputs, list) or \
                        len(state.edge_inputs) != len(state.successors):
                    raise self.error("edge_inputs must have one valuation per successor",
                                     f"{key}.edge_inputs", state.edge_inputs,
                                     f"{len(state.successors)} valuations")
                for number, valuation in enumerate(state.edge_inputs):
                    self.valuation(valuation, "env", f"{key}.edge_inputs[{number}]")
            out.append(state)
        return out


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
