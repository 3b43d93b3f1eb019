"""The realize stage: reduced strategy + catalog → supervisor machine → FlexBE behavior package."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bdi_supervisor.catalog.model import Catalog
from bdi_supervisor.realize.flexbe import BehaviorPackage, generate_package, write_package
from bdi_supervisor.realize.machine import SupervisorMachine, build_machine
from bdi_supervisor.synthesis.strategy import Strategy, Value


@dataclass
class Realization:
    """What realize produced: the machine, the package files and where they were written."""

    machine: SupervisorMachine
    package: BehaviorPackage
    path: Path | None = None

    def record(self) -> dict:
        """JSON-serializable summary (counts as the reference reports them)."""
        m = self.machine
        return {
            "behavior": self.package.names.behavior,
            "package": self.package.names.package,
            "module": self.package.names.package_path,
            "class": self.package.names.class_name,
            "path": str(self.path) if self.path else None,
            "encoding": m.encoding,
            "capability_states": len(m.states),
            "outcomes": list(m.outcomes),
            "state_instantiations": instantiation_count(m),
            "initial": m.initial,
            "dropped": {str(k): v for k, v in m.dropped.items()},
        }


def instantiation_count(machine: SupervisorMachine) -> int:
    """State instantiations as the reference counts them: root + states + outcome pseudo-states."""
    return 1 + len(machine.states) + len(machine.outcomes)


def realize(
    reduced: Strategy,
    catalog: Catalog,
    *,
    behavior: str,
    out_dir: str | Path | None = None,
    package: str | None = None,
    encoding: str | None = None,
    sm_outcomes: Mapping[str, str] | None = None,
    edges: Mapping[int, list[tuple[Mapping[str, Value], int]]] | None = None,
    ambiguity: str = "error",
    date: str | None = None,
    source: str = "<strategy>",
) -> Realization:
    """Realize ``reduced`` as a FlexBE behavior package (written to ``out_dir`` when given)."""
    machine = build_machine(reduced, catalog, encoding=encoding, sm_outcomes=sm_outcomes,
                            source=source, edges=edges)
    files = generate_package(machine, behavior, package=package, date=date, ambiguity=ambiguity)
    path = write_package(files, out_dir) if out_dir is not None else None
    return Realization(machine, files, path)


def behavior_name(mission_name: str) -> str:
    """A FlexBE behavior name from a mission name, as a FlexBE user names behaviors: words
    capitalized, separated by spaces (``vending_extended`` → ``Vending Extended``, whose class
    the editor calls ``VendingExtendedSM`` and whose file ``vending_extended_sm.py``)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", mission_name) if w]
    text = " ".join(w[:1].upper() + w[1:] for w in words)
    return text if text[:1].isalpha() else f"Mission {text}".strip()


def mission_outcomes(mission: Any) -> dict[str, str] | None:
    """Container outcome → proposition of the mission's requested SM outcomes (None: catalog's)."""
    requested = tuple(mission.request.sm_outcomes or ())
    if not requested:
        return None
    mapping = mission.catalog.sm_outcome_mappings
    return {o: mapping.get(o, o) for o in requested}


def realize_mission(reduced: Strategy, mission: Any, out_dir: str | Path | None = None,
                    **options: Any) -> Realization:
    """:func:`realize` with the behavior name, catalog and SM outcomes taken from ``mission``.

    ``options`` are passed on (``package``, ``ambiguity``, ``edges``, ``date``, ``source``,
    ``behavior`` to override the name).
    """
    options.setdefault("behavior", behavior_name(mission.name))
    options.setdefault("sm_outcomes", mission_outcomes(mission))
    return realize(reduced, mission.catalog, out_dir=out_dir, **options)
