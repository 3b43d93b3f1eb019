"""Well-separation analysis (Maoz & Ringert, FSE 2016) before synthesis.

``well_separation(spec, options) -> SeparationRecord`` (:mod:`.analysis`); the record and its
JSON (:mod:`.record`); witnesses (:mod:`.witness`); the delta-debugging core (:mod:`.core`).
"""

from bdi_supervisor.separation.analysis import SeparationOptions, well_separation
from bdi_supervisor.separation.record import SeparationRecord

__all__ = ["SeparationOptions", "SeparationRecord", "well_separation"]
