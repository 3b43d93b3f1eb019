"""The supervisor node's follower of a FlexBE run (rclpy): onboard's topics in, commands out.

Reads what :class:`~bdi_supervisor.runtime.flexbe_link.FlexbeLink` needs from onboard, with
each message's publication time (rclpy's message info): ``flexbe/debug/current_state``
(std_msgs/String ``"<path> > <outcome>"``), ``flexbe/outcome_request`` (flexbe_msgs/
OutcomeRequest; its ``target`` is a string path on FlexBE 2.x/3.x and an int32 state id on 4.x,
read from the message type) and ``flexbe/mirror/structure`` (flexbe_msgs/ContainerStructure,
asked for as the FlexBE mirror asks: the behavior id on ``flexbe/request_mirror_structure``,
std_msgs/Int32, until it comes). Sends the link's commands on ``flexbe/command/transition``
and a preempt (std_msgs/Empty on ``flexbe/command/preempt``) when the executor's run ended where
the behavior goes on. Runs the executor on a worker thread from onboard's acknowledgement on;
its records and FlexBE's reports become one stream
(:class:`~bdi_supervisor.ros.flexbe_stream.FollowedRun`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from std_msgs.msg import Empty, Int32, String

from bdi_supervisor.ros.flexbe_run import FlexbeRun
from bdi_supervisor.ros.flexbe_stream import FollowedRun
from bdi_supervisor.runtime.bdi_state import Record
from bdi_supervisor.runtime.flexbe_link import Command, Control, FlexbeLink, StateInfo

CURRENT_STATE = "flexbe/debug/current_state"
OUTCOME_REQUEST = "flexbe/outcome_request"
TRANSITION = "flexbe/command/transition"
PREEMPT = "flexbe/command/preempt"
STRUCTURE = "flexbe/mirror/structure"
REQUEST_STRUCTURE = "flexbe/request_mirror_structure"
#: seconds between requests for the behavior's structure, and how many are sent at most
STRUCTURE_PERIOD, STRUCTURE_TRIES = 0.5, 40
#: seconds the executor may still take to hear the last outcomes once FlexBE finished the
#: behavior with an outcome (an engine error stops it at once)
GRACE = 2.0


def _stamp(info: Any) -> int:
    """Onboard's publication time (ns) from rclpy's message info (received time if absent)."""
    if isinstance(info, dict):
        return int(info.get("source_timestamp") or info.get("received_timestamp") or 0)
    return 0


class FlexbeFollower:
    """Follows (and, per :class:`Control`, drives) one FlexBE run of ``node``.

    ``run_executor(link, callback, stop)`` runs the executor with the link's adapters and
    returns when its run ended; ``publish`` publishes a BDI record."""

    def __init__(self, node, run: FlexbeRun, link: FlexbeLink, control: Control,
                 run_executor: Callable[..., Any], publish: Callable[[Record], None]) -> None:
        from flexbe_msgs.msg import ContainerStructure, OutcomeRequest

        self.node, self.link, self.control = node, link, control
        self.stream = FollowedRun(run, publish)
        self._run_executor = run_executor
        self._request_type = OutcomeRequest
        fields = OutcomeRequest.get_fields_and_field_types()
        link.by_id = fields.get("target") != "string"
        link.send = self._send
        self._pending: list[Command] = []
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self._ended_at: float | None = None
        self._preempted = False
        self._structure_tries = 0
        self.transition = node.create_publisher(OutcomeRequest, TRANSITION, 10)
        self.preempt = node.create_publisher(Empty, PREEMPT, 10)
        self.ask_structure = node.create_publisher(Int32, REQUEST_STRUCTURE, 10)
        self.subscriptions = [
            node.create_subscription(String, CURRENT_STATE, self._on_current_state, 100),
            node.create_subscription(OutcomeRequest, OUTCOME_REQUEST, self._on_request, 100),
            node.create_subscription(ContainerStructure, STRUCTURE, self._on_structure, 10)]

    # -- onboard -> link ----------------------------------------------------------------------
    def _on_current_state(self, message, info) -> None:
        self.link.on_current_state(message.data, _stamp(info))

    def _on_request(self, message, info) -> None:
        self.link.on_request(message.target, int(message.outcome), _stamp(info))

    def _on_structure(self, message, info) -> None:
        if int(message.behavior_id) != self.stream.run.behavior_id:
            return
        self.link.on_structure([StateInfo(c.path, getattr(c, "state_id", None),
                                          tuple(c.outcomes)) for c in message.containers])

    # -- link -> onboard ----------------------------------------------------------------------
    def _send(self, command: Command) -> None:
        with self._lock:
            self._pending.append(command)
        self.flush()

    def flush(self) -> None:
        """Publish the commands held back until onboard's subscription matched."""
        if self.transition.get_subscription_count() == 0:
            return
        with self._lock:
            pending, self._pending = self._pending, []
        for command in pending:
            self.transition.publish(self._request_type(outcome=command.outcome,
                                                       target=command.target))

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Onboard acknowledged the behavior: the executor starts following it."""
        if self.thread is None:
            self.stream.expect_executor()
            self.thread = threading.Thread(target=self._follow, daemon=True, name="follower")
            self.thread.start()

    def _follow(self) -> None:
        error = None
        try:
            self._run_executor(self.link, self.stream.executor_record, self.link.stop)
        except Exception as exc:  # a bug must end the run, not hang it
            error = f"the follower failed: {type(exc).__name__}: {exc}"
        if error or self.link.error:
            self.stream.fail(error or self.link.error)

    def tick(self, now: float) -> None:
        """Periodic work (the node's timer): commands, the structure, a preempt, the grace
        period after FlexBE ended the behavior."""
        self.flush()
        if (self.thread is not None and self.link.needs_structure
                and self._structure_tries < STRUCTURE_TRIES
                and self.ask_structure.get_subscription_count() > 0):
            if self._structure_tries % int(STRUCTURE_PERIOD * 10) == 0:
                self.ask_structure.publish(Int32(data=self.stream.run.behavior_id))
            self._structure_tries += 1
        if self.stream.wants_preempt and not self._preempted:
            self._preempted = True
            self.preempt.publish(Empty())
        run = self.stream.run
        if run.state.final and self.thread is not None and not self.stream.executor_ended:
            self._ended_at = now if self._ended_at is None else self._ended_at
            if run.outcome is None or now - self._ended_at >= GRACE:  # no outcome: at once
                self.link.stop.set()

    def values(self) -> dict[str, str]:
        """Diagnostic values of the follower."""
        values = {"flexbe.autonomy": str(self.control.level),
                  "flexbe.drive": str(self.control.drive).lower(),
                  "flexbe.forced": str(self.control.forced).lower(),
                  "flexbe.commands": str(len(self.link.commands))}
        if self.link.error:
            values["flexbe.follow_error"] = self.link.error
        return values

    def close(self) -> None:
        self.link.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=10)
