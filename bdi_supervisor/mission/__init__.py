"""Missions: a catalog, a request, custom constraints and options (``config/missions/*.yaml``).

The names below load their module on first use, so a caller that needs only the light
:mod:`.model` (e.g. the CLI's option choices) does not import the YAML loader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bdi_supervisor.mission.loader import load_mission, mission_from_doc
    from bdi_supervisor.mission.model import Mission, MissionFormula, Request

__all__ = ["Mission", "MissionFormula", "Request", "load_mission", "mission_from_doc"]

_HOME = {"load_mission": "loader", "mission_from_doc": "loader", "Mission": "model",
         "MissionFormula": "model", "Request": "model"}


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(f"bdi_supervisor.mission.{module}"), name)
