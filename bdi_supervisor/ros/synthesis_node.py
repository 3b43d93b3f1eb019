"""``synthesis_node``: runs the pipeline at start-up and hands over only audited supervisors.

Parameters:

- ``mission`` (string, required): the mission file (catalog, request, synthesis options);
- ``output_dir`` (string): where each attempt's run folder goes (``<output_dir>/attempt_<n>``);
  created if missing; empty: a new folder ``bdi_supervisor/<mission>_<date>-<time>_<pid>`` under
  the ROS log folder (``ROS_LOG_DIR``, else ``$ROS_HOME/log``, else ``~/.ros/log``, as rcl
  decides it), kept like the other ROS logs. One that cannot be created or written ends the
  node at start-up (exit 2);
- ``exit_when_done`` (bool, default false): when the start-up pipeline hands nothing over, end
  the process with the verdict's exit code
  (:func:`~bdi_supervisor.handover.no_handover_exit_code`: 1 unrealizable, 3 a budget ran out,
  5 the audit failed, 2 an error), after logging it and, for an unrealizable mission, the
  ``bdi-supervisor explain`` command that says why. ``mission.launch.py`` sets it with its own
  ``exit_when_done``, so such a launch ends instead of waiting for a hand-over that never comes.

At start-up (and on each ``bdi_supervisor/resynthesize`` call, std_srvs/Trigger) it runs
spec → well-separation → synthesis → audit → reduce → audit → realize into a run folder, then
publishes:

- ``bdi_supervisor/synthesis_record`` (std_msgs/String, latched): wire envelope
  ``bdi_supervisor/synthesis_record`` v1 whose body is the pipeline's summary record plus
  ``attempt``, ``folder`` and ``handed_over``;
- ``/diagnostics``: ``bdi_synthesis: pipeline`` (OK on audit PASS, ERROR otherwise, with the
  defects' one-line descriptions as values);
- ``bdi_supervisor/supervisor`` (std_msgs/String, latched), **only on audit PASS**: the hand-over
  ``bdi_supervisor/supervisor_handover`` v1 ``{mission, folder, audit, reduced_sha256,
  attempt}`` the supervisor node waits for. A failed or incomplete audit hands nothing over.

A mission that cannot be read is a bad parameter (exit 2); a pipeline that finds the mission
unrealizable or its strategy defective is a result, published as above, and the node stays up to
serve re-synthesis (unless ``exit_when_done``).
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.logging import get_logging_directory
from std_msgs.msg import String
from std_srvs.srv import Trigger

from bdi_supervisor import handover
from bdi_supervisor.common import AuditVerdict, Realizability, StageStatus
from bdi_supervisor.errors import InputError
from bdi_supervisor.ros import diagnostics, launch_plan, params, qos, topics, wire
from bdi_supervisor.ros.node_main import SuiteNode, interruptible, run
from bdi_supervisor.ros.status import Level, Status

NODE_NAME = "bdi_synthesis"


def run_pipeline(mission_file: Path, folder: Path) -> dict[str, Any]:
    """Run the mission's pipeline into the run folder ``folder``; return its summary record.

    Keys read by this node: ``audit`` (``PASS`` only when the supervisor may be deployed: raw
    and reduced audits passed; else ``FAIL`` / ``INCOMPLETE``, or ``None`` when nothing was
    synthesized), ``status`` and ``defects`` (one line each). Chains the stages' own functions
    (spec → synthesis → audit stages → realize) as ``bdi-supervisor run`` does.
    """
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline.audit_reduce import audit_mission
    from bdi_supervisor.realize.stage import behavior_name, mission_outcomes, realize
    from bdi_supervisor.specgen.generate import generate_spec
    from bdi_supervisor.synthesis import strategy as strategy_io
    from bdi_supervisor.synthesis.synthesize import synthesize

    mission = load_mission(mission_file)
    spec = generate_spec(mission)
    result = synthesize(spec)
    folder.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"status": result.status, "synthesis": result.to_dict(),
                              "audit": None, "defects": []}
    if result.strategy is None:
        return record
    strategy_io.save(result.strategy, folder / "strategy.json")
    stages = audit_mission(result.strategy, mission, spec, out_dir=folder)
    audits = [a for a in (stages.raw_audit, stages.reduced_audit) if a is not None]
    record["audit_stages"] = stages.summary()
    record["defects"] = [f"{d.kind}: {d.message}" for a in audits for d in a.defects]
    failed = [a.verdict for a in audits if a.verdict != AuditVerdict.PASS]
    record["audit"] = (AuditVerdict.PASS if stages.deployable
                       else failed[0] if failed else AuditVerdict.FAIL)
    if stages.deployable:
        try:
            realized = realize(stages.reduced, mission.catalog,
                               behavior=behavior_name(mission.name),
                               out_dir=folder / "behavior", sm_outcomes=mission_outcomes(mission),
                               source=str(folder / "reduced.json"))
            record["behavior"] = realized.record()
        except InputError as error:  # the embedded runner does not need a FlexBE behavior
            record["behavior"] = None
            record["realize_error"] = error.describe()
    return record


def explain_command(record: dict[str, Any]) -> str:
    """The command that explains the unrealizable mission of a summary ``record``, its
    explanation saved beside the attempt's other files."""
    folder = Path(str(record.get("folder") or "."))
    return (f"bdi-supervisor explain {shlex.quote(str(record.get('mission_file')))} "
            f"-o {shlex.quote(str(folder / 'explanation.json'))}")


