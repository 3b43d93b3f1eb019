"""``beer_robot_world``: the beer robot's kitchen served over ROS for its FlexBE states.

Action services ``beer_robot/open_door``, ``beer_robot/navigate/<place>``,
``beer_robot/grab/<object>``, ``beer_robot/hand_over/<person>`` (acting once per request id) and
``beer_robot/world`` (std_srvs/Trigger: the kitchen and the requests so far). The kitchen is the
mission's actual world: its hypotheses' ``actual`` values (``door_locked``, ``beer``) lock the
door or empty the fridge, as the CTL-BDI monitor assumes at launch. Parameters and the outcome
rules: :mod:`bdi_supervisor.ros.world`.
"""

from __future__ import annotations

import sys

from bdi_monitor.hypotheses import parse_hypotheses
from bdi_supervisor.domains.beer_robot import world_actions
from bdi_supervisor.ros.node_main import run
from bdi_supervisor.ros.world import WorldNode

NODE_NAME = "beer_robot_world"


def build(mission):
    """The kitchen of ``mission``'s actual world and its actions."""
    return world_actions(parse_hypotheses(mission).actual())


def main(args: list[str] | None = None) -> int:
    return run(lambda context: WorldNode(NODE_NAME, "beer_robot", build, context), NODE_NAME,
               args)


if __name__ == "__main__":
    sys.exit(main())
