"""``two_rivers_world``: the river crossing served over ROS for the FlexBE ``MoveState``.

One action service per item, ``two_rivers/farmer/move/<item>`` (``nothing``, wolf, goat, corn;
acting once per request id), and ``two_rivers/world`` (std_srvs/Trigger) with the banks and the
crossings so far; the world starts where the mission's initial conditions put wolf, goat, corn
and farmer. Parameters and the outcome rules: :mod:`bdi_supervisor.ros.world`.
"""

from __future__ import annotations

import sys

from bdi_supervisor.domains.two_rivers import world_actions
from bdi_supervisor.ros.node_main import run
from bdi_supervisor.ros.world import WorldNode

NODE_NAME = "two_rivers_world"


def main(args: list[str] | None = None) -> int:
    return run(lambda context: WorldNode(NODE_NAME, "two_rivers", world_actions, context),
               NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
