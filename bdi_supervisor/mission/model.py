"""Mission model: which catalog, what is requested, custom constraints, synthesis options
(:class:`~bdi_supervisor.options.SynthesisOptions`).

Plain dataclasses built by :mod:`bdi_supervisor.mission.loader`. Later stages read their own
sections (``hypotheses``, ``properties``, ``runner``, ``adapters``, ``audit``) from
:attr:`Mission.sections` and validate their content themselves; :meth:`Mission.section_error`
gives them errors located in the mission file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.errors import InputError
from bdi_supervisor.options import SynthesisOptions
from bdi_supervisor.spec.formula import Formula

#: custom-constraint sections (the GR(1) section names)
CONSTRAINT_SECTIONS = ("env_init", "sys_init", "env_safety", "sys_safety", "env_liveness",
                       "sys_liveness")
#: sections passed through to later stages (validated as mappings only)
PASS_THROUGH = ("hypotheses", "properties", "runner", "adapters", "audit", "well_separation",
                "acceptance")


@dataclass(frozen=True)
class MissionFormula:
    """A formula written in the mission file, with where it was written."""

    text: str
    formula: Formula
    key: str
    line: int | None = None


@dataclass(frozen=True)
class Request:
    """What is asked of the robot (the reference's ``FlexBESynthesisRequest`` fields).

    ``initial_conditions`` and ``goals`` are formulas over spec propositions and catalog names
    (a capability or memory name means its memory proposition); ``sm_outcomes`` are the names of
    the behavior's outcomes (mapped to propositions through the catalog's
    ``sm_outcome_mappings``; the first one that is not a failure name is the success outcome).
    """

    initial_conditions: tuple[MissionFormula, ...] = ()
    goals: tuple[MissionFormula, ...] = ()
    sm_outcomes: tuple[str, ...] = ()


@dataclass
class Mission:
    name: str
    catalog: Catalog
    catalog_path: str
    request: Request = field(default_factory=Request)
    #: custom constraints per GR(1) section, in structuredslugs syntax, used as written
    constraints: dict[str, tuple[MissionFormula, ...]] = field(default_factory=dict)
    synthesis: SynthesisOptions = field(default_factory=SynthesisOptions)
    #: later stages' sections (``hypotheses``, ``properties``, ``runner``, ``adapters``, ``audit``)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    file: str | None = None
    #: 1-based line of each key path of the mission file (for later stages' error messages)
    lines: dict[tuple[Any, ...], int] = field(default_factory=dict)
    description: str = ""

    def section(self, name: str) -> dict[str, Any]:
        """A pass-through section (empty when absent)."""
        return self.sections.get(name, {})

    def section_error(self, message: str, *key: Any, found: str | None = None,
                      expected: str | None = None) -> InputError:
        """An :class:`InputError` located at ``key`` (e.g. ``"runner", "adapter"``) in the file."""
        from bdi_supervisor.yamlsource import YamlDoc

        return YamlDoc(None, self.file, self.lines).error(message, key, found=found,
                                                          expected=expected)
