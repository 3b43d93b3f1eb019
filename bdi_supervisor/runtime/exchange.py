"""A request that acts once and whose outcome is known, over a link that loses messages.

A FlexBE state that asks a world node to act (cross the river, open the door) must report what
the world did, whatever the timing. The link can lose the request and, worse, the reply: Fast DDS
drops a service's reply while the server has not yet matched the client's reply reader ("failed
to send response (timeout)"), which on a loaded machine can lag the client seeing the service;
then the world has acted and the state never hears it. So a world action is a request with an
id:

- the state draws a fresh id per activation (:func:`new_request_id`) and sends the request; while
  no reply has come it sends the same request again every :data:`RETRY_S` seconds, until its
  deadline (:class:`Exchange`);
- the world acts on an id once and records its answer (:class:`RequestLog`): a repeat is answered
  with the recorded answer, without acting again. So a repeat is also the state asking the world
  what became of its request, and every reply to one id carries the same answer;
- the first reply to any send of the request decides the state's outcome (the world's answer);
- no reply by the deadline: the state cannot go on truthfully and raises
  (:meth:`Exchange.failure`; the behavior stops, the supervisor ends the run as an engine error),
  never taking an outcome it did not observe: :class:`OutcomeUnknown` where a request left (the
  world may or may not have acted), :class:`WorldUnavailable` where none could (the world's
  service was not there: nothing was asked, nothing happened; a designed ``failed`` there would
  have the supervisor recover, and ask a missing world again, without end).

Plain Python: the world nodes (:mod:`bdi_supervisor.ros.world`) and the project's FlexBE states
(``bdi_flexbe_states.world_action``) put it on ROS.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

#: seconds between two sends of an unanswered request (a world answers within milliseconds;
#: a lost reply is asked for again)
RETRY_S = 0.5

Answer = TypeVar("Answer")


def new_request_id() -> str:
    """A fresh request id (32 hexadecimal digits)."""
    return uuid.uuid4().hex


class OutcomeUnknown(RuntimeError):
    """A request left but no reply came by the deadline: the world may or may not have acted."""


class WorldUnavailable(RuntimeError):
    """No request could leave by the deadline (no server): the world was not asked."""


@dataclass
class RequestLog(Generic[Answer]):
    """The world's side: the answer it gave to each request id, per service.

    ``repeats`` counts the requests answered from the record."""

    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)
    repeats: int = 0

    def serve(self, service: str, request_id: str,
              act: Callable[[], Answer]) -> tuple[Answer, bool]:
        """``(answer, repeated)``: the recorded answer of ``request_id`` on ``service``, or
        ``act()``'s, recorded. A request without an id (by hand) acts every time."""
        if not request_id:
            return act(), False
        key = (service, request_id)
        if key in self.answers:
            self.repeats += 1
            return self.answers[key], True
        answer = act()
        self.answers[key] = answer
        return answer, False


#: what :meth:`Exchange.step` asks of the state
SEND, WAIT, DECIDE, UNKNOWN, UNSENT = "send", "wait", "decide", "unknown", "unsent"


@dataclass
class Exchange:
    """The state's side of one request, from ``started`` (a ``time.monotonic()`` value): sent at
    once and again every ``retry`` seconds while unanswered, until ``started + timeout``."""

    request_id: str
    started: float
    timeout: float
    retry: float = RETRY_S
    sends: int = 0
    last_try: float | None = None
    #: why the latest try could not leave (no server), for :meth:`failure`
    unsent_reason: str = ""

    @property
    def deadline(self) -> float:
        """When the state stops waiting."""
        return self.started + self.timeout

    def step(self, now: float, answered: bool) -> str:
        """What to do at time ``now``: :data:`DECIDE` when a reply came (``answered``), else
        :data:`SEND` (the first try, or a repeat that is due); past the deadline
        :data:`UNKNOWN`, or :data:`UNSENT` where no request ever left; :data:`WAIT` otherwise."""
        if answered:
            return DECIDE
        if now >= self.deadline:
            return UNKNOWN if self.sends else UNSENT
        if self.last_try is None or now - self.last_try >= self.retry:
            return SEND
        return WAIT

    def sent(self, now: float) -> None:
        """The request left at ``now``."""
        self.sends += 1
        self.last_try = now

    def tried(self, now: float, reason: str) -> None:
        """A try at ``now`` could not leave (``reason``: no server): the next is due a retry
        later."""
        self.last_try = now
        self.unsent_reason = reason

    def failure(self, service: str) -> OutcomeUnknown | WorldUnavailable:
        """The error the state raises at :data:`UNKNOWN` or :data:`UNSENT` (it names
        ``service``, the request and what is known of the world)."""
        if self.sends:
            return OutcomeUnknown(
                f"no reply from '{service}' to request {self.request_id} within "
                f"{self.timeout:g} s ({self.sends} sent): the world may or may not have acted; "
                "the outcome is unknown")
        return WorldUnavailable(
            f"'{service}' not reachable within {self.timeout:g} s ({self.unsent_reason}): "
            "the world was not asked and did not act; is its world node running?")
