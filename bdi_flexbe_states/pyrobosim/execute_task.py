"""One ``pyrobosim_msgs/ExecuteTaskAction`` goal at a time, through FlexBE's action proxy (a
helper of the PyRoboSim states, not a state)."""

from __future__ import annotations

import time

from flexbe_core import Logger
from flexbe_core.proxy import ProxyActionClient
from pyrobosim_msgs.action import ExecuteTaskAction
from pyrobosim_msgs.msg import TaskAction

from bdi_supervisor.domains.pyrobosim.outcomes import flexbe_outcome, status_name


class ExecuteTask:
    """Sends a task action to the world and turns its result into a FlexBE outcome.

    ``timeout`` (seconds from sending, 0: none) ends the wait with ``timeout_outcome``; a goal
    that cannot be sent (no server within ``server_timeout`` seconds) ends with
    ``unsent_outcome``.
    """

    def __init__(self, action: str, *, robot_name: str, action_topic: str,
                 server_timeout: float, timeout: float, timeout_outcome: str,
                 unsent_outcome: str) -> None:
        self.action = action
        self.robot_name = robot_name
        self.topic = action_topic
        self.server_timeout = float(server_timeout)
        self.timeout = float(timeout)
        self.timeout_outcome = timeout_outcome
        self.unsent_outcome = unsent_outcome
        self._client = ProxyActionClient({action_topic: ExecuteTaskAction}, wait_duration=0.0)
        self._goal: ExecuteTaskAction.Goal | None = None  # to send once the server is there
        self._node = None
        self._started = 0.0
        self._deadline: float | None = None
        self._unsent = False
        self._sending = False

    def send(self, node, **fields: str) -> None:
        """Send the goal (``TaskAction`` fields: ``target_location``, ``object``) as soon as the
        server is there (:meth:`outcome` polls it: the behavior's thread never blocks).

        The goal itself is sent by the thread that spins ``node``'s executor (onboard's
        single-threaded one), not by the behavior's thread: rclpy 7.1 (Jazzy) registers a goal
        request only after sending it, and a fast server's response taken by the spinning thread
        in between is dropped ("Ignoring unexpected goal response"), leaving the state without
        a result while the world has acted. Nothing here waits in that thread either (onboard's
        heartbeat comes from it)."""
        self._goal = ExecuteTaskAction.Goal(
            action=TaskAction(robot=self.robot_name, type=self.action, **fields))
        self._node = node
        self._unsent = self._sending = False
        self._started = time.monotonic()
        self._deadline = None
        self._client.remove_result(self.topic)

    def _send_now(self, goal) -> None:
        try:
            self._client.send_goal(self.topic, goal, wait_duration=0.0)
        except Exception as error:  # the proxy raises ValueError or rclpy's errors
            Logger.logwarn(f"{self.action}: goal not sent to '{self.topic}': {error}")
            self._unsent = True
        finally:
            self._sending = False

    def outcome(self) -> str | None:
        """The outcome once the result is in (or the time is up); ``None`` while it runs."""
        if self._goal is not None:  # not sent yet: is the server there?
            if self._client.is_available(self.topic):
                goal, self._goal, self._sending = self._goal, None, True
                if self.timeout > 0:
                    self._deadline = time.monotonic() + self.timeout
                self._in_executor(self._node, self._send_now, goal)
            elif time.monotonic() - self._started > self.server_timeout:
                Logger.logwarn(f"{self.action}: no server on '{self.topic}' within "
                               f"{self.server_timeout:g} s")
                self._goal, self._unsent = None, True
        if self._unsent:
            return self.unsent_outcome
        if self._goal is None and not self._sending and self._client.has_result(self.topic):
            result = self._client.get_result(self.topic).execution_result
            self._client.remove_result(self.topic)
            status = status_name(result.status)
            if status != "SUCCESS":
                Logger.logwarn(f"{self.action}: {status} {result.message}".rstrip())
            return flexbe_outcome(self.action, status)
        if self._deadline is not None and time.monotonic() > self._deadline:
            Logger.logwarn(f"{self.action}: no result within {self.timeout:g} s")
            return self.timeout_outcome
        return None

    @staticmethod
    def _in_executor(node, call, *args) -> None:
        executor = getattr(node, "executor", None)
        if executor is None:  # a node nobody spins: call here
            call(*args)
        else:
            executor.create_task(call, *args)

    def cancel(self) -> None:
        """Drop a goal not sent yet, cancel one that still runs (the state is left before its
        result); from the executor's thread, as the goal."""
        self._goal = None
        if self._node is not None:
            self._in_executor(self._node, self._cancel_now)

    def _cancel_now(self) -> None:
        if self._client.is_active(self.topic):
            self._client.cancel(self.topic)


class TaskStateMixin:
    """What the PyRoboSim states share, mixed in before ``EventState``: the goal is sent on
    entering (``self._task`` with the ``self._fields`` of its ``TaskAction``; ``self._node`` is
    flexbe_core's node, set on every state), the result polled
    in ``execute`` (the outcome is kept while an operator blocks the transition), and a goal still
    running is canceled when the state is left or the behavior stops."""

    _task: ExecuteTask
    _fields: dict[str, str]
    _outcome: str | None = None

    def on_enter(self, userdata):
        self._outcome = None
        self._task.send(self._node, **self._fields)

    def execute(self, userdata):
        if self._outcome is None:
            self._outcome = self._task.outcome()
        return self._outcome

    def on_exit(self, userdata):
        self._task.cancel()

    def on_stop(self):
        self._task.cancel()
