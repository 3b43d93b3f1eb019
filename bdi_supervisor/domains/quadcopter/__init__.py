"""Quadcopter gate-course domain: course geometry, platform profiles, pose dropouts, a kinematic
model and a RotorPy backend, and the executor adapters of the quadcopter capabilities.

Importing this package registers the ``quadcopter`` simulator with the runtime
(:func:`bdi_supervisor.runtime.binding.register_backend`); the simulator itself is built when a
run opens it.
"""

from __future__ import annotations

from bdi_supervisor.runtime.binding import register_backend

#: the adapter types of the drone's calls (``adapters.<cap>.type``; :data:`.adapters.CALLS`)
ADAPTER_TYPES = ("quadcopter.arm", "quadcopter.takeoff", "quadcopter.plan_trajectory",
                 "quadcopter.upload_trajectory", "quadcopter.execute_trajectory",
                 "quadcopter.go_to", "quadcopter.land", "quadcopter.log")


def open_backend(config, seed: int, ask=None):
    """The ``quadcopter`` backend (builds the simulated drone)."""
    from bdi_supervisor.domains.quadcopter.binding import QuadcopterBackend

    return QuadcopterBackend(config, seed, ask)


register_backend("quadcopter", open_backend, ADAPTER_TYPES)
