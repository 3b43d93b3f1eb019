"""Requests one at a time, in the order they were accepted, with a bounded queue.

An action server asks :meth:`GoalGate.reserve` before it accepts a goal (no room: reject it),
draws a :meth:`GoalGate.ticket` when it accepts it, waits for its turn in
:meth:`GoalGate.wait_turn` and calls :meth:`GoalGate.done` when the goal is finished (run, or
given up while waiting). Two requests never run at the same time, so their progress, run
folders and answers are never mixed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class GoalGate:
    """A FIFO of tickets: one runs, at most ``waiting`` wait."""

    def __init__(self, waiting: int) -> None:
        self.capacity = 1 + max(0, waiting)
        self._condition = threading.Condition()
        self._held = 0  # reserved and not done
        self._next = 0  # next ticket to hand out
        self._serving = 0  # ticket whose turn it is
        self._given_up: set[int] = set()
        self._closed = False

    def reserve(self) -> bool:
        """Room for one more goal? (It then holds a place until :meth:`done`.)"""
        with self._condition:
            if self._closed or self._held >= self.capacity:
                return False
            self._held += 1
            return True

    def ticket(self) -> int:
        """The next place in the line (call once per reserved goal, in accepting order)."""
        with self._condition:
            self._next += 1
            return self._next - 1

    def wait_turn(self, ticket: int, give_up: Callable[[], bool], poll: float = 0.05) -> bool:
        """Wait until ``ticket`` is served (True), or until ``give_up()`` holds or the gate is
        closed (False)."""
        with self._condition:
            while self._serving != ticket:
                if self._closed or give_up():
                    return False
                self._condition.wait(poll)
            return not self._closed

    def done(self, ticket: int) -> None:
        """``ticket`` ran or gave up: free its place and pass the turn on."""
        with self._condition:
            self._held -= 1
            self._given_up.add(ticket)
            while self._serving in self._given_up:
                self._given_up.discard(self._serving)
                self._serving += 1
            self._condition.notify_all()

    def close(self) -> None:
        """Refuse new goals; waiting ones give up."""
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    @property
    def held(self) -> int:
        """Goals running or waiting."""
        with self._condition:
            return self._held