def verdict_line(record: dict[str, Any], code: int) -> str:
    """What the node logs when it ends with ``exit_when_done`` after handing nothing over."""
    mission = str(record.get("mission"))
    line = f"{mission}: {pipeline_status(record, mission).message}; exit {code}"
    if record.get("status") == Realizability.UNREALIZABLE:
        line += f"; why: {explain_command(record)}"
    return line


def default_output_dir(mission: str, when: float | None = None) -> Path:
    """``<ROS log folder>/bdi_supervisor/<mission>_<date>-<time>_<pid>``: one folder per node
    start, beside the ROS logs of the same launch (``mission.launch.py`` names it itself and
    passes it as ``output_dir``: :func:`~bdi_supervisor.ros.launch_plan.run_folder`)."""
    return launch_plan.run_folder(Path(get_logging_directory()), mission, when)


def pipeline_status(record: dict[str, Any], hardware_id: str) -> Status:
    """``bdi_synthesis: pipeline`` from a summary record."""
    audit = record.get("audit")
    defects = [str(d) for d in record.get("defects") or []]
    values = {"audit": str(audit), "status": str(record.get("status")),
              "attempt": str(record.get("attempt")), "folder": str(record.get("folder")),
              "handed_over": str(record.get("handed_over")).lower(),
              "seconds": f"{record.get('seconds', 0):.3f}", "defects": str(len(defects))}
    values.update({f"defect.{i}": text for i, text in enumerate(defects)})
    if record.get("error"):
        values["error"] = str(record["error"])
    if audit == AuditVerdict.PASS:
        return Status(Level.OK, f"{NODE_NAME}: pipeline", "audit PASS; supervisor handed over",
                      hardware_id, values)
    why = record.get("error") or (f"audit {audit}" if audit else str(record.get("status")))
    return Status(Level.ERROR, f"{NODE_NAME}: pipeline", f"{why}; no supervisor handed over",
                  hardware_id, values)


