"""FlexBE states of the quadcopter's capabilities, on the Flexible Drones interfaces
(``flexible_drones_msgs``) that ``drone_node`` serves (``bdi_supervisor.domains.quadcopter.ros``):
``ArmState``, ``TakeoffState``, ``PlanTrajectoryState``, ``UploadTrajectoryState``,
``ExecuteTrajectoryState``, ``GoToState`` and ``LandState``, one per module. Their parameters
and outcomes are the catalog's (``config/catalogs/quadcopter.yaml``); every state also takes
``drone`` (the drone's name, default ``drone``) and a ``timeout`` in seconds. A state's outcome
follows the drone's ``return_code``: 0 ``done``, 4 ``canceled``, 6 ``timeout``, any other
``failed`` (``canceled`` where the state has no such outcome: ``failed``), and ``timeout`` when
no result came within the state's own ``timeout``.
"""
