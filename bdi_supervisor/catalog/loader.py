"""Load and validate capability catalogs (the reference pipeline's YAML, unchanged, plus
extensions).

Public API:

- :func:`load_catalog` — a catalog file to a :class:`~bdi_supervisor.catalog.model.Catalog`, with
  the bundled default mappings (``bdi_supervisor/data/global_mappings.yaml``) merged underneath
  and any extra mapping files in between.
- :func:`catalog_from_doc` — the same from an already parsed :class:`YamlDoc`.
- :func:`load_mappings` — a mapping file (``state_outcome_mappings``, ``sm_outcome_mappings``,
  ``transition_outcomes``).
- :func:`parse_condition` — one pre/postcondition text to a formula over catalog names.

Conditions are structuredslugs formulas over *catalog names*: capability and memory names (their
memory propositions), ``variable_mappings`` integers (in comparisons such as ``item=1``), outcome
propositions ``<cap>_<t>`` and SM-outcome propositions. The reference accepts single literals
(``x``, ``!x``, ``x=N``, ``x!=N``); composite ``a & b`` / ``a | b`` and any other formula are an
extension. A condition with no prime is a next-state condition (the generator primes it); one that
uses ``x'`` or ``next(...)`` is taken as written, so a postcondition can relate the state during
the activation (unprimed) to the state after its outcome (primed), e.g. ``farmer' != farmer``.

Extension keys per capability (documented in docs/spec.md): ``outcomes`` (the FlexBE outcomes of an
interface not in ``bdi_supervisor/data/flexbe_states.yaml``), ``max_consecutive_failures`` (alias
``bounded_failure_limit``, as the later reference auditor reads it).
"""

from __future__ import annotations

import contextlib
import keyword
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from bdi_supervisor.catalog.interfaces import INTERFACE_SYNTAX, stock_state, stock_states
from bdi_supervisor.catalog.model import (
    COMPLETED,
    Capability,
    Catalog,
    EnumVariable,
    Memory,
    Parameter,
)
from bdi_supervisor.errors import InputError, suggestion
from bdi_supervisor.limits import excerpt, numeral
from bdi_supervisor.spec.formula import Compare, Formula, Not, Num, Var, disj, expected_kinds
from bdi_supervisor.spec.structuredslugs import RESERVED, parse_formula
from bdi_supervisor.yamlsource import (
    KeyPath,
    YamlDoc,
    file_problem,
    key_text,
    load_yaml,
    parse_yaml,
)

TOP_KEYS = ("name", "capabilities", "variable_mappings", "state_outcome_mappings",
            "sm_outcome_mappings", "transition_outcomes", "memory", "extends")
#: the keys of a catalog that extends another (everything else comes from that one)
EXTENDING_KEYS = ("name", "extends", "capabilities")
#: how many catalogs one ``extends`` chain may pass through
MAX_EXTENDS = 8
CAPABILITY_KEYS = ("interface", "parameters", "autonomy", "preconditions", "postconditions",
                   "transition_relation", "userdata_in", "userdata_out", "outcomes",
                   "max_consecutive_failures", "bounded_failure_limit")
MAPPING_KEYS = ("sm_outcome_mappings", "state_outcome_mappings", "transition_outcomes")
PROP_KINDS = ("env_props", "sys_props")
#: names the generated spec uses itself; a catalog cannot declare them
RESERVED_NAMES = frozenset({"completed", "failure", "failed", "capability", *RESERVED})
AUTONOMY_NAMES = {"off": 0, "inherit": 0, "low": 1, "high": 2, "full": 3}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# ---------------------------------------------------------------- bundled data


def _data_doc(name: str) -> YamlDoc:
    text = resources.files("bdi_supervisor").joinpath("data", name).read_text(encoding="utf-8")
    return parse_yaml(text, f"<bdi_supervisor/data/{name}>")


def default_mappings() -> dict[str, Any]:
    """The bundled global mappings (a fresh copy)."""
    return _mappings_from_doc(_data_doc("global_mappings.yaml"))


# ---------------------------------------------------------------- names


def check_identifier(doc: YamlDoc, name: object, path: KeyPath, what: str) -> str:
    """``name`` if it is a safe identifier (it becomes a proposition, state or Python name)."""
    if not isinstance(name, str) or not _IDENT.fullmatch(name) or keyword.iskeyword(name):
        raise doc.error(f"unsafe {what} name", path, found=repr(name),
                        expected="an identifier: letters, digits, '_', not starting with a digit, "
                                 "not a Python keyword")
    if name in RESERVED_NAMES:
        raise doc.error(f"reserved {what} name", path, found=f"'{name}'",
                        expected="a name other than " + ", ".join(sorted(RESERVED_NAMES)))
    return name