class SynthesisNode(SuiteNode):
    """Synthesizes the mission's supervisor; publishes records; hands over audited ones."""

    def __init__(self, context=None, parameter_overrides=None) -> None:
        super().__init__(NODE_NAME, context=context, parameter_overrides=parameter_overrides)
        from bdi_supervisor.mission import load_mission

        self.mission_file = params.mission_file("mission", params.declare(
            self, "mission", "", "mission file"))
        output = params.declare(self, "output_dir", "", "folder for the run folders")
        self.exit_when_done = params.declare(self, "exit_when_done", False,
                                             "end the process when nothing is handed over")
        self.mission = load_mission(self.mission_file)  # bad mission: exit 2 before any work
        self.output_dir = params.writable_dir(
            "output_dir", output or str(default_output_dir(self.mission.name)))
        self.attempt = 0
        self.record: dict[str, Any] | None = None
        self.records = self.create_publisher(String, topics.SYNTHESIS_RECORD, qos.LATCHED)
        self.handover = self.create_publisher(String, topics.HANDOVER, qos.LATCHED)
        self.diagnostics = self.create_publisher(DiagnosticArray, diagnostics.DIAGNOSTICS_TOPIC,
                                                 qos.DIAGNOSTICS)
        self.service = self.create_service(Trigger, topics.RESYNTHESIZE, self._on_resynthesize)
        self.timer = self.create_timer(1.0, self.publish_status)
        record = self.synthesize()
        if self.exit_when_done and not record["handed_over"]:
            code = self.verdict(record)
            self.get_logger().error(verdict_line(record, code))
            self.finish(code)

    def synthesize(self) -> dict[str, Any]:
        """One pipeline attempt: run, publish the record, hand over on PASS."""
        self.attempt += 1
        folder = self.output_dir / f"attempt_{self.attempt}"
        started = time.monotonic()
        self.get_logger().info(f"synthesizing {self.mission.name} into {folder}")
        try:
            with interruptible():  # SIGINT/SIGTERM stop a long synthesis at once
                record = dict(run_pipeline(self.mission_file, folder))
        except InputError as error:
            record = {"audit": None, "status": StageStatus.ERROR, "error": error.describe()}
        except OSError as error:  # e.g. the output folder removed or the disk full since start-up
            record = {"audit": None, "status": StageStatus.ERROR,
                      "error": f"cannot write {error.filename or folder}: {error.strerror}"}
        record.update(mission=self.mission.name, mission_file=str(self.mission_file),
                      attempt=self.attempt, folder=str(folder),
                      seconds=time.monotonic() - started, handed_over=False)
        if record.get("audit") == AuditVerdict.PASS:
            body = handover.handover_body(self.mission_file, folder, self.attempt)
            stamp = self.get_clock().now().nanoseconds
            self.handover.publish(String(data=wire.encode(wire.HANDOVER, body,
                                                          self.attempt - 1, stamp)))
            record["handed_over"] = True
        self.record = record
        stamp = self.get_clock().now().nanoseconds
        self.records.publish(String(data=wire.encode(wire.SYNTHESIS_RECORD, record,
                                                     self.attempt - 1, stamp)))
        self.publish_status()
        log = self.get_logger().info if record["handed_over"] else self.get_logger().error
        log(pipeline_status(record, self.mission.name).message)
        return record

    def verdict(self, record: dict[str, Any]) -> int:
        """The exit code of an attempt that handed nothing over, left with its reason (and the
        explanation command of an unrealizable mission) in its folder's ``verdict.json``."""
        code = handover.no_handover_exit_code(record.get("status"), record.get("audit"))
        extra = {"explain": explain_command(record)} if (
            record.get("status") == Realizability.UNREALIZABLE) else {}
        try:
            handover.write_verdict(record["folder"], "synthesis", str(record.get("status")), code,
                                   pipeline_status(record, self.mission.name).message,
                                   mission=self.mission.name, audit=record.get("audit"), **extra)
        except (OSError, InputError) as error:
            self.get_logger().warning(f"verdict not written into {record['folder']}: {error}")
        return code

    def _on_resynthesize(self, request, response):
        record = self.synthesize()
        response.success = bool(record["handed_over"])
        response.message = pipeline_status(record, self.mission.name).message
        return response

    def publish_status(self) -> None:
        if self.record is None:
            return
        status = pipeline_status(self.record, self.mission.name)
        self.diagnostics.publish(diagnostics.to_array([status], self.get_clock().now().to_msg()))


def main(args: list[str] | None = None) -> int:
    return run(lambda context: SynthesisNode(context), NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
