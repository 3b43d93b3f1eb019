"""QoS profiles of the suite's topics (rclpy).

- ``LATCHED``: records a late subscriber must still get (synthesis record, supervisor hand-over):
  reliable, transient local, depth 1. Subscribers must ask for transient local too.
- ``STREAM``: the BDI-state stream: reliable, transient local, depth :data:`STREAM_DEPTH`. The
  publisher keeps a whole run (about two records per step; runs stop at ``max_steps``, 500 by
  default) so a monitor that subscribes late still gets every record from the first one, and a
  slow one loses nothing under bursts (the monitor counts gaps by sequence number anyway).
  Memory grows with the records actually sent, not with the depth. A volatile subscriber
  (``ros2 topic echo``) is compatible and sees the records sent after it joined; a transient-local
  subscriber needs a transient-local publisher.
- ``DIAGNOSTICS``: reliable, volatile, depth 10 (what diagnostic_aggregator subscribes with).
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

#: BDI-state records kept for late subscribers: a run of up to about 5,000 steps
STREAM_DEPTH = 10_000

LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
STREAM = QoSProfile(depth=STREAM_DEPTH, history=HistoryPolicy.KEEP_LAST,
                    reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.TRANSIENT_LOCAL)
DIAGNOSTICS = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                         reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.VOLATILE)
