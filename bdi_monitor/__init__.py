"""bdi_monitor: CTL-BDI logic, finite-state BDI structures, a symbolic model checker on CUDD, the
mission model built from a supervisor, and the runtime monitor (core + ROS 2 node)."""

from bdi_supervisor import __version__

__all__ = ["__version__"]
