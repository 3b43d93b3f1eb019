"""A domain's world as a ROS node: its actions as services that act once per request id.

Under ``runner:=flexbe`` the project's own FlexBE states (``bdi_flexbe_states``) act through
these services, one per action and parameter value (``two_rivers/farmer/move/goat``). Their type
is ``diagnostic_msgs/srv/AddDiagnostics`` (:data:`ACTION_SERVICE`), for its shape, so that no
interface package of its own is needed: the request's one string (``load_namespace``) is the
request id, the reply's ``success`` the outcome (true: completed; false: a failure, and nothing
changed), ``message`` the reason. The world acts on a request id once; the same id again is
answered with the recorded answer without acting (:class:`~bdi_supervisor.runtime.exchange.
RequestLog`): a state whose reply was lost asks again and learns what happened
(:mod:`bdi_supervisor.runtime.exchange`). A request without an id acts every time (``ros2
service call`` by hand). Each outcome is decided by
:class:`~bdi_supervisor.runtime.served.ServedCapabilities`: the mission's forced and seeded
random outcomes first, as the embedded runner decides them, then the world itself.
``<prefix>/world`` (std_srvs/Trigger) answers with the world, every request served so far and the
number of requests answered from the record (``repeats``), as JSON.

Parameters of every world node:

- ``mission`` (string, required): the mission file or the name of a shipped one;
- ``seed`` (int, default -1: the mission's ``runner.seed``): the seed of random failures;
- ``force`` (string, default empty: the mission's ``runner.force``): a forced-outcome script
  (``bdi-supervisor run --force`` syntax) for the capabilities this world serves.

The node refuses to start (exit 2) when a capability of the mission whose state belongs to this
domain could ask for something the world does not serve (e.g. a place it does not have).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from diagnostic_msgs.srv import AddDiagnostics
from std_srvs.srv import Trigger

from bdi_supervisor.catalog.interfaces import state_domain
from bdi_supervisor.catalog.model import COMPLETED
from bdi_supervisor.errors import InputError
from bdi_supervisor.ros import params
from bdi_supervisor.ros.launch_plan import validate_mission
from bdi_supervisor.ros.node_main import SuiteNode
from bdi_supervisor.runtime.exchange import RequestLog
from bdi_supervisor.runtime.served import (
    ServedCapabilities,
    UnknownRequest,
    WorldAction,
    unserved,
)

#: a domain's world from its mission: (the world, with ``snapshot()``; its actions)
WorldFactory = Callable[[Any], tuple[Any, list[WorldAction]]]
#: the service type of a world action (request: ``load_namespace``, the request id; reply:
#: ``success``, ``message``)
ACTION_SERVICE = AddDiagnostics


def request_id(request) -> str:
    """The request id an action's request carries."""
    return request.load_namespace


class WorldNode(SuiteNode):
    """Serves ``build(mission)``'s actions (see the module docstring)."""

    def __init__(self, name: str, domain: str, build: WorldFactory, context=None,
                 parameter_overrides=None) -> None:
        super().__init__(name, context=context, parameter_overrides=parameter_overrides)
        mission_path = params.mission_file("mission", params.declare(
            self, "mission", "", "mission file, or the name of a shipped mission"))
        seed = params.declare(self, "seed", -1, "seed of random failures (-1: the mission's)")
        force = params.declare(self, "force", "", "forced-outcome script (empty: the mission's)")
        mission = validate_mission(mission_path)
        self.served = ServedCapabilities.for_mission(mission, None if seed < 0 else seed,
                                                     force or None)
        self.world, self.actions = build(mission)
        mine = [c for c, cap in mission.catalog.capabilities.items()
                if state_domain(cap.interface) == domain]
        gaps = unserved(mission.catalog, mine, [(a.interface, a.parameters)
                                                for a in self.actions])
        if gaps:
            raise InputError(f"the {domain} world cannot serve the mission's catalog: "
                             + "; ".join(gaps), file=mission.catalog.source)
        self.requests: RequestLog[tuple[bool, str]] = RequestLog()
        for action in self.actions:
            self.create_service(ACTION_SERVICE, action.name, partial(self._serve, action))
        self.create_service(Trigger, f"{domain}/world", self._report)
        self.get_logger().info(
            f"{domain} world of mission {mission.name} (seed {self.served.seed}): "
            f"{len(self.actions)} services, {json.dumps(self.world.snapshot())}")

    def _serve(self, action: WorldAction, request, response):
        ident = request_id(request)
        (response.success, response.message), repeated = self.requests.serve(
            action.name, ident, partial(self._act, action))
        if repeated:
            self.get_logger().info(f"{action.name}: request {ident} again, answered from the "
                                   f"record ({'completed' if response.success else 'failure'})")
        return response

    def _act(self, action: WorldAction) -> tuple[bool, str]:
        """Serve one request of ``action``: (success, message)."""
        try:
            served = self.served.act(action)
        except UnknownRequest as error:
            self.get_logger().warning(f"{action.name}: {error}")
            return False, str(error)
        outcome = served.outcome
        forced = f" [{outcome.layer}]" if outcome.forced else ""
        self.get_logger().info(f"{served.capability}#{served.activation} {action.name}: "
                               f"{outcome.outcome}{forced} ({outcome.reason})")
        return outcome.outcome == COMPLETED, outcome.reason

    def _report(self, request, response):
        response.success = True
        response.message = json.dumps({"world": self.world.snapshot(),
                                       "served": [s.to_dict() for s in self.served.history],
                                       "repeats": self.requests.repeats})
        return response
