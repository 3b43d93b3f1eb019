"""``drone_node``: one drone serving the Flexible Drones interfaces (rclpy).

The ``flexible_drones_msgs`` interfaces of a drone called ``<drone>``, on the simulated gate
course (the kinematic model or RotorPy) or a real Crazyflie:

- service ``<drone>/arm`` (``Arm``: arm / disarm), ``<drone>/get_status`` (``GetStatus``),
  ``<drone>/emergency_stop`` (``EmergencyStop``);
- actions ``<drone>/takeoff`` (``Takeoff``), ``<drone>/land`` (``Land``), ``<drone>/go_to``
  (``GoTo``, absolute frame), ``<drone>/upload_trajectory`` (``UploadTrajectory``),
  ``<drone>/execute_trajectory`` (``ExecuteTrajectory``) and the planner ``plan_trajectory``
  (``GetTrajectory``: a trajectory between two frames of the course, ``start``, ``end``,
  ``gate_<X>_target_1``, named in the boundaries' ``frame_id``);
- topics ``<drone>/status`` (``DroneStatus``, latched, on every change and every
  ``status_period`` s) and ``<drone>/odom`` (``FullState``: the position).

Every action ends with ``return_code`` in its result (0 success, 2 odometry unavailable, 4
cancelled, 5 crashed, 6 timeout, 9 invalid goal, ...: :mod:`~..drone`); a cancelled execute
ends ``canceled``, every other goal ``succeeded``. Take-off, landing and go-to refuse to be
cancelled, as the drone stack's do. A non-positive duration means the platform's own.

Parameters: ``mission`` (file or shipped name: its ``runner.quadcopter`` block gives the
platform, seed, dropouts, watchdog and geofence), ``backend`` (``kinematic`` | ``rotorpy`` |
``crazyflie``; empty: the mission's), ``drone`` (default ``drone``), ``uri``, ``dry_run``,
``min_battery_v``, ``connect_timeout`` (the Crazyflie backend: :mod:`~..crazyflie`),
``status_period`` (s), ``watch_supervisor`` (default true: FlexBE onboard's FAILED or ERROR on
``flexbe/status``, or the supervisor node's run ending in an error, its ``bdi_supervisor: run``
state on ``/diagnostics``, stops the motors). The logic is :class:`~..server.DroneServer`'s;
this node converts messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from bdi_supervisor.domains.quadcopter import trajectory as T
from bdi_supervisor.domains.quadcopter.drone import CallResult
from bdi_supervisor.domains.quadcopter.server import DroneServer, Status
from bdi_supervisor.domains.quadcopter.vehicles import BACKENDS, CrazyflieSettings, open_vehicle
from bdi_supervisor.ros import diagnostics, params, qos, topics
from bdi_supervisor.ros.node_main import SuiteNode, run

try:
    from flexible_drones_msgs import action as A
    from flexible_drones_msgs import msg as M
    from flexible_drones_msgs import srv as S
except ImportError as error:  # pragma: no cover - depends on the ROS environment
    raise ImportError("drone_node needs flexible_drones_msgs (source ../shared/ros-stack/domains/"
                      f"env.sh, or a workspace that builds it): {error}") from error

NODE_NAME = "drone"
#: seconds an action server waits before it answers a goal request. rclpy's ActionClient
#: registers a goal's future only after sending the request, without a lock; a client that sends
#: from another thread than its executor's (FlexBE's states do) drops an answer that comes back
#: before that ("Ignoring unexpected goal response"), and its goal then never ends. A local
#: server answers within a millisecond; this delay keeps the answer behind the registration.
GOAL_RESPONSE_DELAY = 0.05
#: the supervisor node's run status on /diagnostics (its ``state`` value: the run state)
RUN_STATUS = "bdi_supervisor: run"
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
_PLATFORMS = {"crazyflie": M.DroneStatus.PLATFORM_CRAZYFLIE,
              "pihawk": M.DroneStatus.PLATFORM_PIHAWK}


def seconds(duration) -> float:
    """A ``builtin_interfaces/Duration`` in seconds."""
    return duration.sec + duration.nanosec * 1e-9


def pieces_from_msg(trajectory) -> list[T.Piece]:
    return [T.Piece(seconds(p.duration), tuple(p.poly_x), tuple(p.poly_y), tuple(p.poly_z),
                    tuple(p.poly_yaw) or (0.0,) * T.COEFFICIENTS) for p in trajectory.pieces]


def pieces_to_msg(trajectory_id: int, pieces: list[T.Piece]):
    message = M.Trajectory(trajectory_id=trajectory_id)
    for piece in pieces:
        whole = int(piece.duration)
        out = M.TrajectoryPolynomialPiece(poly_x=list(piece.x), poly_y=list(piece.y),
                                          poly_z=list(piece.z), poly_yaw=list(piece.yaw))
        out.duration.sec, out.duration.nanosec = whole, int((piece.duration - whole) * 1e9)
        message.pieces.append(out)
    return message


class DroneNode(SuiteNode):
    """Serves one drone (see the module docstring)."""

    def __init__(self, context) -> None:
        super().__init__(NODE_NAME, context=context)
        mission = params.mission_file("mission", params.declare(
            self, "mission", "", "mission file or shipped mission name"))
        backend = params.declare(self, "backend", "", "kinematic, rotorpy or crazyflie "
                                 "(empty: the mission's runner.quadcopter.backend)")
        if backend:
            params.one_of("backend", backend, BACKENDS)
        self.drone = params.declare(self, "drone", "drone", "the drone's name (its namespace)")
        settings = CrazyflieSettings(
            uri=params.declare(self, "uri", CrazyflieSettings.uri, "Crazyflie link URI"),
            dry_run=params.declare(self, "dry_run", False, "log Crazyflie commands, send none"),
            min_battery_v=params.positive("min_battery_v", params.declare(
                self, "min_battery_v", CrazyflieSettings.min_battery_v,
                "lowest battery voltage at which the Crazyflie may arm")),
            connect_timeout_s=params.positive("connect_timeout", params.declare(
                self, "connect_timeout", CrazyflieSettings.connect_timeout_s,
                "seconds to wait for the Crazyflie's link")))
        period = params.positive("status_period", params.declare(
            self, "status_period", 0.5, "seconds between status messages"))
        watch = params.declare(self, "watch_supervisor", True,
                               "emergency stop on a supervisor error")
        self.opened = open_vehicle(mission, backend or None, settings, self._log)
        self.server = DroneServer(self.opened.vehicle, self.opened.geofence, self.drone,
                                  self._log)
        self._serve()
        self._status_pub = self.create_publisher(M.DroneStatus, f"{self.drone}/status", LATCHED)
        self._odom_pub = self.create_publisher(M.FullState, f"{self.drone}/odom", 10)
        self._last_status: Status | None = None
        self.create_timer(period, lambda: self._publish_status(force=True))
        self.create_timer(0.1, self._publish_status)
        if watch:
            self._watch_supervisor()
        self._publish_status(force=True)
        self.get_logger().info(
            f"drone '{self.drone}' ready: {self.opened.describe} (geofence "
            f"{self.opened.geofence.describe()})")

    # -- set-up ---------------------------------------------------------------------------------
    def _log(self, text: str) -> None:
        self.get_logger().info(text)

    def _serve(self) -> None:
        group = ReentrantCallbackGroup()
        d = self.drone
        self.create_service(S.Arm, f"{d}/arm", self._on_arm, callback_group=group)
        self.create_service(S.GetStatus, f"{d}/get_status", self._on_get_status,
                            callback_group=group)
        self.create_service(S.EmergencyStop, f"{d}/emergency_stop", self._on_emergency_stop,
                            callback_group=group)
        self._actions = [
            self._action(A.Takeoff, f"{d}/takeoff", self._takeoff, group, cancellable=False),
            self._action(A.Land, f"{d}/land", self._land, group, cancellable=False),
            self._action(A.GoTo, f"{d}/go_to", self._go_to, group, cancellable=False),
            self._action(A.UploadTrajectory, f"{d}/upload_trajectory", self._upload, group,
                         cancellable=False),
            self._action(A.ExecuteTrajectory, f"{d}/execute_trajectory", self._execute, group,
                         cancellable=True),
            self._action(A.GetTrajectory, "plan_trajectory", self._plan, group,
                         cancellable=False),
        ]

    def _action(self, kind, name: str, handle: Callable, group, cancellable: bool):
        def execute(goal_handle):
            result = handle(goal_handle.request, kind.Result())
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
            else:
                goal_handle.succeed()
            self._publish_status(force=True)
            return result

        def cancel(_goal_handle):
            if not cancellable:
                return CancelResponse.REJECT
            self.server.cancel()
            return CancelResponse.ACCEPT

        def accept(_goal):
            time.sleep(GOAL_RESPONSE_DELAY)
            return GoalResponse.ACCEPT

        return ActionServer(self, kind, name, execute, goal_callback=accept,
                            cancel_callback=cancel, callback_group=group)

    def _watch_supervisor(self) -> None:
        try:
            from flexbe_msgs.msg import BEStatus
        except ImportError:
            self.get_logger().warning("flexbe_msgs not installed: FlexBE errors are not watched")
        else:
            self.create_subscription(BEStatus, topics.FLEXBE_STATUS, self._on_bestatus, 10)
        self.create_subscription(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                 self._on_diagnostics, qos.DIAGNOSTICS)

    # -- requests -------------------------------------------------------------------------------
    def _on_arm(self, request, response):
        response.success = self.server.arm(bool(request.arm)).ok
        self._publish_status(force=True)
        return response

    def _on_get_status(self, request, response):
        response.status = self._status_msg(self.server.status())
        response.success = request.drone_id in ("", self.drone)
        return response

    def _on_emergency_stop(self, request, response):
        result = self.server.emergency_stop("emergency_stop service called")
        response.success, response.message = result.ok, result.message
        self._publish_status(force=True)
        return response

    def _takeoff(self, goal, result):
        outcome = self.server.takeoff(float(goal.height), seconds(goal.duration))
        result.return_code = outcome.return_code
        return result

    def _land(self, goal, result):
        outcome = self.server.land(float(goal.height), seconds(goal.duration))
        result.return_code = outcome.return_code
        return result

    def _go_to(self, goal, result):
        if goal.frame != A.GoTo.Goal.FRAME_ABSOLUTE:
            result.return_code = self.server.refuse(
                "go_to", "only absolute go_to goals are supported").return_code
            return result
        point = (float(goal.goal.x), float(goal.goal.y), float(goal.goal.z))
        result.return_code = self.server.go_to(point, seconds(goal.duration)).return_code
        return result

    def _plan(self, goal, result):
        outcome, pieces = self.server.plan(int(goal.trajectory_id), goal.start.frame_id,
                                           goal.target.frame_id)
        result.success, result.message = outcome.ok, outcome.message
        result.trajectory = pieces_to_msg(int(goal.trajectory_id), pieces)
        return result

    def _upload(self, goal, result):
        trajectory = goal.trajectory
        outcome = self.server.upload(int(trajectory.trajectory_id), pieces_from_msg(trajectory))
        result.return_code = outcome.return_code
        result.uploaded_pieces = int(outcome.feedback.get("uploaded_pieces", 0))
        return result

    def _execute(self, goal, result):
        outcome: CallResult = self.server.execute(int(goal.trajectory_id), float(goal.timescale),
                                                  bool(goal.reversed), bool(goal.relative))
        result.return_code = outcome.return_code
        return result

    # -- supervisor errors ----------------------------------------------------------------------
    def _on_bestatus(self, message) -> None:
        if self.server.supervisor_report(bestatus=int(message.code)):
            self._publish_status(force=True)

    def _on_diagnostics(self, array) -> None:
        for message in array.status:
            if message.name == RUN_STATUS:
                state = diagnostics.from_message(message).values.get("state", "")
                if self.server.supervisor_report(run_status=state):
                    self._publish_status(force=True)

    # -- status ---------------------------------------------------------------------------------
    def _status_msg(self, status: Status):
        out = M.DroneStatus(drone_name=status.drone_name, status_text=status.status_text,
                            warning_text=status.warning_text)
        out.header.stamp = self.get_clock().now().to_msg()
        out.platform = _PLATFORMS.get(status.platform, M.DroneStatus.PLATFORM_UNKNOWN)
        out.state = getattr(M.DroneStatus, f"STATE_{status.state}")
        flags = 0
        for on, flag in ((status.connected, "CONNECTED"), (status.armed, "ARMED"),
                         (status.airborne, "AIRBORNE"), (status.ready, "READY_FOR_COMMANDS")):
            flags |= getattr(M.DroneStatus, f"STATUS_{flag}") if on else 0
        out.status_flags = flags
        out.battery_voltage_v = float(status.battery_voltage_v)
        out.battery_remaining_pct = status.battery_pct
        out.odom_age_ms = 0.0
        return out

    def _publish_status(self, force: bool = False) -> None:
        status = self.server.status()
        if force or status != self._last_status:
            self._last_status = status
            self._status_pub.publish(self._status_msg(status))
            odom = M.FullState(child_frame_id=self.drone, valid_mask=M.FullState.VALID_POSITION)
            odom.header.frame_id = "map"
            odom.header.stamp = self.get_clock().now().to_msg()
            odom.pose.position.x, odom.pose.position.y, odom.pose.position.z = status.position
            odom.pose.orientation.w = 1.0
            self._odom_pub.publish(odom)

    def destroy_node(self) -> None:
        if getattr(self, "opened", None) is not None:
            self.opened.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run(DroneNode, NODE_NAME, args, threads=4)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

