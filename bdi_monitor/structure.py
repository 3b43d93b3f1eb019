"""Finite-state BDI structures (docs/ctl-bdi.md) and their YAML format.

A structure has directions 1..k (named), worlds (deterministic Kripke structures over the
directions: a state has at most one successor per direction), the belief, desire and intention
relations as deterministic automata over directions whose states output a relation on worlds,
the actual world and state labels.

YAML format (directions are referred to by number 1..k or by name)::

    directions: [task_step, attend_door]
    actual_world: w1
    worlds:
      w1:
        initial: L0
        states:
          L0: {labels: [atL, br], next: {1: F1, 2: D0}}
          ...
    belief:                       # desire, intention: same shape; an omitted one is a single
      initial: q0                 # state with the empty relation
      states:
        q0:
          next: {1: q1, 2: q2}    # a direction left out keeps the automaton in its state
          out: {w1: [w1, w2], w2: [w2]}   # per world its accessible worlds; a plain list [w1, w2]
                                          # means every world reaches exactly these

Every world state needs at least one successor (no deadlocks; add a 'stay' direction), so every
path is infinite and AX/EG/AF have their textbook meaning. A file whose name ends in ``.json``
holds the same data as JSON (JSON object keys are strings: directions may be "1".."k").
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import numeral

if TYPE_CHECKING:
    import yaml

RELATIONS = ("B", "D", "I")
RELATION_KEYS = {"B": "belief", "D": "desire", "I": "intention"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


class Computed(Sequence):
    """A read-only sequence whose items are computed on demand (and kept once read): the
    tables of a large generated structure (its symbolic encoding never reads them;
    certificates, the monitor and the tests read a few)."""

    def __init__(self, length: int, item: Callable[[int], Any]) -> None:
        self._length = length
        self._item = item
        self._read: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        value = self._read.get(index)
        if value is None:
            value = self._read[index] = self._item(index)
        return value

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Computed(<{self._length} items>)"


@dataclass
class World:
    """A deterministic Kripke structure over directions 0..k-1 (shown to users as 1..k).

    ``delta[s][d]`` is the successor of state ``s`` along direction ``d + 1`` or ``None``.
    The tables are lists, or :class:`Computed` sequences for large generated structures.
    """

    name: str
    states: Sequence[str]
    initial: int
    delta: Sequence[Sequence[int | None]]
    labels: Sequence[frozenset[str]]

    def is_total(self) -> bool:
        return all(t is not None for row in self.delta for t in row)


@dataclass
class Automaton:
    """A deterministic, complete automaton over directions with an output relation per state.

    ``tau[q][d]`` is the next state along direction ``d + 1``; ``out[q]`` is a set of world index
    pairs ``(i, j)``: at a time point where the automaton is in ``q``, world ``j`` is accessible
    from world ``i`` (if ``j``'s tree contains the time point).
    """

    states: Sequence[str]
    initial: int
    tau: Sequence[Sequence[int]]
    out: Sequence[frozenset[tuple[int, int]]]

    def same_transitions(self, other: Automaton) -> bool:
        return self.initial == other.initial and self.tau == other.tau


@dataclass
class Structure:
    """A CTL-BDI structure: directions, worlds, the B/D/I automata and the actual world.

    ``encoder``, when a generator sets it, builds the symbolic encoding from the generator's
    rules (:class:`bdi_monitor.encoding.Encoding`); otherwise it is built from the tables.
    """

    directions: list[str]
    worlds: list[World]
    automata: dict[str, Automaton]  # keys "B", "D", "I"
    actual: int = 0
    name: str = "structure"
    propositions: frozenset[str] = field(default_factory=frozenset)
    encoder: Callable[[Structure], Any] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.propositions:
            self.propositions = frozenset(p for w in self.worlds for ls in w.labels for p in ls)

    @property
    def k(self) -> int:
        return len(self.directions)

    def world_index(self, name: str) -> int:
        for index, world in enumerate(self.worlds):
            if world.name == name:
                return index
        raise KeyError(name)


def empty_automaton(k: int) -> Automaton:
    """The single-state automaton with the empty relation (``bel φ`` then holds vacuously)."""
    return Automaton(["q0"], 0, [[0] * k], [frozenset()])


def validate(structure: Structure) -> Structure:
    """Check the invariants the checker relies on; raise :class:`InputError` otherwise."""
    k = structure.k
    if k < 1:
        raise InputError("a structure needs at least one direction", key="directions")
    if not structure.worlds:
        raise InputError("a structure needs at least one world", key="worlds")
    m = len(structure.worlds)
    if not 0 <= structure.actual < m:
        raise InputError("actual world out of range", key="actual_world")
    for world in structure.worlds:
        key = f"worlds.{world.name}"
        n = len(world.states)
        if not 0 <= world.initial < n:
            raise InputError("initial state out of range", key=f"{key}.initial")
        for s, row in enumerate(world.delta):
            if len(row) != k:
                raise InputError("transition row has the wrong length",
                                 key=f"{key}.states.{world.states[s]}.next")
            if all(t is None for t in row):
                raise InputError("state has no successor (deadlock)",
                                 key=f"{key}.states.{world.states[s]}.next",
                                 found="no direction", expected="at least one direction "
                                 "(add a 'stay' direction to keep every path infinite)")
            for t in row:
                if t is not None and not 0 <= t < n:
                    raise InputError("successor out of range",
                                     key=f"{key}.states.{world.states[s]}.next")
    for relation in RELATIONS:
        automaton = structure.automata[relation]
        key = RELATION_KEYS[relation]
        for q, row in enumerate(automaton.tau):
            if len(row) != k or any(not 0 <= t < len(automaton.states) for t in row):
                raise InputError("automaton transition out of range",
                                 key=f"{key}.states.{automaton.states[q]}.next")
        for q, pairs in enumerate(automaton.out):
            if any(not (0 <= i < m and 0 <= j < m) for i, j in pairs):
                raise InputError("output relation names a world out of range",
                                 key=f"{key}.states.{automaton.states[q]}.out")
    return structure


# -- YAML ---------------------------------------------------------------------------------------

class _Doc:
    """A structure document with the source position of every key path (YAML; a JSON document,
    read about a hundred times faster, has positions for syntax errors only)."""

    def __init__(self, text: str, source: str, syntax: str = "yaml") -> None:
        from bdi_supervisor.yamlsource import compose_yaml  # yaml: only for a structure file

        self.source = source
        self.marks: dict[str, tuple[int, int]] = {}
        if syntax == "json":
            self.data = self._json(text)
            return
        node, loader = compose_yaml(text, source)  # size, depth and alias limits
        loader.dispose()
        self.data = self._build(node, "") if node is not None else None

    def _json(self, text: str) -> Any:
        from bdi_supervisor.yamlsource import parse_json

        def unique(items: list[tuple[str, Any]]) -> dict[str, Any]:
            result: dict[str, Any] = {}
            for key, value in items:
                if key in result:
                    raise InputError("duplicate key", file=self.source, found=repr(key))
                result[key] = value
            return result

        return parse_json(text, self.source, pairs=unique)

    def _build(self, node: yaml.Node, path: str) -> Any:
        import yaml

        self.marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                key = self._scalar(key_node)
                sub = f"{path}.{key}" if path else str(key)
                if key in result:
                    raise self.error("duplicate key", sub, found=repr(key))
                result[key] = self._build(value_node, sub)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self._build(item, f"{path}[{i}]") for i, item in enumerate(node.value)]
        return self._scalar(node)

    @staticmethod
    def _scalar(node: yaml.Node) -> Any:
        import yaml

        if not isinstance(node, yaml.ScalarNode):
            return f"<{node.id}>"
        return yaml.constructor.SafeConstructor().construct_object(node, deep=True)

    def error(self, message: str, key: str, found: str | None = None,
              expected: str | None = None) -> InputError:
        probe = key
        while probe and probe not in self.marks:
            probe = probe.rsplit(".", 1)[0] if "." in probe else ""
        line, column = self.marks.get(probe, (None, None))
        return InputError(message, file=self.source, key=key or None, line=line, column=column,
                          found=found, expected=expected)


def _require_map(doc: _Doc, value: Any, key: str, what: str) -> dict:
    if not isinstance(value, dict):
        raise doc.error(f"{what} must be a mapping", key, found=_kind(value), expected="a mapping")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: f"'{value}'"}.get(type(value), repr(value))


def _check_keys(doc: _Doc, mapping: dict, allowed: Iterable[str], key: str) -> None:
    allowed = tuple(allowed)
    for name in mapping:
        if name not in allowed:
            sub = f"{key}.{name}" if key else str(name)
            raise doc.error("unknown key", sub, found=repr(name),
                            expected="one of " + ", ".join(allowed))


def _name(doc: _Doc, value: Any, key: str, what: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise doc.error(f"bad {what} name", key, found=_kind(value),
                        expected="a name of letters, digits, '_' or '.' not starting with a digit")
    return value


def _direction(doc: _Doc, value: Any, directions: Sequence[str], key: str) -> int:
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value not in directions:
        with contextlib.suppress(ValueError):
            value = numeral(value)  # JSON keys are strings
    if isinstance(value, int) and 1 <= value <= len(directions):
        return value - 1
    if isinstance(value, str) and value in directions:
        return directions.index(value)
    raise doc.error("unknown direction", key, found=_kind(value),
                    expected=f"a number 1..{len(directions)} or one of {', '.join(directions)}")


def _states(doc: _Doc, data: Any, key: str, what: str, state: str
            ) -> tuple[dict, dict, list[str]]:
    """A world's or automaton's mapping (keys ``initial``, ``states``), its non-empty ``states``
    mapping and the state names, each checked."""
    data = _require_map(doc, data, key, what)
    _check_keys(doc, data, ("initial", "states"), key)
    states_data = _require_map(doc, data.get("states"), f"{key}.states", "states")
    if not states_data:
        raise doc.error(f"{what} needs at least one state", f"{key}.states")
    return data, states_data, [_name(doc, s, f"{key}.states.{s}", state) for s in states_data]


def _parse_world(doc: _Doc, name: str, data: Any, directions: list[str]) -> World:
    key = f"worlds.{name}"
    data, states_data, names = _states(doc, data, key, "a world", "state")
    index = {s: i for i, s in enumerate(names)}
    k = len(directions)
    delta: list[list[int | None]] = []
    labels: list[frozenset[str]] = []
    for s in names:
        skey = f"{key}.states.{s}"
        entry = states_data[s] if states_data[s] is not None else {}
        entry = _require_map(doc, entry, skey, "a state")
        _check_keys(doc, entry, ("labels", "next"), skey)
        raw_labels = entry.get("labels", [])
        if not isinstance(raw_labels, list):
            raise doc.error("labels must be a list", f"{skey}.labels", found=_kind(raw_labels),
                            expected="a list of proposition names")
        labels.append(frozenset(_name(doc, p, f"{skey}.labels[{i}]", "proposition")
                                for i, p in enumerate(raw_labels)))
        row: list[int | None] = [None] * k
        nexts = _require_map(doc, entry.get("next", {}), f"{skey}.next", "next")
        for d_raw, target in nexts.items():
            d = _direction(doc, d_raw, directions, f"{skey}.next.{d_raw}")
            if row[d] is not None:
                raise doc.error("direction given twice", f"{skey}.next.{d_raw}")
            row[d] = _at(index, target)
            if row[d] is None:
                raise doc.error("unknown successor state", f"{skey}.next.{d_raw}",
                                found=_kind(target), expected=f"a state of world {name}")
        if all(t is None for t in row):
            raise doc.error("state has no successor (deadlock)", f"{skey}.next",
                            found="no direction", expected="at least one direction (add a "
                            "'stay' direction to keep every path infinite)")
        delta.append(row)
    initial = _at(index, data.get("initial", names[0]))
    if initial is None:
        raise doc.error("unknown initial state", f"{key}.initial",
                        found=_kind(data.get("initial")), expected=f"a state of world {name}")
    return World(name, names, initial, delta, labels)


def _at(index: dict[str, int], value: Any) -> int | None:
    """The position of the name ``value`` in ``index``; None for anything else, a list or a
    mapping where a name belongs included (they cannot be looked up)."""
    return index.get(value) if isinstance(value, str) else None


def _parse_automaton(doc: _Doc, key: str, data: Any, directions: list[str],
                     worlds: list[str]) -> Automaton:
    data, states_data, names = _states(doc, data, key, "an automaton", "automaton state")
    index = {q: i for i, q in enumerate(names)}
    windex = {w: i for i, w in enumerate(worlds)}
    tau: list[list[int]] = []
    out: list[frozenset[tuple[int, int]]] = []
    for i, q in enumerate(names):
        qkey = f"{key}.states.{q}"
        entry = _require_map(doc, states_data[q] if states_data[q] is not None else {}, qkey,
                             "an automaton state")
        _check_keys(doc, entry, ("next", "out"), qkey)
        row = [i] * len(directions)
        for d_raw, target in _require_map(doc, entry.get("next", {}), f"{qkey}.next",
                                          "next").items():
            d = _direction(doc, d_raw, directions, f"{qkey}.next.{d_raw}")
            position = _at(index, target)
            if position is None:
                raise doc.error("unknown automaton state", f"{qkey}.next.{d_raw}",
                                found=_kind(target), expected=f"a state of {key}")
            row[d] = position
        tau.append(row)

        def world_of(value: Any, at: str) -> int:
            position = _at(windex, value)
            if position is None:
                raise doc.error("unknown world", at, found=_kind(value),
                                expected="one of " + ", ".join(worlds))
            return position

        raw = entry.get("out", [])
        pairs: set[tuple[int, int]] = set()
        if isinstance(raw, list):
            targets = [world_of(w, f"{qkey}.out[{n}]") for n, w in enumerate(raw)]
            pairs = {(a, b) for a in range(len(worlds)) for b in targets}
        elif isinstance(raw, dict):
            for source, targets_raw in raw.items():
                a = world_of(source, f"{qkey}.out.{source}")
                if not isinstance(targets_raw, list):
                    raise doc.error("accessible worlds must be a list", f"{qkey}.out.{source}",
                                    found=_kind(targets_raw), expected="a list of worlds")
                pairs |= {(a, world_of(w, f"{qkey}.out.{source}[{n}]"))
                          for n, w in enumerate(targets_raw)}
        else:
            raise doc.error("out must be a list of worlds or a mapping world -> worlds",
                            f"{qkey}.out", found=_kind(raw))
        out.append(frozenset(pairs))
    initial = _at(index, data.get("initial", names[0]))
    if initial is None:
        raise doc.error("unknown initial state", f"{key}.initial",
                        found=_kind(data.get("initial")), expected=f"a state of {key}")
    return Automaton(names, initial, tau, out)


def from_yaml(text: str, source: str = "<string>") -> Structure:
    """Parse and validate a structure from YAML text."""
    return _from_doc(_Doc(text, source))


def from_json(text: str, source: str = "<string>") -> Structure:
    """Parse and validate a structure from JSON text (the YAML format's data as JSON)."""
    return _from_doc(_Doc(text, source, syntax="json"))


def _from_doc(doc: _Doc) -> Structure:
    source = doc.source
    data = _require_map(doc, doc.data, "", "the structure")
    _check_keys(doc, data, ("name", "directions", "worlds", "actual_world", "belief", "desire",
                            "intention"), "")
    raw_dirs = data.get("directions")
    if not isinstance(raw_dirs, list) or not raw_dirs:
        raise doc.error("directions must be a non-empty list of names", "directions",
                        found=_kind(raw_dirs), expected="e.g. [north, east, stay]")
    directions = [_name(doc, d, f"directions[{i}]", "direction") for i, d in enumerate(raw_dirs)]
    if len(set(directions)) != len(directions):
        raise doc.error("duplicate direction name", "directions")
    worlds_data = _require_map(doc, data.get("worlds"), "worlds", "worlds")
    if not worlds_data:
        raise doc.error("a structure needs at least one world", "worlds")
    world_names = [_name(doc, w, f"worlds.{w}", "world") for w in worlds_data]
    worlds = [_parse_world(doc, w, worlds_data[w], directions) for w in world_names]
    automata = {}
    for relation in RELATIONS:
        key = RELATION_KEYS[relation]
        automata[relation] = (_parse_automaton(doc, key, data[key], directions, world_names)
                              if data.get(key) is not None else empty_automaton(len(directions)))
    actual = data.get("actual_world", world_names[0])
    if actual not in world_names:
        raise doc.error("unknown actual world", "actual_world", found=_kind(actual),
                        expected="one of " + ", ".join(world_names))
    name = data.get("name", Path(source).stem if source != "<string>" else "structure")
    return validate(Structure(directions, worlds, automata, world_names.index(actual), str(name)))


def load(path: str | os.PathLike) -> Structure:
    """Read and validate a structure file: YAML, or JSON when the name ends in ``.json``."""
    from bdi_supervisor.yamlsource import read_text

    text = read_text(path, "structure file")
    if Path(path).suffix.lower() == ".json":
        return from_json(text, str(path))
    return from_yaml(text, str(path))


def to_data(structure: Structure) -> dict[str, Any]:
    """The YAML-ready dictionary of ``structure`` (inverse of :func:`from_yaml`)."""
    wnames = [w.name for w in structure.worlds]
    data: dict[str, Any] = {"name": structure.name, "directions": list(structure.directions),
                            "actual_world": wnames[structure.actual], "worlds": {}}
    for world in structure.worlds:
        states = {}
        for s, sname in enumerate(world.states):
            entry: dict[str, Any] = {"labels": sorted(world.labels[s])}
            entry["next"] = {d + 1: world.states[t] for d, t in enumerate(world.delta[s])
                             if t is not None}
            states[sname] = entry
        data["worlds"][world.name] = {"initial": world.states[world.initial], "states": states}
    for relation in RELATIONS:
        automaton = structure.automata[relation]
        states = {}
        for q, qname in enumerate(automaton.states):
            nexts = {d + 1: automaton.states[t] for d, t in enumerate(automaton.tau[q]) if t != q}
            out: dict[str, list[str]] = {}
            for i, j in sorted(automaton.out[q]):
                out.setdefault(wnames[i], []).append(wnames[j])
            states[qname] = {"next": nexts, "out": out}
        data[RELATION_KEYS[relation]] = {"initial": automaton.states[automaton.initial],
                                         "states": states}
    return data


def dump(structure: Structure, path: str | os.PathLike) -> None:
    """Write ``structure`` atomically (temporary file + rename): YAML, or compact JSON when
    the name ends in ``.json`` (large structures load much faster from JSON)."""
    import yaml

    from bdi_supervisor.outpaths import write_text_atomic

    if Path(path).suffix.lower() == ".json":
        import json

        text = json.dumps(to_data(structure), separators=(",", ":")) + "\n"
    else:
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        text = yaml.dump(to_data(structure), Dumper=dumper, sort_keys=False,
                         default_flow_style=None, width=100)
    write_text_atomic(path, text, "structure file")
