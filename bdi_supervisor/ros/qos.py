"""QoS profiles of the suite's topics (rclpy).

- ``LATCHED``: records a late subscriber must still get (synthesis record, supervisor hand-over):
  reliable, transient local, depth 1. Subscribers must ask for transient local too.
- ``STREAM``: the BDI-state stream: reliable, volatile, depth 1000 so a slow monitor loses nothing
  under bursts (the monitor counts gaps by sequence number anyway).
- ``DIAGNOSTICS``: reliable, volatile, depth 10 (what diagnostic_aggregator subscribes with).
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
STREAM = QoSProfile(depth=1000, history=HistoryPolicy.KEEP_LAST,
                    reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
DIAGNOSTICS = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                         reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.VOLATILE)
