"""Sweep files: a grid over missions × encoding × liveness × pending × ordering seeds ×
reordering settings × repeats, validated, expanded into :class:`Trial` parameter sets.

A sweep file (paths relative to the file)::

    name: ci_small
    missions: [../missions/coffee.yaml]
    encoding: [one-hot, enumerated]        # default [one-hot]
    liveness: [system-goal, fair-outcome]  # default [system-goal]
    pending: [true, false]                 # default [true]
    declaration_order: alphabetic          # alphabetic | as-written | random
    seeds: [0, 1, 2]                       # ordering seeds (meaningful with random)
    reordering:                            # reordering settings
      - {enabled: true, threshold: null}
    repeats: 1
    budgets: {time_s: 60, nodes: null}     # per trial
    execute: false                         # also run forced-outcome acceptance (executable)
    compare: paper_verdicts.yaml           # a verdict reference file (sweep/verdicts.py)

Each trial's key is a hash of its parameters, so a sweep can be resumed and extended.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.limits import MAX_SWEEP_TRIALS, excerpt, positive_finite
from bdi_supervisor.options import ENCODINGS, LIVENESS, ORDERS, SynthesisOptions
from bdi_supervisor.outpaths import check_name
from bdi_supervisor.yamlsource import YamlDoc, file_problem, load_yaml

KEYS = ("name", "missions", "encoding", "liveness", "pending", "declaration_order", "seeds",
        "reordering", "repeats", "budgets", "execute", "compare")


@dataclass(frozen=True)
class Trial:
    """The parameters of one synthesis trial (all JSON-serializable)."""

    mission: str
    encoding: str
    liveness: str
    pending: bool
    declaration_order: str
    seed: int
    reordering: bool
    reordering_threshold: int | None
    repeat: int
    time_budget_s: float | None
    node_budget: int | None
    #: also run forced-outcome acceptance of the realized supervisor
    execute: bool = False

    @property
    def params(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def key(self) -> str:
        """Stable hash of the parameters (mission by file name, so sweeps can move; ``execute``
        only when set, so the keys of sweeps without it stay what they were)."""
        params = dict(self.params, mission=Path(self.mission).name)
        if not self.execute:
            del params["execute"]
        text = json.dumps(params, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def config(self) -> str:
        """Configuration label as in the paper's tables: ``one-hot-SP``, ``enumerated-F``…"""
        return SynthesisOptions(encoding=self.encoding, liveness=self.liveness,
                                pending=self.pending).config

    def overrides(self) -> dict[str, Any]:
        """The trial's :class:`SynthesisOptions` fields, over the mission's."""
        return {"encoding": self.encoding, "liveness": self.liveness, "pending": self.pending,
                "declaration_order": self.declaration_order, "seed": self.seed,
                "reordering": self.reordering, "reorder_threshold": self.reordering_threshold,
                "time_budget": self.time_budget_s, "node_budget": self.node_budget}


@dataclass(frozen=True)
class Sweep:
    name: str
    file: str
    trials: tuple[Trial, ...]
    #: the verdict reference file to compare with (``compare:``), resolved
    compare: str | None = None


def _choices(doc: YamlDoc, key: str, default: list, allowed: tuple | None, kind: type,
             what: str) -> list:
    value = doc.data.get(key, default)
    values = value if isinstance(value, list) else [value]
    if not values:
        raise doc.error("empty list", (key,), found="[]", expected=what)
    for i, item in enumerate(values):
        path = (key, i) if isinstance(value, list) else (key,)
        doc.expect(item, kind, path, what)
        if allowed is not None and item not in allowed:
            raise doc.error("unknown value", path, found=repr(item), expected=" | ".join(allowed))
    return values


def _positive(doc: YamlDoc, value: Any, path: tuple, kind: type | tuple, what: str) -> Any:
    if value is None:
        return None
    doc.expect(value, kind, path, what)
    if not positive_finite(value):
        raise doc.error("must be positive", path, found=repr(value), expected=what)
    return value


def _reordering(doc: YamlDoc) -> list[tuple[bool, int | None]]:
    value = doc.data.get("reordering", [{"enabled": True, "threshold": None}])
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        path = ("reordering", i) if isinstance(value, list) else ("reordering",)
        if isinstance(item, bool):
            out.append((item, None))
            continue
        doc.expect(item, dict, path, "true | false | {enabled: BOOL, threshold: INT|null}")
        doc.check_keys(item, path, ("enabled", "threshold"))
        enabled = doc.expect(item.get("enabled", True), bool, (*path, "enabled"), "true | false")
        threshold = _positive(doc, item.get("threshold"), (*path, "threshold"), int,
                              "a positive integer or null")
        out.append((enabled, threshold))
    return out


