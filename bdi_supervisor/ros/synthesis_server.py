"""``synthesis_server``: the reference pipeline's ``flexbe_synthesis`` action, answered by
bdi_supervisor (a drop-in for its ``flexbe_synthesis_server``).

Serves, as node ``flexbe_synthesis``:

- ``flexbe_synthesis`` (``flexbe_synthesis_msgs/action/FlexBESynthesis``): goal
  ``request`` (``FlexBESynthesisRequest``) and ``synthesis_options`` (a YAML mapping); result
  ``error_code``, ``states`` (``flexbe_msgs/StateInstantiation[]``), ``messages``; feedback
  ``status``, ``progress`` per stage;
- ``behavior_synthesis`` (FlexBE's own ``flexbe_msgs/action/BehaviorSynthesis``, where the
  installed flexbe_msgs has it; the name is the ``behavior_synthesis_action`` parameter, empty:
  not served): ``request.system``, ``name``, ``goal`` and ``initial_condition`` (each a
  comma-separated list of formulas) and ``sm_outcomes``; result ``error_code``
  (``SynthesisErrorCodes``, the same numbers) and ``states``; the messages go to the log.

Both run the same core (:mod:`bdi_supervisor.service`): each goal in a worker process of its
own, one at a time in the order accepted; up to ``queue_size`` more wait, further goals are
rejected. A cancel stops a waiting goal at once and a running one inside any stage (PREEMPTED).

Parameters:

- ``synthesis_home`` (string): where systems are found as ``<home>/<system_name>/`` (the
  reference's layout); empty: ``$FLEXBE_SYNTHESIS_HOME``, else ``~/.flexbe_synthesis``, as the
  reference. Without such a folder a system name is a shipped catalog;
- ``output_dir`` (string): where each goal's run folder goes (``<output_dir>/goal_<n>``);
  empty: a new folder ``bdi_supervisor/flexbe_synthesis_<date>-<time>_<pid>`` under the ROS log
  folder; ``save_outputs`` (bool, default true): false writes nothing;
- ``synthesis_timeout_s`` (double, default 900, the reference's backend default): the time
  budget of a request whose ``synthesis_timeout_s`` is 0;
- ``queue_size`` (int, default 4): goals that may wait while one runs;
- ``outcome_states`` (bool, default true): append the ``:OUTCOME`` pseudo-states the
  reference appends (false for a UI that does not know them).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from pathlib import Path

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup

from bdi_supervisor.ros import params
from bdi_supervisor.ros.node_main import ParameterError, SuiteNode, run
from bdi_supervisor.service.answer import Settings
from bdi_supervisor.service.codes import Answer, Code
from bdi_supervisor.service.gate import GoalGate
from bdi_supervisor.service.request import SynthesisRequest
from bdi_supervisor.service.worker import KILL_AFTER, Job

NODE_NAME = "flexbe_synthesis"
ACTION = "flexbe_synthesis"
BEHAVIOR_ACTION = "behavior_synthesis"
#: the reference's synthesis home when neither the parameter nor the environment names one
HOME_VARIABLE, DEFAULT_HOME = "FLEXBE_SYNTHESIS_HOME", "~/.flexbe_synthesis"


def synthesis_home(value: str) -> Path:
    """The synthesis home: the parameter (an existing folder), else the environment's, else the
    reference's default (either may be missing: then only shipped catalogs are found)."""
    if value:
        path = Path(value).expanduser()
        if not path.is_dir():
            raise ParameterError("synthesis_home", value, "an existing folder")
        return path
    return Path(os.environ.get(HOME_VARIABLE) or DEFAULT_HOME).expanduser()


def default_output_dir(when: float | None = None) -> Path:
    """``<ROS log folder>/bdi_supervisor/flexbe_synthesis_<date>-<time>_<pid>``."""
    from rclpy.logging import get_logging_directory

    stamp = time.strftime("%Y-%m-%d-%H-%M-%S", time.localtime(when))
    return (Path(get_logging_directory()) / "bdi_supervisor"
            / f"flexbe_synthesis_{stamp}_{os.getpid()}")


def _strings(values) -> tuple[str, ...]:
    """A goal's string list, entries stripped, empty ones dropped (as the reference's client)."""
    return tuple(v.strip() for v in values if v.strip())


