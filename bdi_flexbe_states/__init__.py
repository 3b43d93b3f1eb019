"""The project's own FlexBE states, for the capabilities of the shipped catalogs whose states are
not public (the quadcopter's, the river crossing's, the beer robot's) and for those public states
that do not fit a catalog as they are.

One state per module, as in FlexBE's ``flexbe_states``; one subpackage per domain
(``bdi_flexbe_states.<domain>.<state>_state``). Each state is a thin adapter: it talks to its
domain's world or robot node over ROS and returns a declared outcome; the domain logic it needs
lives in ``bdi_supervisor.domains``. These modules import ``flexbe_core`` and run only where
FlexBE is installed (inside FlexBE onboard); nothing in ``bdi_supervisor`` or ``bdi_monitor``
imports them. A catalog names a state by its module and class, e.g.
``interface: bdi_flexbe_states.two_rivers.move_state.MoveState``.
"""
