"""Missions: a catalog, a request, custom constraints and options (``config/missions/*.yaml``)."""

from bdi_supervisor.mission.loader import load_mission, mission_from_doc
from bdi_supervisor.mission.model import Mission, MissionFormula, Request, SynthesisOptions

__all__ = ["Mission", "MissionFormula", "Request", "SynthesisOptions", "load_mission", "mission_from_doc"]