# ---------------------------------------------------------------- mappings


def _mappings_from_doc(doc: YamlDoc, base: dict[str, Any] | None = None,
                       path: KeyPath = ()) -> dict[str, Any]:
    data = doc.data if not path else _get(doc.data, path)
    out = {"state_outcome_mappings": {}, "sm_outcome_mappings": {}, "transition_outcomes": []}
    if base:
        out = {"state_outcome_mappings": dict(base["state_outcome_mappings"]),
               "sm_outcome_mappings": dict(base["sm_outcome_mappings"]),
               "transition_outcomes": list(base["transition_outcomes"])}
    if data is None:
        return out
    for key in ("state_outcome_mappings", "sm_outcome_mappings"):
        value = data.get(key) if isinstance(data, dict) else None
        if value is None:
            continue
        doc.expect(value, dict, (*path, key), "a mapping name: name")
        for name, target in value.items():
            where = (*path, key, name)
            doc.expect(name, (str, bool), where, "an outcome name")
            doc.expect(target, str, where, "an outcome or proposition name")
            out[key][str(name).lower() if isinstance(name, bool) else name] = target
    outcomes = data.get("transition_outcomes") if isinstance(data, dict) else None
    if outcomes is not None:
        doc.expect(outcomes, list, (*path, "transition_outcomes"), "a list of outcome names")
        for index, item in enumerate(outcomes):
            check_identifier(doc, item, (*path, "transition_outcomes", index), "outcome") \
                if item not in ("completed", "failure") else None
        out["transition_outcomes"] = list(outcomes)
    letters = [o[0] for o in out["transition_outcomes"]]
    if len(set(letters)) != len(letters):
        raise doc.error("transition outcomes must start with different letters",
                        (*path, "transition_outcomes"),
                        found=str(out["transition_outcomes"]), expected="unique first letters")
    if COMPLETED not in out["transition_outcomes"]:
        raise doc.error("transition outcomes must include 'completed'",
                        (*path, "transition_outcomes"),
                        found=str(out["transition_outcomes"]))
    for name, target in out["state_outcome_mappings"].items():
        if target not in out["transition_outcomes"]:
            raise doc.error("state outcome maps to an unknown normalized outcome",
                            (*path, "state_outcome_mappings", name), found=f"'{target}'",
                            expected="one of " + ", ".join(out["transition_outcomes"]))
    return out


def _get(data: Any, path: KeyPath) -> Any:
    for part in path:
        data = data[part]
    return data


