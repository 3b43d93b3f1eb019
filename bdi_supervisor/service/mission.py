"""A request over a system as a mission the stage chain runs.

- The catalog is the system's capability file, read as the reference's YAML (the bundled
  default mappings under it, as for every mission).
- The request's ``initial_conditions``, ``goals`` and ``sm_outcomes`` are a mission's
  ``request:`` section (formulas over propositions, capability and memory names); errors in
  them name the file ``goal`` and the key ``request.<field>[i]``.
- The system's seed spec (the reference's ``*_capabilities_spec.yaml``) adds its formulas: its
  ``ENV_INIT``/``SYS_INIT`` formulas are default initial conditions, each dropped where the
  request's initial conditions mention one of its variables (the request replaces them, as an
  initial condition replaces a generated default); the ``*_TRANS`` and ``*_LIVENESS`` ones are
  custom constraints. The variables it declares must be variables the generator declares for
  the catalog, with the same owner and range (:func:`check_seed_declarations`).
- The synthesis options are the defaults (one-hot, System-Goal, pending: the reference's default
  pipeline) with what ``synthesis_options`` sets, and the time budget of
  :func:`bdi_supervisor.service.request.time_budget`; its ``audit`` and
  ``fail_on_non_well_separated`` keys become the mission's ``audit`` and ``well_separation``
  sections.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bdi_supervisor.catalog.loader import load_catalog
from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.mission.loader import check_outcomes, request_from_doc
from bdi_supervisor.mission.model import Mission, MissionFormula, Request
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.service.codes import Code, Refusal
from bdi_supervisor.service.request import (
    ServiceOptions,
    SynthesisRequest,
    mission_name,
    time_budget,
)
from bdi_supervisor.service.systems import System
from bdi_supervisor.spec.formula import variables
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.spec.structuredslugs import format_formula
from bdi_supervisor.yamlsource import YamlDoc

#: what errors in the request's own fields name as their file
REQUEST_FILE = "goal"
#: seed spec sections that become custom constraints
_CONSTRAINTS = ("env_safety", "sys_safety", "env_liveness", "sys_liveness")


def load_seed(system: System) -> GR1Spec | None:
    """The system's seed spec (None without one); a problem in it is
    ``SPEC_COMPILATION_FAILED``."""
    if system.seed_spec is None:
        return None
    from bdi_supervisor.spec.specyaml import parse_spec_yaml

    try:
        return parse_spec_yaml(system.seed_spec)
    except InputError as error:
        raise Refusal(Code.SPEC_COMPILATION_FAILED, error.describe()) from None


def _catalog(system: System) -> Catalog:
    try:
        return load_catalog(system.catalog)
    except InputError as error:
        raise Refusal(Code.CONFIG_FILE_INVALID, error.describe()) from None


def _request(request: SynthesisRequest, catalog: Catalog) -> Request:
    data = {"initial_conditions": list(request.initial_conditions),
            "goals": list(request.goals), "sm_outcomes": list(request.sm_outcomes)}
    doc = YamlDoc({"request": data}, REQUEST_FILE)
    try:
        parsed = request_from_doc(doc, data)
        check_outcomes(doc, parsed, catalog)
    except InputError as error:
        raise Refusal(Code.INVALID_REQUEST, error.describe()) from None
    return parsed


def _seed_formula(clause) -> MissionFormula:
    return MissionFormula(format_formula(clause.formula), clause.formula,
                          clause.origin.key or "specs", clause.origin.line)


def _seeded(request: Request, seed: GR1Spec | None) -> tuple[Request, dict]:
    """The request with the seed's initial formulas it does not replace, and the seed's
    constraints."""
    if seed is None:
        return request, {}
    mentioned = {v.name for item in request.initial_conditions
                 for v in variables(item.formula)}
    defaults = tuple(_seed_formula(c) for c in [*seed.env_init, *seed.sys_init]
                     if not {v.name for v in variables(c.formula)} & mentioned)
    constraints = {section: tuple(_seed_formula(c) for c in seed.section(section))
                   for section in _CONSTRAINTS if seed.section(section)}
    return (dataclasses.replace(request, initial_conditions=request.initial_conditions
                                + defaults), constraints)


def build_mission(system: System, request: SynthesisRequest, options: ServiceOptions,
                  seed: GR1Spec | None = None, default_timeout: float | None = None) -> Mission:
    """The mission of ``request`` over ``system`` (see the module docstring); raises
    :class:`Refusal` for a catalog, seed spec or request the pipeline cannot start from."""
    catalog = _catalog(system)
    parsed, constraints = _seeded(_request(request, catalog), seed)
    synthesis = dataclasses.replace(SynthesisOptions(), **options.overrides)
    synthesis = dataclasses.replace(synthesis,
                                    time_budget=time_budget(request, options, default_timeout))
    mission = Mission(name=mission_name(request), catalog=catalog,
                      catalog_path=str(system.catalog), request=parsed, constraints=constraints,
                      synthesis=synthesis, file=REQUEST_FILE,
                      description=f"synthesis request for {system.name}")
    _sections(mission, options)
    return mission


def _sections(mission: Mission, options: ServiceOptions) -> None:
    """The options that are mission sections: the audit's, the well-separation verdict's."""
    from bdi_supervisor.audit.config import audit_config

    if options.fail_on_non_well_separated:
        mission.sections["well_separation"] = {"fail_on_non_well_separated": True}
    if options.audit:
        mission.sections["audit"] = dict(options.audit)
        try:
            audit_config(mission)
        except InputError as error:
            raise Refusal(Code.INVALID_REQUEST, InputError(
                error.message, file="synthesis_options", key=error.key, found=error.found,
                expected=error.expected).describe()) from None


def check_seed_declarations(spec: GR1Spec, seed: GR1Spec | None, source: Path | None,
                            catalog: Catalog) -> None:
    """Every variable the seed declares is one of ``spec`` (the generated spec) with the same
    owner, kind and range, or a capability's one-hot activation ``<cap>_a`` (which the
    enumerated encoding rewrites); raises :class:`Refusal` (``SPEC_COMPILATION_FAILED``)."""
    if seed is None:
        return
    from bdi_supervisor.spec.gr1 import Variable
    from bdi_supervisor.specgen.propositions import activation

    declared = {activation(c): Variable(activation(c), "sys") for c in catalog.capabilities}
    declared.update({v.name: v for v in spec.variables})
    for variable in seed.variables:
        mine = declared.get(variable.name)
        same = mine is not None and (mine.owner, mine.kind, mine.low, mine.high) == (
            variable.owner, variable.kind, variable.low, variable.high)
        if not same:
            shown = (f"{variable.name}:{variable.low}...{variable.high}"
                     if variable.kind == "int" else variable.name)
            what = ("is not a variable the catalog generates" if mine is None else
                    f"differs from the generated {mine.owner} variable "
                    f"({mine.kind} {mine.low}..{mine.high})")
            raise Refusal(Code.SPEC_COMPILATION_FAILED,
                          f"{source}: seed spec declares {variable.owner} variable {shown}, "
                          f"which {what}; a seed spec may only declare generated variables "
                          "(full specifications are not synthesized by this server)")
