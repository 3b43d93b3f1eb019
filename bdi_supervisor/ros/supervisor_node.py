"""``supervisor_node``: runs an audited supervisor (rclpy).

Parameters:

- ``mission`` (string, required): the mission file;
- ``runner`` (``embedded`` | ``flexbe``, default embedded);
- ``folder`` (string): a run folder (``reduced.json``, ``audit.json``) to run at once; empty: wait
  for the synthesis node's hand-over on ``bdi_supervisor/supervisor`` (latched), which it only
  publishes after an audit PASS;
- ``sim``, ``force``, ``max_steps``: as ``bdi-supervisor run --sim/--force/--max-steps``
  (empty/0: the mission's ``runner`` section);
- ``ros_adapters`` (string): YAML file mapping capabilities to ROS 2 service/action adapters
  (:mod:`bdi_supervisor.ros.adapters`), bound instead of the mission's adapters;
- ``exit_when_done`` (bool, default false): end the process when the run ends (or is refused),
  with one exit code per kind of ending (:attr:`~bdi_supervisor.handover.RunState.exit_code`:
  0 the goal, 3 the step limit, 4 a designed outcome that is not the goal, 5 refused, 6 an
  engine or adapter error, 7 stopped; docs/ros2.md);
- ``autonomy`` (``off`` | ``low`` | ``high`` | ``full``, default empty): FlexBE's autonomy when
  the behavior starts, for an operator's ``runner:=flexbe`` run (the operator answers FlexBE's
  outcome requests). Empty: the supervisor runs it as the embedded executor would
  (:func:`~bdi_supervisor.runtime.flexbe_link.control`): ``full`` and, with
  ``exit_when_done``, it confirms FlexBE's requests; ``off`` and every outcome answered by it
  when the run has forced outcomes (``force``, the mission's ``runner.force``/``random``);
- ``flexbe_prefix`` (string): a run-time ament prefix on FlexBE onboard's paths
  (``mission.launch.py`` sets it with ``runner:=flexbe``): the realized behavior is installed
  there before it is selected (:mod:`bdi_supervisor.realize.install`). Empty: it must be built
  into the workspace with colcon;
- ``flexbe_timeout`` (float s, default 30), ``flexbe_resend_period`` (float s, default 5): how
  long a ``runner:=flexbe`` run waits for onboard to acknowledge the behavior, and how often it
  re-sends the selection meanwhile (:mod:`bdi_supervisor.ros.flexbe_run`);
- ``flexbe_heartbeat_timeout`` (float s, default 3): once onboard acknowledged, a run without
  its heartbeat for that long ends with an error (:mod:`bdi_supervisor.ros.flexbe_watch`);
- ``monitor_node`` (string, default empty): the monitor that must hear the run from its first
  record. An embedded run starts only once a node of this name (or fully qualified name, when it
  contains ``/``) is subscribed to ``bdi_supervisor/bdi_state`` and matched with this node's
  publisher: the monitor node subscribes only when its core is built and its launch-time checks
  are done, so its subscription is its readiness signal. ``mission.launch.py`` sets it when the
  mission has properties. Empty: start at once;
- ``monitor_timeout`` (float s, default 120): how long to wait for that monitor; then the run
  starts anyway, with an error in the log and a warning on ``/diagnostics`` (the stream keeps
  the whole run for a monitor that subscribes later, see :data:`~bdi_supervisor.ros.qos.STREAM`).
  With ``exit_when_done`` the node also waits after the run ended until that monitor's
  ``bdi_monitor: stream`` status accounts for the run's last record, and adds the monitor's
  verdicts on the whole run to the run folder's ``verdict.json`` (``monitor``: property →
  verdict);
- ``monitor_drain`` (float s, default 15): how long that wait lasts at most; a monitor that did
  not report the last record by then leaves ``monitor_unreported`` (the reason) in
  ``verdict.json`` instead of ``monitor``, and a warning in the log.

The hand-over checks (same mission, audit PASS, the sha256 of ``reduced.json``) are
:mod:`bdi_supervisor.handover`'s, shared with ``bdi-supervisor run``; the adapters file is read
by :mod:`bdi_supervisor.runtime.adapter_config`.

Embedded: executes with :func:`bdi_supervisor.runtime.session.run_supervisor` on a worker thread
(the node keeps spinning for the ROS adapters) and publishes every BDI-state record on
``bdi_supervisor/bdi_state`` (and into the run folder's :data:`BDI_LOG`). FlexBE: sends
``flexbe_msgs/BehaviorSelection`` on ``flexbe/start_behavior`` for the realized behavior
(``<folder>/behavior``, installed into ``flexbe_prefix`` or built into the workspace) once
onboard subscribes, re-sends until a ``BEStatus`` on ``flexbe/status`` acknowledges it or the
timeout ends the run, and reports every ``BEStatus`` (:mod:`bdi_supervisor.ros.flexbe_run`);
then watches onboard's heartbeat, its ``flexbe/status`` publisher and its ``flexbe/log`` errors
(:mod:`bdi_supervisor.ros.flexbe_watch`), and follows (or drives) the behavior with the executor
(:mod:`bdi_supervisor.ros.flexbe_follow`), whose records it publishes as an embedded run's. Both
publish the run's state on ``/diagnostics`` (``bdi_supervisor: run``).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from diagnostic_msgs.msg import DiagnosticArray
from std_msgs.msg import String

import bdi_supervisor.domains  # noqa: F401  (registers the simulators with the runtime)
from bdi_supervisor import handover
from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import InputError
from bdi_supervisor.handover import RunState
from bdi_supervisor.realize.install import install_behavior
from bdi_supervisor.ros import (
    diagnostics,
    flexbe_run,
    flexbe_start,
    flexbe_watch,
    params,
    qos,
    topics,
    wire,
)
from bdi_supervisor.ros.flexbe_follow import FlexbeFollower
from bdi_supervisor.ros.launch_plan import RUNNERS
from bdi_supervisor.ros.node_main import ParameterError, SuiteNode, run
from bdi_supervisor.ros.status import Level, Status
from bdi_supervisor.runtime import flexbe_link
from bdi_supervisor.runtime.adapter_config import read_adapters
from bdi_supervisor.runtime.bdi_state import JsonLinesSink

NODE_NAME = "bdi_supervisor"
#: the run's BDI-state records, as published, in its run folder (JSON Lines, ``--bdi-log``'s)
BDI_LOG = "bdi_state.jsonl"
#: the monitor node's status of the stream it receives (its ``last_seq`` and ``run_id``)
MONITOR_STREAM = "bdi_monitor: stream"
#: the prefix of the monitor node's verdict statuses (``bdi_monitor: <property>``)
MONITOR_VERDICT = "bdi_monitor: "


def names_node(wanted: str, name: str, namespace: str) -> bool:
    """Whether ``wanted`` (a node name, or a fully qualified one when it contains ``/``) is the
    node ``name`` in ``namespace``."""
    if "/" not in wanted:
        return wanted == name
    return wanted.rstrip("/") == f"{namespace.rstrip('/')}/{name}"


class SupervisorNode(SuiteNode):
    """Waits for (or is given) an audited supervisor, runs it, publishes the BDI state."""

    monitor_missed = False

    def __init__(self, context=None, parameter_overrides=None) -> None:
        super().__init__(NODE_NAME, context=context, parameter_overrides=parameter_overrides)
        from bdi_supervisor.mission import load_mission

        mission_path = params.mission_file("mission", params.declare(
            self, "mission", "", "mission file"))
        self.runner = params.one_of("runner", params.declare(
            self, "runner", "embedded", "embedded or flexbe"), RUNNERS)
        folder = params.declare(self, "folder", "", "run folder to execute at once")
        self.sim = params.declare(self, "sim", "", "simulator (default: the mission's)")
        self.force = params.declare(self, "force", "", "forced outcomes, as --force")
        self.max_steps = params.declare(self, "max_steps", 0, "activation limit (0: mission's)")
        if self.max_steps < 0:
            raise ParameterError("max_steps", self.max_steps, "an integer >= 0")
        adapters_file = params.existing_file("ros_adapters", params.declare(
            self, "ros_adapters", "", "YAML: capability -> ROS service/action"), required=False)
        self.exit_when_done = params.declare(self, "exit_when_done", False,
                                             "end the process when the run ends")
        self.autonomy = params.declare(self, "autonomy", "",
                                       "FlexBE autonomy of an operator's run (empty: scripted)")
        if self.autonomy and self.autonomy not in flexbe_link.AUTONOMY:
            raise ParameterError("autonomy", self.autonomy,
                                 "empty or one of " + ", ".join(flexbe_link.AUTONOMY))
        self.monitor_node = params.declare(self, "monitor_node", "",
                                           "monitor to wait for before a run (empty: none)")
        self.monitor_timeout = params.positive("monitor_timeout", params.declare(
            self, "monitor_timeout", 120.0, "seconds to wait for monitor_node"))
        self.monitor_drain = params.positive("monitor_drain", params.declare(
            self, "monitor_drain", 15.0,
            "seconds an exit_when_done run waits at its end for monitor_node's last verdicts"))
        self.flexbe_prefix = params.declare(self, "flexbe_prefix", "",
                                            "run-time prefix onboard reads behaviors from")
        self.flexbe_timeout = params.positive("flexbe_timeout", params.declare(
            self, "flexbe_timeout", flexbe_run.DEFAULT_TIMEOUT,
            "seconds to wait for FlexBE onboard to acknowledge the behavior"))
        self.flexbe_resend = params.positive("flexbe_resend_period", params.declare(
            self, "flexbe_resend_period", flexbe_run.DEFAULT_RESEND_PERIOD,
            "seconds between BehaviorSelection re-sends until onboard acknowledges"))
        self.heartbeat_timeout = params.positive("flexbe_heartbeat_timeout", params.declare(
            self, "flexbe_heartbeat_timeout", flexbe_watch.DEFAULT_HEARTBEAT_TIMEOUT,
            "seconds without onboard's heartbeat that end a running FlexBE run"))
        self.mission = load_mission(mission_path)
        self.ros_adapters = self._adapters(adapters_file) if adapters_file else {}
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.state, self.detail = RunState.WAITING, "waiting for an audited supervisor"
        self.result = None
        self.code: int | None = None  # the exit code of the run's ending, once it ended
        self.flexbe_run: flexbe_run.FlexbeRun | None = None
        self.follower: FlexbeFollower | None = None
        self.handshake: flexbe_run.Handshake | None = None
        self.watch: flexbe_watch.OnboardWatch | None = None
        self.bdi = self.create_publisher(String, topics.BDI_STATE, qos.STREAM)
        self.diagnostics = self.create_publisher(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                                 qos.DIAGNOSTICS)
        self.flexbe = self._flexbe_endpoints() if self.runner == "flexbe" else None
        self.pending = None  # (prepared, deadline) of a run waiting for monitor_node
        self.poll = None
        self.last_record: tuple[str, int] | None = None  # (run_id, seq) last published
        self.log: JsonLinesSink | None = None  # the run's records in its folder
        self.monitor_seen: tuple[str, str] | None = None  # the monitor's (run_id, last_seq)
        self.monitor_verdicts: dict[str, str] = {}  # property -> its latest verdict
        self.exit_pending: tuple[int, float] | None = None  # (code, deadline): monitor drain
        if self.monitor_node and self.exit_when_done:
            self.create_subscription(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                     self._on_diagnostics, qos.DIAGNOSTICS)
            self.drain = self.create_timer(0.1, self._check_drain)
        self.timer = self.create_timer(1.0, self.publish_status)
        if folder:
            self.start(Path(folder))
        else:
            self.handover = self.create_subscription(String, topics.HANDOVER, self._on_handover,
                                                     qos.LATCHED)
        self.publish_status()

    # -- configuration ---------------------------------------------------------------------------
    def _adapters(self, path: Path) -> dict:
        from bdi_supervisor.ros.adapters import create_adapters

        return create_adapters(self, read_adapters(path, self.mission.catalog.capabilities))

    def _flexbe_endpoints(self):
        try:
            from flexbe_msgs.msg import BehaviorLog, BehaviorSelection, BehaviorSync, BEStatus
        except ImportError:
            raise ParameterError("runner", "flexbe", "embedded, or FlexBE (flexbe_msgs) "
                                 "installed in this ROS environment") from None
        return {"selection": BehaviorSelection,
                "start": self.create_publisher(BehaviorSelection, topics.FLEXBE_START, 10),
                "status": self.create_subscription(BEStatus, topics.FLEXBE_STATUS,
                                                   self._on_flexbe_status, 10),
                "heartbeat": self.create_subscription(BehaviorSync, flexbe_watch.HEARTBEAT_TOPIC,
                                                      self._on_flexbe_heartbeat, 10),
                "log": self.create_subscription(BehaviorLog, flexbe_watch.LOG_TOPIC,
                                                self._on_flexbe_log, 100)}

    # -- hand-over ----------------------------------------------------------------------------
    def _on_handover(self, message: String) -> None:
        try:
            body = wire.decode(message.data, wire.HANDOVER).body
        except wire.WireError as error:
            self.get_logger().error(f"ignoring a malformed hand-over: {error}")
            return
        if not handover.same_mission(body, self.mission.file):
            self.get_logger().warning(f"ignoring the hand-over of another mission: "
                                      f"{body.get('mission')}")
            return
        if self.state == RunState.RUNNING or self.pending is not None:
            self.get_logger().warning("a run is in progress; ignoring the new hand-over")
            return
        try:
            folder = handover.accept_handover(body, self.mission.file)
        except handover.Refused as why:
            self._refuse(str(why))
            return
        self.start(folder)

    def _refuse(self, why: str) -> None:
        self.get_logger().error(f"not running: {why}")
        self.state, self.detail = RunState.REFUSED, why
        self._verdict(self.state.exit_code)

    # -- running ------------------------------------------------------------------------------
    def start(self, folder: Path) -> None:
        """Run the supervisor saved in ``folder`` (its audit must have passed)."""
        from bdi_supervisor.pipeline import load_folder

        prepared = load_folder(folder, self.mission)
        self.folder = folder
        if self.log is not None:
            self.log.close()
        self.log = JsonLinesSink(folder / BDI_LOG)
        try:
            handover.check_audit(prepared.audit, folder)
        except handover.Refused as why:
            self._refuse(str(why))
            return
        if self.monitor_node and not self.monitor_ready():
            deadline = self.get_clock().now().nanoseconds + int(self.monitor_timeout * 1e9)
            self.pending = (prepared, deadline)
            self.state, self.detail = RunState.WAITING, (
                f"waiting up to {self.monitor_timeout:g} s for the monitor '{self.monitor_node}' "
                f"to subscribe to {self.bdi.topic_name}")
            self.get_logger().info(self.detail)
            self.poll = self.create_timer(0.1, self._check_monitor)
            self.publish_status()
            return
        self._start_thread(prepared)

    def monitor_ready(self) -> bool:
        """``monitor_node`` subscribes to the BDI-state topic and is matched with our publisher."""
        infos = self.get_subscriptions_info_by_topic(self.bdi.topic_name)
        return self.bdi.get_subscription_count() > 0 and any(
            names_node(self.monitor_node, info.node_name, info.node_namespace) for info in infos)

    def _check_monitor(self) -> None:
        if self.pending is None:
            return
        prepared, deadline = self.pending
        ready = self.monitor_ready()
        if not ready and self.get_clock().now().nanoseconds < deadline:
            return
        self.destroy_timer(self.poll)
        self.poll, self.pending = None, None
        if ready:
            self.get_logger().info(f"monitor '{self.monitor_node}' is subscribed")
        else:
            self.get_logger().error(
                f"monitor '{self.monitor_node}' did not subscribe to {self.bdi.topic_name} "
                f"within {self.monitor_timeout:g} s; running without it (the stream keeps "
                f"{qos.STREAM_DEPTH} records for a monitor that subscribes later)")
            self.monitor_missed = True
        self._start_thread(prepared)

    def _start_thread(self, prepared) -> None:
        if self.runner == "flexbe":
            self._start_flexbe(self.folder, prepared)
            return
        self.state, self.detail = RunState.RUNNING, f"running {self.folder}"
        self.get_logger().info(f"running the supervisor of {self.mission.name} from "
                               f"{self.folder}")
        self.thread = threading.Thread(target=self._run, args=(prepared,), daemon=True,
                                       name="supervisor")
        self.thread.start()

    def _run(self, prepared) -> None:
        from bdi_supervisor.runtime.session import RunOptions, run_supervisor

        options = RunOptions(sim=self.sim or None, force=self.force or None,
                             max_steps=self.max_steps or None)
        code = ExitCode.OK
        try:
            self.result = run_supervisor(self.mission, prepared.machine, prepared.reduced,
                                         options=options, callbacks=[self._publish_record],
                                         stop=self.stop, adapters=self.ros_adapters)
            self.state, self.detail = RunState(self.result.status), self.result.reason
            code = self.state.exit_code
        except InputError as error:
            self.state, self.detail, code = RunState.ERROR, error.describe(), ExitCode.BAD_INPUT
            self.get_logger().error(f"cannot run: {error.describe()}")
        self.get_logger().info(f"run ended: {self.state.value} ({self.detail})")
        self._verdict(code)

    def _publish_record(self, record: dict) -> None:
        self.bdi.publish(String(data=wire.encode_record(record)))
        self.last_record = (record["run_id"], record["seq"])
        if self.log is not None:
            try:
                self.log(record)
            except InputError as error:  # a full disk: the topic still has the record
                self.get_logger().warning(f"{error.describe()}; the run's log stops here")
                self.log = None

    def _on_diagnostics(self, message) -> None:
        """The monitor's statuses: how far it judged the stream, and its verdicts."""
        for status in message.status:
            values = {v.key: v.value for v in status.values}
            if status.name == MONITOR_STREAM:
                self.monitor_seen = (values.get("run_id", ""), values.get("last_seq", ""))
            elif status.name.startswith(MONITOR_VERDICT) and "value" in values:
                name = status.name.removeprefix(MONITOR_VERDICT)
                if not name.startswith("launch "):
                    self.monitor_verdicts[name] = values["value"]

    def _exit(self, code: int) -> None:
        """End the process with ``code`` once the monitor judged the run's last record (or
        after ``monitor_drain`` seconds; at once without a monitor)."""
        if not self.monitor_node or self.monitor_missed or self.last_record is None:
            self.finish(code)
            return
        self.exit_pending = (code, time.monotonic() + self.monitor_drain)

    def _check_drain(self) -> None:
        if self.exit_pending is None:
            return
        code, deadline = self.exit_pending
        run_id, seq = self.last_record
        if self.monitor_seen == (run_id, str(seq)):
            self._write_verdict(monitor=dict(sorted(self.monitor_verdicts.items())))
        elif time.monotonic() >= deadline:
            reason = (f"the monitor did not report the run's last record within "
                      f"{self.monitor_drain:g} s (monitor_drain)")
            self.get_logger().warning(f"{reason}; exiting without its verdicts")
            self._write_verdict(monitor_unreported=reason)
        else:
            return
        self.exit_pending = None
        self.finish(code)

    # -- FlexBE -------------------------------------------------------------------------------
    def _start_flexbe(self, folder: Path, prepared) -> None:
        package_path, module_file = flexbe_start.find_behavior(folder / "behavior")
        if self.flexbe_prefix:
            try:
                installed = install_behavior(folder / "behavior", self.flexbe_prefix)
            except InputError as error:
                self.get_logger().error(f"cannot install the behavior: {error.describe()}")
                self.state, self.detail = RunState.ERROR, (
                    f"cannot install the behavior: {error.describe()}")
                self._verdict(ExitCode.BAD_INPUT)
                return
            module_file = installed.module_file
            self.get_logger().info(f"installed {package_path} into {self.flexbe_prefix} "
                                   f"(version {installed.version})")
        control = self._flexbe_control()
        self.selection = flexbe_start.selection(package_path, module_file, control.level)
        goals = tuple(goal.text for goal in self.mission.request.goals)
        machine = prepared.machine
        self.flexbe_run = flexbe_run.FlexbeRun(
            self.mission.name, self.selection.behavior_id, machine.initial, goals,
            outcomes=flexbe_run.ContainerOutcomes.of(machine.outcomes))
        self.follower = self._follower(prepared, control)
        self.handshake = flexbe_run.Handshake(self.selection.behavior_id, time.monotonic(),
                                              self.flexbe_timeout, self.flexbe_resend)
        self.state, self.detail = RunState.RUNNING, (
            f"starting {package_path} in FlexBE onboard (behavior {self.selection.behavior_id})")
        self.get_logger().info(self.detail)
        self.poll = self.create_timer(0.1, self._flexbe_handshake)
        self._flexbe_handshake()

    def _flexbe_control(self) -> flexbe_link.Control:
        """How the FlexBE run is started and who answers onboard's outcome requests."""
        policy = flexbe_link.mission_policy(self.mission, self.force)
        control = flexbe_link.control(self.autonomy, self.exit_when_done, policy is not None)
        if policy is not None and not control.forced:
            self.get_logger().warning(
                f"autonomy:={self.autonomy} is an operator's run: the forced outcomes and seeded "
                "random failures of the mission are not applied (leave autonomy unset to have "
                "them)")
        self.get_logger().info(
            f"FlexBE autonomy {control.level}; the supervisor "
            + ("answers onboard's outcome requests" if control.drive else "follows the behavior")
            + (" and forces the mission's outcomes" if control.forced else ""))
        return control

    def _follower(self, prepared, control: flexbe_link.Control) -> FlexbeFollower:
        policy = flexbe_link.mission_policy(self.mission, self.force) if control.forced else None
        link = flexbe_link.FlexbeLink(prepared.machine, send=lambda command: None,
                                      drive=control.drive, policy=policy)

        def run_executor(link, callback, stop):
            return flexbe_link.follow(self.mission, prepared.machine, link, prepared.reduced,
                                      max_steps=self.max_steps or None, callbacks=(callback,),
                                      stop=stop)
        return FlexbeFollower(self, self.flexbe_run, link, control, run_executor,
                              self._publish_record)

    def onboard_matched(self) -> bool:
        """A subscriber of ``flexbe/start_behavior`` is matched with our publisher, and we hear
        ``flexbe/status``."""
        return (self.flexbe["start"].get_subscription_count() > 0
                and self.count_publishers(self.flexbe["status"].topic_name) > 0)

    def _flexbe_handshake(self) -> None:
        if self.handshake is None:
            return
        self.follower.tick(time.monotonic())
        if self.follower.stream.done:
            self._flexbe_ended()
            return
        if self.flexbe_run.state.final:
            return
        if self.watch is not None:
            why = self.watch.check(time.monotonic(),
                                   self.count_publishers(self.flexbe["status"].topic_name))
            if why is not None:
                self._flexbe_records(self.flexbe_run.end(RunState.ERROR, why))
            return
        matched = self.onboard_matched()
        action = self.handshake.step(time.monotonic(), matched)
        if action == "send":
            chosen = self.selection
            self.flexbe["start"].publish(self.flexbe["selection"](
                behavior_key=chosen.behavior_key, behavior_id=chosen.behavior_id,
                autonomy_level=chosen.autonomy_level, arg_keys=list(chosen.arg_keys),
                arg_values=list(chosen.arg_values)))
            self.get_logger().info(f"sent BehaviorSelection {self.handshake.sends} of at most "
                                   f"{self.handshake.max_sends} for {chosen.names['package_path']}")
            if self.handshake.sends == 1:
                self._flexbe_records([self.flexbe_run.start(chosen.names["package_path"])])
        elif action == "give_up":
            self._flexbe_records(self.flexbe_run.end(RunState.ERROR,
                                                     self.handshake.failure(matched)))

    def _on_flexbe_status(self, message) -> None:
        if self.flexbe_run is None:
            return
        report = flexbe_run.Report(int(message.code), int(message.behavior_id),
                                   tuple(message.args),
                                   message.stamp.sec * 1_000_000_000 + message.stamp.nanosec)
        if self.handshake.acknowledge(report) and self.handshake.acknowledged is report:
            self.get_logger().info(f"FlexBE onboard acknowledged: {report.describe()}")
            self.watch = flexbe_watch.OnboardWatch(time.monotonic(), self.heartbeat_timeout)
            if report.code == flexbe_run.STARTED:
                self.follower.start()
        self.get_logger().info(f"BEStatus {report.describe()}")
        self._flexbe_records(self.flexbe_run.report(report))

    def _on_flexbe_heartbeat(self, message) -> None:
        if self.watch is not None:
            self.watch.beat(time.monotonic())

    def _on_flexbe_log(self, message) -> None:
        why = flexbe_watch.state_exception(int(message.status_code), str(message.text))
        if why is not None and self.watch is not None and not self.flexbe_run.state.final:
            self._flexbe_records(self.flexbe_run.end(RunState.ERROR, why))

    def _flexbe_records(self, records: list[dict]) -> None:
        """FlexBE's records go into the run's one stream (:mod:`~.flexbe_stream`), which ends
        once the executor following the behavior and FlexBE are both done."""
        self.follower.stream.flexbe_records(records)
        if self.follower.stream.done:
            self._flexbe_ended()
            return
        self.detail = self.flexbe_run.detail
        self.publish_status()

    def _flexbe_ended(self) -> None:
        if self.state.final:
            return
        self.state, self.detail = self.follower.stream.state, self.follower.stream.detail
        if self.poll is not None:
            self.destroy_timer(self.poll)
            self.poll = None
        log = self.get_logger().info if self.state.healthy else self.get_logger().error
        log(f"run ended: {self.state.value} ({self.detail})")
        self._verdict(self.state.exit_code)

    def _verdict(self, code: int) -> None:
        """The run ended (or was refused) with exit ``code``: publish it, leave it in the run
        folder (:func:`~bdi_supervisor.handover.write_verdict`), end the process if asked."""
        self.code = code
        self.publish_status()
        self._write_verdict()
        if self.exit_when_done:
            self._exit(code)

    def _write_verdict(self, **extra) -> None:
        """The run's verdict in its folder (``monitor``: the monitor's verdicts on the whole
        run, once it judged the last record)."""
        folder = getattr(self, "folder", None)
        if folder is None:
            return
        outcome = self.follower.stream.sm_outcome if self.follower is not None else (
            self.result.sm_outcome if self.result is not None else None)
        try:
            handover.write_verdict(folder, "run", self.state.value, self.code, self.detail,
                                   mission=self.mission.name, runner=self.runner,
                                   sm_outcome=outcome, **extra)
        except (OSError, InputError) as error:
            self.get_logger().warning(f"verdict not written into {folder}: {error}")

    # -- status -------------------------------------------------------------------------------
    def publish_status(self) -> None:
        values = {"runner": self.runner, "state": self.state.value, "mission": self.mission.name}
        if self.monitor_node:
            values["monitor"] = "missed" if self.monitor_missed else self.monitor_node
        if self.result is not None:
            values.update({"run_id": self.result.run_id, "steps": str(len(self.result.steps)),
                           "sm_outcome": str(self.result.sm_outcome)})
        if self.flexbe_run is not None:
            values.update(self.flexbe_run.values())
            values.update(self.follower.values())
        if self.code is not None:
            values["exit_code"] = str(self.code)
        level = Level.OK if self.state.healthy else Level.ERROR
        if self.monitor_missed:
            level = max(level, Level.WARN)
        status = Status(level, f"{NODE_NAME}: run",
                        self.detail, self.mission.name, values)
        self.diagnostics.publish(diagnostics.to_array([status], self.get_clock().now().to_msg()))

    def destroy_node(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=10)
        if self.follower is not None:
            self.follower.close()
        if self.log is not None:
            self.log.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run(lambda context: SupervisorNode(context), NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
