"""Well-separation analysis (Maoz & Ringert, FSE 2016) before synthesis.

``well_separation(spec, options) -> SeparationRecord`` (:mod:`.analysis`); the record and its
JSON (:mod:`.record`); witnesses (:mod:`.witness`); the delta-debugging core (:mod:`.core`);
the pipeline stage (:mod:`.stage`). The names below load :mod:`.analysis` (and with it the
synthesis engine) on first use, so :mod:`.core` and :mod:`.record` import on their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bdi_supervisor.separation.analysis import SeparationOptions, well_separation
    from bdi_supervisor.separation.record import SeparationRecord

__all__ = ["SeparationOptions", "SeparationRecord", "well_separation"]


def __getattr__(name: str):
    if name in ("SeparationOptions", "well_separation"):
        from bdi_supervisor.separation import analysis

        return getattr(analysis, name)
    if name == "SeparationRecord":
        from bdi_supervisor.separation.record import SeparationRecord

        return SeparationRecord
    raise AttributeError(name)
