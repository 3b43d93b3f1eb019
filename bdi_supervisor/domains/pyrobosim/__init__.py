"""PyRoboSim (5.x) logistics domain: world loading and capability adapters.

Importing this package registers the ``pyrobosim`` simulator with the runtime
(:func:`bdi_supervisor.runtime.binding.register_backend`) but does not import PyRoboSim;
:mod:`.world` and :mod:`.adapters` do, so the rest of bdi_supervisor works without the ``sim``
extra installed.
"""

from __future__ import annotations

from bdi_supervisor.runtime.binding import register_backend

#: the adapter types of PyRoboSim's actions (``adapters.<cap>.type``; :data:`.adapters.KINDS`)
ADAPTER_TYPES = ("navigate", "pick", "place", "open", "close", "detect")


def open_backend(config, seed: int, ask=None):
    """The ``pyrobosim`` backend (imports PyRoboSim)."""
    from bdi_supervisor.domains.pyrobosim.binding import PyRoboSimBackend

    return PyRoboSimBackend(config, seed, ask)


register_backend("pyrobosim", open_backend, ADAPTER_TYPES)