def sweep_from_doc(doc: YamlDoc) -> Sweep:
    """Validate a parsed sweep file and expand its grid (InputError naming the key)."""
    if not isinstance(doc.data, dict):
        raise doc.error("a sweep file must be a mapping", (), found=type(doc.data).__name__,
                        expected="a mapping with keys " + ", ".join(KEYS))
    doc.check_keys(doc.data, (), KEYS, required=("missions",))
    base = Path(doc.file).parent if doc.file else Path(".")
    name = doc.expect(doc.data.get("name", Path(doc.file or "sweep").stem), str, ("name",),
                      "a name")
    check_name(name, "sweep name", key="name", file=doc.file)
    missions = []
    for i, item in enumerate(_choices(doc, "missions", [], None, str, "mission file paths")):
        problem = file_problem(base / item)
        if problem is not None:
            raise doc.error(f"mission file {problem}", ("missions", i), found=excerpt(item),
                            expected="an existing mission YAML file")
        missions.append(str((base / item).resolve()))
    encodings = _choices(doc, "encoding", ["one-hot"], ENCODINGS, str, " | ".join(ENCODINGS))
    liveness = _choices(doc, "liveness", ["system-goal"], LIVENESS, str, " | ".join(LIVENESS))
    pending = _choices(doc, "pending", [True], None, bool, "true | false")
    order = doc.expect(doc.data.get("declaration_order", "alphabetic"), str,
                       ("declaration_order",), " | ".join(ORDERS))
    if order not in ORDERS:
        raise doc.error("unknown value", ("declaration_order",), found=repr(order),
                        expected=" | ".join(ORDERS))
    seeds = _choices(doc, "seeds", [0], None, int, "integer seeds")
    reorderings = _reordering(doc)
    repeats = _positive(doc, doc.data.get("repeats", 1), ("repeats",), int, "a positive integer")
    budgets = doc.data.get("budgets", {}) or {}
    doc.expect(budgets, dict, ("budgets",), "{time_s: SECONDS, nodes: COUNT}")
    doc.check_keys(budgets, ("budgets",), ("time_s", "nodes"))
    time_s = _positive(doc, budgets.get("time_s"), ("budgets", "time_s"), (int, float),
                       "positive seconds or null")
    nodes = _positive(doc, budgets.get("nodes"), ("budgets", "nodes"), int,
                      "a positive node count or null")
    execute = doc.expect(doc.data.get("execute", False), bool, ("execute",), "true | false")
    compare = doc.data.get("compare")
    if compare is not None:
        doc.expect(compare, str, ("compare",), "a verdict reference file")
        problem = file_problem(base / compare)
        if problem is not None:
            raise doc.error(f"verdict reference file {problem}", ("compare",),
                            found=excerpt(compare), expected="an existing YAML file")
        compare = str((base / compare).resolve())
    axes = {"missions": missions, "encoding": encodings, "liveness": liveness,
            "pending": pending, "seeds": seeds, "reordering": reorderings}
    _check_distinct(doc, axes)
    _check_size(doc, [*map(len, axes.values()), repeats or 1])
    trials = tuple(
        Trial(m, e, lv, p, order, s, r, t, k, time_s, nodes, execute)
        for m, e, lv, p, s, (r, t), k in itertools.product(
            *axes.values(), range(repeats or 1)))
    return Sweep(name, str(doc.file), trials, compare)


def _check_distinct(doc: YamlDoc, axes: dict[str, list]) -> None:
    """Each value of an axis once (the grid would hold the same trial twice); missions by file
    name, which the trial keys use so that a sweep can move."""
    for key, values in axes.items():
        seen: dict[Any, int] = {}
        for index, value in enumerate(values):
            same = Path(value).name if key == "missions" else value
            if same not in seen:
                seen[same] = index
                continue
            first = seen[same]
            if key == "missions":
                raise doc.error(f"missions {values[first]} and {value} have the same file "
                                "name (trial keys use the file name, so that a sweep can move)",
                                (key, index), found=same,
                                expected="mission files with distinct names")
            raise doc.error(f"the grid lists the same trial twice: {key} repeats a value",
                            (key, index), found=f"{excerpt(same)} (also {key}[{first}])",
                            expected="distinct values")


def _check_size(doc: YamlDoc, lengths: list[int]) -> None:
    """Refuse a grid of more than ``MAX_SWEEP_TRIALS`` trials before building it."""
    count = math.prod(lengths)
    if count > MAX_SWEEP_TRIALS:
        raise doc.error(f"the grid has {count:,} trials, more than the limit of "
                        f"{MAX_SWEEP_TRIALS:,}", (), found=" x ".join(f"{n:,}" for n in lengths)
                        + " (missions x encoding x liveness x pending x seeds x reordering x "
                          "repeats)", expected="a smaller grid, or several sweeps")


def load_sweep(path: str | Path) -> Sweep:
    """Read, validate and expand a sweep file."""
    return sweep_from_doc(load_yaml(path))
