"""The project's FlexBE states for PyRoboSim: each sends one ``pyrobosim_msgs/ExecuteTaskAction``
goal to the world node (``/execute_action``) and returns the outcome of PyRoboSim's result.

``navigate_state.NavigateState``, ``pick_state.PickState``, ``place_state.PlaceState`` and
``door_state.DoorState`` take the catalogs' parameters, have their outcomes (the core's
:func:`bdi_supervisor.domains.pyrobosim.outcomes.flexbe_outcome` maps each PyRoboSim status, so
the embedded runner and FlexBE report the same outcomes), run on FlexBE 2.3, 3.x and 4.x, and send
their goals from the executor's thread (:mod:`.execute_task`). The ROSCon 2024 workshop's
``pyrobosim_flexbe_states`` do not fit as they are: its pick state reads the object from userdata
(a catalog gives it as a parameter), its navigate state raises TypeError on an execution failure
(the status an injected failure reports), its door state imports only on FlexBE 4.x, and its
place state (like the others) sends from the behavior's thread and reads the goal status before
the result, so that now and then a place the world performed is reported ``failed`` and the
supervisor retries it forever (docs/flexbe.md).
"""