def _split(text: str) -> tuple[str, ...]:
    """A ``BehaviorSynthesis`` field: comma-separated formulas."""
    return _strings(text.split(","))


def reference_request(goal) -> SynthesisRequest:
    """A ``FlexBESynthesis`` goal as a request."""
    request = goal.request
    return SynthesisRequest(
        initial_conditions=_strings(request.initial_conditions), goals=_strings(request.goals),
        sm_outcomes=tuple(o.strip() for o in request.sm_outcomes),
        system_name=request.system_name.strip(), spec_name=request.spec_name,
        specification_file_name=request.specification_file_name.strip(),
        synthesis_timeout_s=float(request.synthesis_timeout_s),
        synthesis_options=goal.synthesis_options)


def behavior_request(goal) -> SynthesisRequest:
    """A ``BehaviorSynthesis`` goal as a request."""
    request = goal.request
    return SynthesisRequest(initial_conditions=_split(request.initial_condition),
                            goals=_split(request.goal),
                            sm_outcomes=tuple(o.strip() for o in request.sm_outcomes),
                            system_name=request.system.strip(), spec_name=request.name)


def state_messages(answer: Answer) -> list:
    """The answer's state instantiations as ``flexbe_msgs/StateInstantiation`` messages."""
    from flexbe_msgs.msg import StateInstantiation

    messages = []
    for state in answer.states:
        message = StateInstantiation()
        for name, value in state.to_dict().items():
            setattr(message, name, [float(v) for v in value] if name == "position" else value)
        messages.append(message)
    return messages


