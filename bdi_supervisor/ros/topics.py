"""Names of the suite's topics and services (plain Python; relative names honour namespaces).

- ``bdi_supervisor/synthesis_record``: std_msgs/String (wire ``SYNTHESIS_RECORD``), latched;
  synthesis node → all.
- ``bdi_supervisor/supervisor``: std_msgs/String (wire ``HANDOVER``), latched; synthesis node →
  supervisor node, only after an audit PASS.
- ``bdi_supervisor/bdi_state``: std_msgs/String (wire ``BDI_STATE``), stream QoS; supervisor node
  → monitor node.
- ``/diagnostics``: diagnostic_msgs/DiagnosticArray, diagnostics QoS; synthesis and monitor nodes
  → rqt_robot_monitor.
- ``bdi_supervisor/resynthesize``: std_srvs/Trigger (service); anyone → synthesis node.
- ``flexbe/start_behavior``: flexbe_msgs/BehaviorSelection; supervisor node (``runner:=flexbe``)
  → flexbe_onboard.
- ``flexbe/status``: flexbe_msgs/BEStatus; flexbe_onboard → supervisor node.
"""

SYNTHESIS_RECORD = "bdi_supervisor/synthesis_record"
HANDOVER = "bdi_supervisor/supervisor"
BDI_STATE = "bdi_supervisor/bdi_state"
RESYNTHESIZE = "bdi_supervisor/resynthesize"
FLEXBE_START = "flexbe/start_behavior"
FLEXBE_STATUS = "flexbe/status"