def load_mappings(path: str | Path, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A mapping file merged over ``base`` (dicts updated, ``transition_outcomes`` replaced)."""
    doc = load_yaml(path)
    if doc.data is not None:
        doc.expect(doc.data, dict, (), "a mapping")
        doc.check_keys(doc.data, (), MAPPING_KEYS)
    return _mappings_from_doc(doc, base)


# ---------------------------------------------------------------- conditions


class _Names:
    """What a condition may mention, with the kind of each name: capability and memory names,
    variables, the outcome propositions of the outcomes the capabilities have (``outcomes``:
    capability → its normalized outcomes) and the SM-outcome propositions; in a precondition
    also a generic outcome (``failure``: some capability just ended with it)."""

    def __init__(self, catalog: Catalog, outcomes: dict[str, tuple[str, ...]],
                 generic: bool = False) -> None:
        self.catalog = catalog
        self.outcomes = outcomes
        self.memory = set(catalog.capabilities) | set(catalog.memory)
        self.ints = set(catalog.variables)
        self.props = {f"{c}_{catalog.outcome_suffix(o)}" for c, os in outcomes.items() for o in os}
        self.props |= set(catalog.sm_outcome_mappings.values())
        self.generic = ({o for os in outcomes.values() for o in os} if generic else set())

    def kind(self, name: str) -> str | None:
        if name in self.ints:
            return "int"
        if name in self.memory or name in self.props or name in self.generic:
            return "bool"
        return None

    def preconditions(self) -> _Names:
        """The names a precondition may mention (the generic outcomes too)."""
        return _Names(self.catalog, self.outcomes, generic=True)

    def hint(self, name: str) -> str:
        """Why ``name`` is undefined, where a likely intent is known."""
        cap, _, letter = name.rpartition("_")
        if name.endswith("_a") and cap in self.memory:
            return " (activation propositions cannot be conditions)"
        if cap in self.outcomes and len(letter) == 1:
            have = ", ".join(self.outcomes[cap])
            return f" (capability '{cap}' has no such outcome; its outcomes: {have})"
        if name in self.catalog.transition_outcomes:
            return (" (no capability has this outcome)" if self.generic
                    else " (a generic outcome may be a precondition only)")
        return ""


def _column_of(text: str, name: str) -> int | None:
    """1-based column of ``name`` as a whole word in ``text`` (a scan: a regex per name would
    be compiled anew for each of a large catalog's names)."""
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if not (start and _word(text[start - 1])) and not (end < len(text) and _word(text[end])):
            return start + 1
        start = text.find(name, start + 1)
    return None


def _word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _listed(names: list[str], shown: int = 20) -> str:
    """``a, b, c`` (the first ``shown`` names, sorted, and how many more)."""
    first = sorted(names)[:shown]
    return ", ".join(first) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def parse_condition(doc: YamlDoc, text: object, path: KeyPath, names: _Names) -> Formula:
    """A condition string to a formula over catalog names (see module doc)."""
    if not isinstance(text, str):
        raise doc.error("wrong type", path, found=f"{type(text).__name__} {text!r}",
                        expected="a condition string such as 'x', '!x', 'x=1' or 'a & b'")
    try:
        formula = parse_formula(text, file=doc.file, line=doc.line(path),
                                column_offset=doc.column_offset(path))
    except InputError as error:
        raise error.at(key=_key(path)) from None
    for node, wanted in expected_kinds(formula):
        kind = names.kind(node.name)
        column = _column_of(text, node.name)
        column = column + doc.column_offset(path) if column else None
        if kind is None:
            raise doc.error(f"undefined name '{node.name}' in condition {text!r}"
                            f"{names.hint(node.name)}", path,
                            found=f"'{node.name}'", column=column,
                            expected="a capability, memory, variable_mappings variable or outcome "
                                     "proposition" + (", or a generic outcome (failure)"
                                                      if names.generic else ""))
        if kind != wanted:
            message = (f"'{node.name}' is an integer variable; compare it, e.g. {node.name}=1"
                       if kind == "int"
                       else f"'{node.name}' is Boolean; it cannot be compared as a number")
            raise doc.error(message, path, found=repr(text), column=column)
    return formula


def _key(path: KeyPath) -> str:
    return key_text(path)


def _literal(formula: Formula) -> tuple[str, object] | None:
    """``(variable, value)`` of a simple condition, for conflict detection."""
    if isinstance(formula, Var) and not formula.primed:
        return formula.name, True
    if isinstance(formula, Not) and isinstance(formula.arg, Var) and not formula.arg.primed:
        return formula.arg.name, False
    if (isinstance(formula, Compare) and formula.op == "=" and isinstance(formula.left, Var)
            and not formula.left.primed and isinstance(formula.right, Num)):
        return formula.left.name, formula.right.value
    return None


# ---------------------------------------------------------------- capabilities


def _outcome_key(doc: YamlDoc, key: object, path: KeyPath, catalog: Catalog,
                 flexbe: dict[str, str]) -> str:
    """A postcondition/transition key (normalized outcome, FlexBE outcome or its first letter)."""
    if key in catalog.transition_outcomes:
        return key  # type: ignore[return-value]
    if key in flexbe:
        return flexbe[key]  # type: ignore[index]
    if isinstance(key, str) and key in catalog.state_outcome_mappings:
        return catalog.state_outcome_mappings[key]
    if isinstance(key, str) and key:
        for outcome in catalog.transition_outcomes:
            if outcome[0] == key[0]:
                return outcome
    raise doc.error("unknown outcome", path, found=repr(key),
                    expected="one of " + ", ".join([*catalog.transition_outcomes, *flexbe]))


def _flexbe_outcomes(doc: YamlDoc, spec: dict, path: KeyPath, catalog: Catalog) -> dict[str, str]:
    """FlexBE outcome → normalized outcome of the capability's interface."""
    interface = spec["interface"]
    params = spec.get("parameters") or {}
    if spec.get("outcomes") is not None:
        raw = doc.expect(spec["outcomes"], list, (*path, "outcomes"),
                         "a list of FlexBE outcome names")
        where: KeyPath = (*path, "outcomes")
    else:
        info = stock_state(interface)
        if info is None:
            raise doc.error(f"unknown interface '{interface}': its outcomes are not known",
                            (*path, "interface"),
                            found=f"'{interface}'",
                            expected="a FlexBE stock state (" + ", ".join(sorted(stock_states()))
                                     + ") or an 'outcomes: [...]' list on the capability")
        if "outcomes_parameter" in info:
            name = info["outcomes_parameter"]
            where = (*path, "parameters", name)
            if name not in params:
                raise doc.error(f"{interface} needs its outcomes in parameter '{name}'",
                                (*path, "parameters"),
                                expected=f"parameters.{name}: [outcome, ...]")
            raw = doc.expect(params[name], list, where, "a list of FlexBE outcome names")
        else:
            raw, where = list(info["outcomes"]), (*path, "interface")
    if not raw:
        raise doc.error("a capability needs at least one outcome", where, found="[]")
    out: dict[str, str] = {}
    for index, name in enumerate(raw):
        if isinstance(name, bool):
            name = str(name).lower()
        check = (*where, index) if where[-1] != "interface" else where
        if not isinstance(name, str) or not _IDENT.fullmatch(name):
            raise doc.error("unsafe FlexBE outcome name", check, found=repr(name),
                            expected="an identifier")
        if name in out:
            raise doc.error("duplicate outcome", check, found=f"'{name}'")
        normalized = catalog.state_outcome_mappings.get(name)
        if normalized is None:
            normalized = name if name in catalog.transition_outcomes else None
        if normalized is None:
            raise doc.error(f"FlexBE outcome '{name}' has no normalized outcome", check,
                            found=f"'{name}'",
                            expected="an entry in state_outcome_mappings (e.g. "
                                     f"{name}: completed)")
        out[name] = normalized
    if COMPLETED not in out.values():
        raise doc.error("a capability needs an outcome that normalizes to 'completed' (the "
                        "liveness rules and the pending memory refer to its completion)", where,
                        found=", ".join(f"{k} -> {v}" for k, v in out.items()),
                        expected="an outcome such as done, or an entry in state_outcome_mappings "
                                 "(e.g. <outcome>: completed)")
    return out


def _autonomy(doc: YamlDoc, value: Any, path: KeyPath, flexbe: dict[str, str]) -> dict[str, int]:
    def level(item: Any, where: KeyPath) -> int:
        if isinstance(item, str):
            text = item.strip().lower()
            if text in AUTONOMY_NAMES:
                return AUTONOMY_NAMES[text]
            with contextlib.suppress(ValueError):
                item = numeral(text)
        if isinstance(item, int) and not isinstance(item, bool) and 0 <= item <= 3:
            return item
        raise doc.error("bad autonomy level", where, found=repr(item),
                        expected="0..3 or Off, Low, High, Full")

    if value is None:
        return {}
    if not isinstance(value, dict):
        one = level(value, path)
        return dict.fromkeys(flexbe, one)
    out: dict[str, int] = {}
    for key, item in value.items():
        where = (*path, key)
        name = str(key).lower() if isinstance(key, bool) else key
        if name in flexbe:
            out[name] = level(item, where)
        elif name in flexbe.values():  # a normalized outcome: every FlexBE outcome mapping to it
            for flex, normalized in flexbe.items():
                if normalized == name:
                    out.setdefault(flex, level(item, where))
        else:
            raise doc.error("autonomy for an outcome the interface does not have", where,
                            found=repr(key), expected="one of " + ", ".join(flexbe))
    return out


def _check_signature(doc: YamlDoc, interface: str, params: dict, path: KeyPath) -> None:
    """A stock state's parameters against its constructor (``flexbe_states.yaml``): one it does
    not take (``self``, a typo) or a required one left out would stop FlexBE building the
    state machine."""
    info = stock_state(interface)
    if info is None or "required" not in info:
        return
    required, optional = info["required"], info.get("optional", [])
    cls = interface.replace("/", ".").rpartition(".")[2]
    for name in params:
        if name not in required and name not in optional:
            raise doc.error(f"{cls} takes no parameter '{name}'", (*path, name),
                            found=repr(name), expected="one of " + ", ".join(
                                [*required, *optional]) + suggestion(name, [*required, *optional]))
    missing = [name for name in required if name not in params]
    if missing:
        raise doc.error(f"{cls} needs the parameter{'s' if len(missing) > 1 else ''} "
                        + ", ".join(missing), path,
                        expected="parameters: {" + ", ".join(f"{m}: ..." for m in missing) + "}")


def _userdata(doc: YamlDoc, value: Any, path: KeyPath) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, list):
        for index, key in enumerate(value):
            check_identifier(doc, key, (*path, index), "userdata key")
        value = {k: k for k in value}
    doc.expect(value, dict, path, "a mapping key: remapped_key or a list of keys")
    out = {}
    for key, target in value.items():
        for name in (key, target):
            check_identifier(doc, name, (*path, key), "userdata key")
            if name.startswith("_"):
                raise doc.error("userdata key starting with '_'", (*path, key), found=repr(name),
                                expected="a key FlexBE's userdata can hold (it keeps its own "
                                         "attributes under names starting with '_')")
        out[key] = target
    return out


def _per_outcome(doc: YamlDoc, value: Any, path: KeyPath, catalog: Catalog,
                 flexbe: dict[str, str]) -> dict[str, list[tuple[KeyPath, Any]]]:
    """A list (⇒ completed) or ``{outcome: [items]}`` to ``{normalized: [(path, item)]}``."""
    out: dict[str, list[tuple[KeyPath, Any]]] = {}
    if value is None:
        return out
    if isinstance(value, list):
        out[COMPLETED] = [((*path, i), item) for i, item in enumerate(value)]
        return out
    doc.expect(value, dict, path, "a list, or a mapping outcome: [items]")
    for key, items in value.items():
        outcome = _outcome_key(doc, key, (*path, key), catalog, flexbe)
        if outcome not in flexbe.values():
            raise doc.error("the interface has no outcome normalizing to this", (*path, key),
                            found=repr(key),
                            expected="one of " + ", ".join(sorted(set(flexbe.values()))))
        if items is None:
            items = []
        if not isinstance(items, list):
            items = [items]
            out.setdefault(outcome, []).append(((*path, key), items[0]))
            continue
        out.setdefault(outcome, []).extend(((*path, key, i), item) for i, item in enumerate(items))
    return out


def _interface_outcomes(doc: YamlDoc, name: str, spec: Any,
                        catalog: Catalog) -> dict[str, str]:
    """The capability's interface checked, and its FlexBE outcome → normalized outcome."""
    path: KeyPath = ("capabilities", name)
    doc.expect(spec, dict, path, "a mapping of capability keys")
    doc.check_keys(spec, path, CAPABILITY_KEYS, required=("interface",))
    interface = doc.expect(spec["interface"], str, (*path, "interface"),
                           "a FlexBE state class name")
    if not INTERFACE_SYNTAX.fullmatch(interface):
        raise doc.error("unsafe interface name", (*path, "interface"), found=repr(interface),
                        expected="a stock state's Class, or package.module.Class")
    return _flexbe_outcomes(doc, spec, path, catalog)


def _capability(doc: YamlDoc, name: str, spec: Any, catalog: Catalog,
                names: _Names) -> Capability:
    path: KeyPath = ("capabilities", name)
    flexbe = _interface_outcomes(doc, name, spec, catalog)
    interface = spec["interface"]
    parameters = _parameters(doc, spec, path, catalog)
    _check_signature(doc, interface, spec.get("parameters") or {}, (*path, "parameters"))
    pre_raw = spec.get("preconditions")
    if pre_raw is not None and not isinstance(pre_raw, list):
        pre_raw = [pre_raw]
    preconditions = tuple(parse_condition(doc, item, (*path, "preconditions", i),
                                          names.preconditions())
                          for i, item in enumerate(pre_raw or []))
    post, setters = _postconditions(doc, spec, path, catalog, flexbe, names)
    return Capability(
        name=name, interface=interface, parameters=parameters, preconditions=preconditions,
        postconditions=post, transitions=_transitions(doc, spec, path, catalog, flexbe),
        free_setters=setters, outcomes=tuple(dict.fromkeys(flexbe.values())),
        flexbe_outcomes=flexbe,
        autonomy=_autonomy(doc, spec.get("autonomy"), (*path, "autonomy"), flexbe),
        userdata_in=_userdata(doc, spec.get("userdata_in"), (*path, "userdata_in")),
        userdata_out=_userdata(doc, spec.get("userdata_out"), (*path, "userdata_out")),
        max_consecutive_failures=_failure_limit(doc, spec, path),
    )


def _parameters(doc: YamlDoc, spec: dict, path: KeyPath,
                catalog: Catalog) -> tuple[Parameter, ...]:
    """The capability's parameters: literals, or ``@var`` chosen by synthesis."""
    params_raw = spec.get("parameters") or {}
    doc.expect(params_raw, dict, (*path, "parameters"), "a mapping parameter: value")
    parameters = []
    for pname, value in params_raw.items():
        where = (*path, "parameters", pname)
        check_identifier(doc, pname, where, "parameter")
        if isinstance(value, str) and value.startswith("@"):
            var = value[1:]
            if var not in catalog.variables and var not in catalog.memory:
                raise doc.error(f"parameter refers to undefined variable '{var}'", where,
                                found=repr(value),
                                expected="@ followed by a variable_mappings or memory name")
            parameters.append(Parameter(pname, None, var))
        else:
            parameters.append(Parameter(pname, value))
    return tuple(parameters)


def _postconditions(doc: YamlDoc, spec: dict, path: KeyPath, catalog: Catalog,
                    flexbe: dict[str, str], names: _Names
                    ) -> tuple[dict[str, tuple[Formula, ...]], dict[str, tuple[str, ...]]]:
    """Per normalized outcome, the postcondition formulas (a literal set twice to different
    values is an error) and the ``@var`` names the outcome leaves free."""
    post: dict[str, tuple[Formula, ...]] = {}
    setters: dict[str, tuple[str, ...]] = {}
    for outcome, items in _per_outcome(doc, spec.get("postconditions"),
                                       (*path, "postconditions"), catalog, flexbe).items():
        formulas: list[Formula] = []
        free: list[str] = []
        seen: dict[str, tuple[object, KeyPath]] = {}
        for where, item in items:
            if isinstance(item, str) and item.strip().startswith("@"):
                var = item.strip()[1:]
                if var not in names.memory and var not in names.ints:
                    raise doc.error(f"'@{var}' names no variable", where, found=repr(item),
                                    expected="@ followed by a variable_mappings or memory name")
                free.append(var)
                continue
            formula = parse_condition(doc, item, where, names)
            literal = _literal(formula)
            if literal is not None:
                var, value = literal
                if var in seen and seen[var][0] != value:
                    raise doc.error(
                        f"conflicting postconditions for '{var}' on outcome '{outcome}'", where,
                        found=repr(item),
                        expected=f"one value (line {doc.line(seen[var][1])} already sets "
                                 "another)")
                seen[var] = (value, where)
            formulas.append(formula)
        post[outcome] = tuple(formulas)
        if free:
            setters[outcome] = tuple(free)
    return post, setters


def _transitions(doc: YamlDoc, spec: dict, path: KeyPath, catalog: Catalog,
                 flexbe: dict[str, str]) -> dict[str, tuple[Formula, ...]]:
    """Per normalized outcome, the required (or, with ``!``, excluded) follow-on capabilities
    and SM outcomes of ``transition_relation``."""
    transitions: dict[str, tuple[Formula, ...]] = {}
    for outcome, items in _per_outcome(doc, spec.get("transition_relation"),
                                       (*path, "transition_relation"), catalog, flexbe).items():
        formulas = []
        for where, item in items:
            if not isinstance(item, str):
                raise doc.error("wrong type", where, found=repr(item),
                                expected="a capability or SM outcome name")
            text = item.strip()
            if text.startswith("@"):
                continue  # the reference skips these too
            negated = text.startswith("!")
            target = text[1:].strip() if negated else text
            if target not in catalog.capabilities and target not in catalog.sm_outcome_mappings:
                targets = [*catalog.capabilities, *catalog.sm_outcome_mappings]
                raise doc.error(f"transition target '{target}' is not a capability or SM outcome",
                                where, found=repr(item),
                                expected=f"one of {_listed(targets)}{suggestion(target, targets)}")
            formulas.append(Not(Var(target)) if negated else Var(target))
        transitions[outcome] = tuple(formulas)
    return transitions


def _failure_limit(doc: YamlDoc, spec: dict, path: KeyPath) -> int | None:
    """``max_consecutive_failures`` (or the reference's ``bounded_failure_limit``): >= 1."""
    key = ("max_consecutive_failures" if "max_consecutive_failures" in spec
           else "bounded_failure_limit")
    limit = spec.get(key)
    if limit is not None:
        doc.expect(limit, int, (*path, key), "a positive integer")
        if limit < 1:
            raise doc.error("must be positive", (*path, key), found=repr(limit),
                            expected="an integer >= 1")
    return limit


# ---------------------------------------------------------------- catalog


def _owned_entries(doc: YamlDoc, value: Any, section: str, expected: str,
                   what: str) -> Iterator[tuple[str, str, Any, KeyPath]]:
    """The ``name: item`` entries of ``section: {env_props: {...}, sys_props: {...}}`` as
    ``(name, owner, item, key path)``; each name is an identifier declared once."""
    if value is None:
        return
    doc.expect(value, dict, (section,), "a mapping with env_props / sys_props")
    doc.check_keys(value, (section,), PROP_KINDS)
    seen: set[str] = set()
    for kind, block in value.items():
        if block is None:
            continue
        path: KeyPath = (section, kind)
        doc.expect(block, dict, path, expected)
        for name, item in block.items():
            where = (*path, name)
            check_identifier(doc, name, where, what)
            if name in seen:
                raise doc.error(f"{what} declared twice", where, found=f"'{name}'")
            seen.add(name)
            yield name, "env" if kind == "env_props" else "sys", item, where


def _variables(doc: YamlDoc, value: Any) -> dict[str, EnumVariable]:
    out: dict[str, EnumVariable] = {}
    for name, owner, labels, where in _owned_entries(
            doc, value, "variable_mappings", "a mapping variable: {value: label}", "variable"):
        doc.expect(labels, dict, where, "a mapping integer value: label")
        if not labels:
            raise doc.error("a variable needs at least one value", where, found="{}")
        for key in labels:
            doc.expect(key, int, (*where, key), "an integer value")
        out[name] = EnumVariable(name, owner, {int(k): str(v) for k, v in labels.items()})
    return out


def _memory(doc: YamlDoc, value: Any) -> dict[str, Memory]:
    out: dict[str, Memory] = {}
    for name, owner, initial, where in _owned_entries(
            doc, value, "memory", "a mapping name: initial value (true/false)", "memory"):
        doc.expect(initial, bool, where, "true or false")
        out[name] = Memory(name, owner, initial)
    return out


def _layers(doc: YamlDoc) -> list[YamlDoc]:
    """The catalog files an ``extends`` chain passes through, the base-most first (``doc`` last);
    a missing file, a cycle or a chain longer than :data:`MAX_EXTENDS` is an error located at the
    ``extends`` key that leads there."""
    chain = [doc]
    seen = {Path(doc.file).resolve()} if doc.file else set()
    while isinstance(chain[-1].data, dict) and "extends" in chain[-1].data:
        current = chain[-1]
        value = current.expect(current.data["extends"], str, ("extends",),
                               "a catalog file (relative to this one)")
        target = (Path(current.file).parent if current.file else Path.cwd()) / value
        problem = file_problem(target)
        if problem is not None:
            raise current.error(f"catalog file {problem}", ("extends",), found=excerpt(value),
                                expected="an existing catalog file")
        if target.resolve() in seen:
            raise current.error("catalogs extend each other in a cycle", ("extends",),
                                found=excerpt(value),
                                expected="a chain that ends in a catalog without 'extends'")
        if len(chain) > MAX_EXTENDS:
            raise current.error(f"more than {MAX_EXTENDS} catalogs extend each other",
                                ("extends",), found=excerpt(value),
                                expected="a shorter chain of 'extends'")
        seen.add(target.resolve())
        base = load_yaml(target, "catalog file")
        base.expect(base.data, dict, (), "a mapping with 'capabilities'")
        chain.append(base)
    return chain[::-1]


def _capability_sources(layers: list[YamlDoc]) -> dict[str, tuple[YamlDoc, Any]]:
    """Capability name → (the file that defines it last, its YAML), in the base-most file's
    order, with the capabilities a later file adds after them."""
    root = layers[0]
    root.check_keys(root.data, (), [k for k in TOP_KEYS if k != "extends"],
                    required=("capabilities",))
    sources: dict[str, tuple[YamlDoc, Any]] = {}
    for layer in layers:
        if layer is not root:
            layer.check_keys(layer.data, (), EXTENDING_KEYS)
        raw = layer.data.get("capabilities") if layer is not root else layer.data["capabilities"]
        if raw is None:
            continue
        layer.expect(raw, dict, ("capabilities",), "a mapping name: capability")
        if not raw and layer is root:
            raise root.error("a catalog needs at least one capability", ("capabilities",),
                             found="{}")
        for cap, spec in raw.items():
            sources[cap] = (layer, spec)
    return sources


def catalog_from_doc(doc: YamlDoc, mappings: dict[str, Any] | None = None) -> Catalog:
    """Validate a parsed catalog; ``mappings`` (default: the bundled ones) are merged underneath.
    A catalog with ``extends`` takes everything from the catalog it names but its name and the
    capabilities it lists (each replaces the one of that name or is added)."""
    doc.expect(doc.data, dict, (), "a mapping with 'capabilities'")
    layers = _layers(doc)
    sources = _capability_sources(layers)
    root = layers[0]
    data = root.data
    merged = _mappings_from_doc(root, mappings if mappings is not None else default_mappings())
    name = doc.data.get("name") or (Path(doc.file).stem if doc.file else "catalog")
    check_identifier(doc, name, ("name",), "system")
    catalog = Catalog(
        name=name, capabilities={}, variables=_variables(root, data.get("variable_mappings")),
        memory=_memory(root, data.get("memory")),
        state_outcome_mappings=merged["state_outcome_mappings"],
        sm_outcome_mappings=merged["sm_outcome_mappings"],
        transition_outcomes=tuple(merged["transition_outcomes"]), source=doc.file,
    )
    for sm, prop in catalog.sm_outcome_mappings.items():
        check_identifier(root, prop, ("sm_outcome_mappings", sm), "SM outcome proposition")
    for cap, (layer, _) in sources.items():
        check_identifier(layer, cap, ("capabilities", cap), "capability")
        if cap in catalog.variables:
            raise layer.error("a capability and a variable share a name", ("capabilities", cap),
                              found=f"'{cap}'")
    # register names and outcomes first so conditions may mention any capability's
    catalog.capabilities = dict.fromkeys(sources)  # type: ignore[arg-type]
    outcomes = {c: tuple(dict.fromkeys(_interface_outcomes(layer, c, spec, catalog).values()))
                for c, (layer, spec) in sources.items()}
    names = _Names(catalog, outcomes)
    catalog.capabilities = {c: _capability(layer, c, spec, catalog, names)
                            for c, (layer, spec) in sources.items()}
    _check_distinct_names(doc, catalog)
    return catalog


def _named(catalog: Catalog) -> Iterator[tuple[str, str, KeyPath]]:
    """Every name a catalog's conditions, a mission's formulas or its spec use: ``(name, what it
    is, where it comes from)``; a capability and the memory of that name are one name."""
    for var in catalog.variables:
        yield var, f"variable '{var}'", ("variable_mappings", var)
    for name in catalog.memory:
        yield name, f"memory '{name}'", ("memory", name)
        yield f"{name}_m", f"the memory proposition of '{name}'", ("memory", name)
    for cap, capability in catalog.capabilities.items():
        where = ("capabilities", cap)
        if cap not in catalog.memory:
            yield cap, f"capability '{cap}'", where
            yield f"{cap}_m", f"the memory proposition of capability '{cap}'", where
        yield f"{cap}_a", f"the activation of capability '{cap}'", where
        for outcome in catalog.transition_outcomes:
            yield (f"{cap}_{catalog.outcome_suffix(outcome)}",
                   f"the {outcome} proposition of capability '{cap}'", where)
        if capability.failure_capable:
            yield f"{cap}_p", f"the pending proposition of capability '{cap}'", where
    for sm, prop in catalog.sm_outcome_mappings.items():
        yield prop, f"the SM outcome proposition '{prop}'", ("sm_outcome_mappings", sm)


def _check_distinct_names(doc: YamlDoc, catalog: Catalog) -> None:
    """Refuse two things of one name (a capability ``pay_c`` and the completion proposition of
    ``pay``): the spec would take one for the other without a word."""
    seen: dict[str, str] = {}
    for name, what, where in _named(catalog):
        first = seen.setdefault(name, what)
        if first != what:
            raise doc.error(f"'{name}' is both {first} and {what}", where, found=name,
                            expected="names whose derived propositions (_a, _m, _p and the "
                                     "outcome letters) name nothing else")


def load_catalog(path: str | Path, mapping_files: list[str | Path] | None = None) -> Catalog:
    """Load a catalog; bundled mappings, then ``mapping_files`` in order, then the catalog's own."""
    mappings = default_mappings()
    for extra in mapping_files or []:
        mappings = load_mappings(extra, mappings)
    return catalog_from_doc(load_yaml(path), mappings)


def target_formula(targets: tuple[Formula, ...]) -> Formula:
    """The required follow-on of one outcome as one formula (a disjunction of its targets)."""
    return disj(targets)
