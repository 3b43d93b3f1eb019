"""A small domain's world node whose replies are lost or late by a test's fault (the world acts,
its reply never leaves or leaves late), as Fast DDS loses a reply it cannot yet deliver.

``python -m support.lossy_world --ros-args ...`` with, in the environment, ``LOSSY_WORLD`` (the
domain: ``two_rivers`` or ``beer_robot``), ``LOSE_REPLIES``: a string of ``0``/``1``, one per
action request the node serves in order (all of its action services together), ``1`` losing that
request's reply (requests beyond the string are answered), and ``DELAY_REPLIES``: seconds each
reply that is not lost waits before it leaves (default 0; the node serves on meanwhile). Each lost
reply is logged (``[test] reply N lost``). Test code only: the product has no such switch.
"""

from __future__ import annotations

import os
import sys
import threading

from bdi_supervisor.domains.beer_robot.ros import world_node as beer_robot
from bdi_supervisor.domains.two_rivers import world_actions
from bdi_supervisor.ros.node_main import run
from bdi_supervisor.ros.world import ACTION_SERVICE, WorldNode

#: domain → (node name, the world factory its world node uses)
WORLDS = {"two_rivers": ("two_rivers_world", world_actions),
          "beer_robot": (beer_robot.NODE_NAME, beer_robot.build)}


def spoil_replies(node: WorldNode, pattern: str, delay: float) -> None:
    """Make ``node``'s action services drop the replies ``pattern`` marks and send the others
    ``delay`` seconds late (module docstring)."""
    served = [0]
    for service in node.services:
        if service.srv_type is not ACTION_SERVICE:
            continue

        def spoiled(response, header, send=service.send_response):
            number = served[0] = served[0] + 1
            if number <= len(pattern) and pattern[number - 1] == "1":
                node.get_logger().info(f"[test] reply {number} lost")
            elif delay > 0:
                threading.Timer(delay, send, (response, header)).start()
            else:
                send(response, header)

        service.send_response = spoiled


def main() -> int:
    domain = os.environ["LOSSY_WORLD"]
    name, build = WORLDS[domain]
    pattern = os.environ.get("LOSE_REPLIES", "")
    delay = float(os.environ.get("DELAY_REPLIES", "0"))

    def factory(context):
        node = WorldNode(name, domain, build, context)
        spoil_replies(node, pattern, delay)
        return node

    return run(factory, name)


if __name__ == "__main__":
    sys.exit(main())
