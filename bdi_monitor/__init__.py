"""bdi_monitor: CTL-BDI logic, finite-state BDI structures, a symbolic model checker on CUDD, the
mission model built from a supervisor, and the runtime monitor (core + ROS 2 node)."""

__version__ = "0.1.0"
