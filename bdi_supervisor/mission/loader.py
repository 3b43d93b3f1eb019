"""Load and validate mission files (``config/missions/*.yaml``).

Schema (every key optional except ``catalog``; unknown keys are errors)::

    name: coffee_extended                 # default: the file stem
    description: free text
    catalog: ../catalogs/coffee_extended.yaml   # relative to this file
    mappings: [extra_mappings.yaml]       # merged over the bundled defaults, under the catalog
    request:
      initial_conditions: [bd_a]          # formulas (structuredslugs syntax)
      goals: [br_c]
      sm_outcomes: [finished]
    constraints:                          # added to the generated spec as written
      sys_safety:
        - "(goat' = wolf' | goat' = corn') -> goat' = farmer'"
        - {name: no-idle, formula: "..."} # a name becomes the clause's comment
    synthesis: {encoding: one-hot, liveness: system-goal, pending: true,
                declaration_order: alphabetic, seed: 0, reordering: true,
                reordering_threshold: null, max_growth: null, reachable: true,
                time_budget_s: null, node_budget: null}
    hypotheses: {...}   properties: {...}   runner: {...}   adapters: {...}   audit: {...}
    well_separation: {...}   # bdi_supervisor.separation.stage

Formulas are parsed here (syntax errors carry line and column); their names are resolved when
the spec is generated, against the propositions of the chosen encoding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bdi_supervisor.catalog.loader import (
    catalog_from_doc,
    check_identifier,
    default_mappings,
    load_mappings,
)
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.limits import excerpt, positive_finite
from bdi_supervisor.mission.model import (
    CONSTRAINT_SECTIONS,
    PASS_THROUGH,
    Mission,
    MissionFormula,
    Request,
)
from bdi_supervisor.options import ENCODINGS, LIVENESS, MISSION_KEYS, ORDERS, SynthesisOptions
from bdi_supervisor.shipped import resolve
from bdi_supervisor.spec.structuredslugs import parse_formula
from bdi_supervisor.yamlsource import KeyPath, YamlDoc, file_problem, key_text, load_yaml

TOP_KEYS = ("name", "description", "catalog", "mappings", "request", "constraints", "synthesis",
            *PASS_THROUGH)
REQUEST_KEYS = ("initial_conditions", "goals", "sm_outcomes")
#: a mission's name names its FlexBE behavior and, lower-cased, the behavior's ROS package
#: ``<name>_flexbe_behaviors`` (a letter first, at most 100 characters)
MAX_NAME = 100 - len("_flexbe_behaviors")
SYNTHESIS_KEYS = ("encoding", "liveness", "pending", "declaration_order", "seed", "reordering",
                  "reordering_threshold", "max_growth", "reachable", "time_budget_s",
                  "node_budget")


def _formula(doc: YamlDoc, value: Any, path: KeyPath) -> MissionFormula:
    if not isinstance(value, str):
        raise doc.error("wrong type", path, found=f"{type(value).__name__} {value!r}",
                        expected="a formula string")
    formula = parse_formula(value, file=doc.file, line=doc.line(path), key=key_text(path),
                            column_offset=doc.column_offset(path))
    return MissionFormula(value, formula, key_text(path), doc.line(path))


def _formula_list(doc: YamlDoc, value: Any, path: KeyPath) -> tuple[MissionFormula, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
        return (_formula(doc, value[0], path),)
    doc.expect(value, list, path, "a list of formula strings")
    return tuple(_formula(doc, item, (*path, i)) for i, item in enumerate(value))


def _constraints(doc: YamlDoc, value: Any) -> dict[str, tuple[MissionFormula, ...]]:
    out: dict[str, tuple[MissionFormula, ...]] = {}
    if value is None:
        return out
    doc.expect(value, dict, ("constraints",), "a mapping section: [formulas]")
    doc.check_keys(value, ("constraints",), CONSTRAINT_SECTIONS)
    for section, items in value.items():
        path: KeyPath = ("constraints", section)
        if items is None:
            continue
        doc.expect(items, list, path, "a list of formulas")
        formulas = []
        for i, item in enumerate(items):
            where = (*path, i)
            if isinstance(item, dict):
                doc.check_keys(item, where, ("name", "formula"), required=("formula",))
                name = item.get("name")
                if name is not None:
                    doc.expect(name, str, (*where, "name"), "a short name")
                parsed = _formula(doc, item["formula"], (*where, "formula"))
                formulas.append(MissionFormula(parsed.text, parsed.formula,
                                               name or parsed.key, parsed.line))
            else:
                formulas.append(_formula(doc, item, where))
        out[section] = tuple(formulas)
    return out


def synthesis_from_doc(doc: YamlDoc, value: Any,
                       path: KeyPath = ("synthesis",)) -> SynthesisOptions:
    """The options of a mission's ``synthesis:`` section (``value``, at ``path`` of ``doc``),
    validated; errors name ``path.<key>``."""
    if value is None:
        return SynthesisOptions()
    doc.expect(value, dict, path, "a mapping of synthesis options")
    doc.check_keys(value, path, SYNTHESIS_KEYS)
    choices = {"encoding": ENCODINGS, "liveness": LIVENESS, "declaration_order": ORDERS}
    kwargs: dict[str, Any] = {}
    for key, item in value.items():
        where = (*path, key)
        if key in choices:
            if item not in choices[key]:
                raise doc.error(f"unknown {key.replace('_', ' ')}", where, found=repr(item),
                                expected=" | ".join(choices[key]))
        elif key in ("pending", "reordering", "reachable"):
            doc.expect(item, bool, where, "true or false")
        elif key == "seed":
            doc.expect(item, int, where, "an integer")
        elif key == "max_growth" and item is not None:
            doc.expect(item, (int, float), where, "a growth factor >= 1.0 or null")
            if not (positive_finite(item) and item >= 1.0):
                raise doc.error("must be a growth factor", where, found=repr(item),
                                expected="a finite number >= 1.0 or null")
        elif item is not None:
            kind = (int, float) if key == "time_budget_s" else int
            doc.expect(item, kind, where, "a positive number or null")
            if not positive_finite(item):
                raise doc.error("must be positive", where, found=repr(item),
                                expected="a positive number or null")
        kwargs[MISSION_KEYS.get(key, key)] = item
    return SynthesisOptions(**kwargs)


def request_from_doc(doc: YamlDoc, value: Any, path: KeyPath = ("request",)) -> Request:
    """A mission's ``request:`` section (``value``, at ``path`` of ``doc``): its formulas parsed
    (names are resolved when the spec is generated), its SM outcome names checked."""
    if value is None:
        return Request()
    doc.expect(value, dict, path, "a mapping with initial_conditions, goals, sm_outcomes")
    doc.check_keys(value, path, REQUEST_KEYS)
    outcomes_raw = value.get("sm_outcomes") or []
    doc.expect(outcomes_raw, list, (*path, "sm_outcomes"), "a list of outcome names")
    outcomes = tuple(check_identifier(doc, o, (*path, "sm_outcomes", i), "SM outcome")
                     for i, o in enumerate(outcomes_raw))
    if len(set(outcomes)) != len(outcomes):
        raise doc.error("duplicate SM outcome", (*path, "sm_outcomes"), found=str(list(outcomes)))
    return Request(
        initial_conditions=_formula_list(doc, value.get("initial_conditions"),
                                         (*path, "initial_conditions")),
        goals=_formula_list(doc, value.get("goals"), (*path, "goals")),
        sm_outcomes=outcomes,
    )


def check_outcomes(doc: YamlDoc, request: Request, catalog: Catalog,
                   path: KeyPath = ("request", "sm_outcomes")) -> None:
    """Every requested SM outcome must have a proposition in the catalog's mappings."""
    for outcome in request.sm_outcomes:
        if outcome not in catalog.sm_outcome_mappings:
            raise doc.error(f"SM outcome '{outcome}' has no proposition", path,
                            found=f"'{outcome}'",
                            expected="one of " + ", ".join(catalog.sm_outcome_mappings)
                            + " (add it to the catalog's sm_outcome_mappings)")