class SynthesisServer(SuiteNode):
    """The action servers over the synthesis service (see the module docstring)."""

    def __init__(self, context=None, parameter_overrides=None) -> None:
        super().__init__(NODE_NAME, context=context, parameter_overrides=parameter_overrides)
        home = synthesis_home(params.declare(self, "synthesis_home", "", "systems folder"))
        output = params.declare(self, "output_dir", "", "folder for the run folders")
        save = params.declare(self, "save_outputs", True, "write each goal's run folder")
        timeout = params.declare(self, "synthesis_timeout_s", 900.0, "default time budget (s)")
        waiting = params.declare(self, "queue_size", 4, "goals that may wait")
        outcome_states = params.declare(self, "outcome_states", True, "':OUTCOME' records")
        behavior = params.declare(self, "behavior_synthesis_action", BEHAVIOR_ACTION,
                                  "name of FlexBE's BehaviorSynthesis action ('': none)")
        if waiting < 0:
            raise ParameterError("queue_size", waiting, "a number >= 0")
        self.output_dir = (params.writable_dir("output_dir", output or str(default_output_dir()))
                           if save else None)
        self.settings = Settings(str(home), None, params.positive("synthesis_timeout_s", timeout),
                                 outcome_states)
        self.gate = GoalGate(waiting)
        self.threads = waiting + 4  # the waiting goals, the running one, the services
        self.stopping = threading.Event()
        self._busy = threading.Semaphore(0)  # released once per goal whose result is set
        self._started = 0
        self._tickets: dict[bytes, int] = {}
        self._numbers = itertools.count(1)
        self.servers = [self._server(*self._reference_action(), ACTION)]
        flexbe = self._behavior_action() if behavior else None
        if flexbe is not None:
            self.servers.append(self._server(*flexbe, behavior))
        missing = "" if home.is_dir() else " (missing: shipped catalogs only)"
        folders = f"; run folders in {self.output_dir}" if self.output_dir else ""
        self.get_logger().info(f"serving {ACTION}" + (f" and {behavior}" if flexbe else "")
                               + f"; synthesis home {home}{missing}{folders}")

    # -- the two action types

    def _reference_action(self):
        from flexbe_synthesis_msgs.action import FlexBESynthesis
        from flexbe_synthesis_msgs.msg import SynthesisErrorCode

        def execute(goal_handle):
            answer = self._serve(goal_handle, reference_request(goal_handle.request),
                                 FlexBESynthesis.Feedback)
            return FlexBESynthesis.Result(error_code=SynthesisErrorCode(value=int(answer.code)),
                                          states=state_messages(answer),
                                          messages=answer.messages)

        return FlexBESynthesis, execute

    def _behavior_action(self):
        try:
            from flexbe_msgs.action import BehaviorSynthesis
            from flexbe_msgs.msg import SynthesisErrorCodes
        except ImportError:
            return None

        def execute(goal_handle):
            answer = self._serve(goal_handle, behavior_request(goal_handle.request),
                                 BehaviorSynthesis.Feedback)
            return BehaviorSynthesis.Result(
                error_code=SynthesisErrorCodes(value=int(answer.code)),
                states=state_messages(answer))

        return BehaviorSynthesis, execute

    def _server(self, action_type, execute, name: str) -> ActionServer:
        return ActionServer(self, action_type, name, execute_callback=execute,
                            goal_callback=self._on_goal,
                            handle_accepted_callback=self._on_accepted,
                            cancel_callback=lambda goal_handle: CancelResponse.ACCEPT,
                            callback_group=ReentrantCallbackGroup())

    def _on_goal(self, goal) -> GoalResponse:
        if self.stopping.is_set() or not self.gate.reserve():
            self.get_logger().warning(f"goal rejected: {self.gate.held} goals running or "
                                      "waiting (queue_size)")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _on_accepted(self, goal_handle) -> None:
        self._tickets[bytes(goal_handle.goal_id.uuid)] = self.gate.ticket()
        goal_handle.execute()

    # -- one goal

    def _serve(self, goal_handle, request: SynthesisRequest, feedback_type) -> Answer:
        self._started += 1
        try:
            return self._answer_goal(goal_handle, request, feedback_type)
        finally:
            self._busy.release()

    def _answer_goal(self, goal_handle, request: SynthesisRequest, feedback_type) -> Answer:
        ticket = self._tickets.pop(bytes(goal_handle.goal_id.uuid))
        cancelled = lambda: goal_handle.is_cancel_requested or self.stopping.is_set()  # noqa: E731
        try:
            if self.gate.wait_turn(ticket, cancelled):
                answer = self._run(goal_handle, request, feedback_type, cancelled)
            else:
                answer = Answer(Code.PREEMPTED, [], ["cancelled before it started"])
        except Exception as error:  # a bug here must not leave the goal without a result
            answer = Answer(Code.FAILURE, [], [f"server error: {error!r}"])
        finally:
            self.gate.done(ticket)
        self._log(request, answer)
        if answer.code == Code.PREEMPTED and goal_handle.is_cancel_requested:
            goal_handle.canceled()
        elif answer.code == Code.SUCCESS:
            goal_handle.succeed()
        else:
            goal_handle.abort()
        return answer

    def _log(self, request: SynthesisRequest, answer: Answer) -> None:
        text = (f"{request.system_name or '?'}: {answer.code.name} ({len(answer.states)} "
                "states)" + "".join(f"\n  {m}" for m in answer.messages))
        if answer.code == Code.SUCCESS:
            self.get_logger().info(text)
        else:
            self.get_logger().error(text)

    def _run(self, goal_handle, request, feedback_type, cancelled) -> Answer:
        number = next(self._numbers)
        out = str(self.output_dir / f"goal_{number}") if self.output_dir else None
        self.get_logger().info(f"goal {number}: system {request.system_name!r}")
        job = Job(request, Settings(self.settings.home, out, self.settings.default_timeout,
                                    self.settings.outcome_states))
        try:
            for event in job.events():
                if event is None:
                    if cancelled():
                        job.cancel()
                elif event.progress is not None:
                    goal_handle.publish_feedback(feedback_type(
                        status=event.progress.status, progress=event.progress.progress))
                else:
                    return event.answer
        finally:
            if job.process.poll() is None:  # left early (an error here): stop the worker
                job.cancel()
        raise AssertionError("unreachable")  # pragma: no cover

    def on_stop(self) -> None:
        """Refuse new goals, stop the running one and give up the waiting ones; return when
        each has its result (the action server must outlive them)."""
        self.stopping.set()
        self.gate.close()
        deadline = time.monotonic() + KILL_AFTER + 5.0
        for _ in range(self._started):
            if not self._busy.acquire(timeout=max(0.0, deadline - time.monotonic())):
                self.get_logger().error("a goal did not end in time")
                return


def main(args: list[str] | None = None) -> int:
    return run(lambda context: SynthesisServer(context), NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