def _relative(doc: YamlDoc, value: Any, path: KeyPath) -> Path:
    doc.expect(value, str, path, "a file path (relative to the mission file)")
    base = Path(doc.file).parent if doc.file else Path.cwd()
    target = base / value
    problem = file_problem(target)
    if problem is not None:
        raise doc.error(f"file {problem}", path, found=excerpt(value), expected="an existing file")
    return target.resolve()


def mission_from_doc(doc: YamlDoc) -> Mission:
    """Validate a parsed mission file and load its catalog."""
    data = doc.data
    doc.expect(data, dict, (), "a mapping with at least 'catalog'")
    doc.check_keys(data, (), TOP_KEYS, required=("catalog",))
    name = data.get("name") or (Path(doc.file).stem if doc.file else "mission")
    check_identifier(doc, name, ("name",), "mission")
    if not name[0].isalpha() or len(name) > MAX_NAME:
        raise doc.error("the mission name cannot name its behavior's ROS package", ("name",),
                        found=excerpt(name),
                        expected=f"a letter first, at most {MAX_NAME} characters")
    description = data.get("description") or ""
    doc.expect(description, str, ("description",), "text")
    mappings = default_mappings()
    extra = data.get("mappings") or []
    if isinstance(extra, str):
        extra = [extra]
    doc.expect(extra, list, ("mappings",), "a list of mapping files")
    for i, item in enumerate(extra):
        mappings = load_mappings(_relative(doc, item, ("mappings", i)), mappings)
    catalog_path = _relative(doc, data["catalog"], ("catalog",))
    catalog = catalog_from_doc(load_yaml(catalog_path), mappings)
    sections: dict[str, dict[str, Any]] = {}
    for key in PASS_THROUGH:
        if data.get(key) is not None:
            sections[key] = doc.expect(data[key], dict, (key,), f"a mapping (the {key} section)")
    request = request_from_doc(doc, data.get("request"))
    check_outcomes(doc, request, catalog)
    return Mission(
        name=name, catalog=catalog, catalog_path=str(catalog_path), request=request,
        constraints=_constraints(doc, data.get("constraints")),
        synthesis=synthesis_from_doc(doc, data.get("synthesis")),
        sections=sections, file=doc.file, lines=dict(doc.lines), description=description,
    )


def load_mission(path: str | Path) -> Mission:
    """Load a mission file (or a shipped mission by name, e.g. ``coffee_extended``) and the
    catalog it names; every problem is an :class:`InputError`."""
    return mission_from_doc(load_yaml(resolve("missions", path), "mission file"))
