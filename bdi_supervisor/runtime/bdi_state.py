"""The live BDI state record (docs/running.md): schema, JSON Lines writer, in-process callbacks.

The executor emits one record per event of a run. Consumers (the runtime monitor, the ROS
supervisor node, ``bdi-monitor replay``) read them from a JSON Lines file (one JSON object per
line) or receive them through a callback. Schema ``bdi_supervisor/bdi_state``, version 1:

``schema``, ``version``
    ``"bdi_supervisor/bdi_state"`` and ``1``. Consumers must check both; fields are only ever added
    within a version.
``run_id``, ``seq``, ``event``
    The run, a 0-based sequence number, and the event: ``start`` (before the first activation),
    ``activate`` (a capability was started), ``outcome`` (it ended and the transition is known),
    ``status`` (a report of the runner that moves nothing: FlexBE's ``BEStatus`` in
    ``flexbe_status``), ``end`` (the run is over; ``status`` says how).
``t_wall``, ``t_run``
    Unix time and seconds since the run started.
``mission``, ``seed``
    Mission name and the run's seed (``null`` when none).
``strategy_state``
    ``{"machine_state": "3_pick", "strategy_id": 3}`` — where the supervisor is (after an
    ``outcome`` event: the state it moved to); ``null`` once it has left through an SM outcome.
``intention``
    The committed activation: ``{"capability", "parameters", "attempt", "step", "deadline_s"}``
    (``attempt`` counts consecutive activations of the same machine state); ``null`` when idle.
``beliefs``
    ``{fact: {"value": bool|int|str, "set_by": {"capability", "outcome", "step"} | "initial"}}``:
    the facts the supervisor holds (catalog memory and variables, last outcomes), each with the
    outcome that set it.
``desires``
    ``[{"goal": text, "satisfied": bool | null}]``: the mission goals, evaluated on the beliefs
    (``null`` where a goal mentions something the supervisor does not track).
``last_outcome``
    ``{"capability", "state", "outcome", "flexbe_outcome", "reason", "forced", "layer", "detail",
    "step", "next"}`` or ``null``; ``next`` is the machine state or SM outcome it led to.
``status``, ``sm_outcome``
    ``running`` until the end, then one of :data:`FINAL_STATUSES`; ``sm_outcome`` is the container
    outcome the run ended in (e.g. ``finished``) or ``null``.
``ground_truth``
    Optional: the simulator's view (object locations, door states) for comparison with beliefs.
``runner``, ``flexbe_status``
    Optional: ``"flexbe"`` in the records of a run in FlexBE onboard (the supervisor node with
    ``runner:=flexbe``): the records of the executor that follows the behavior state by state
    (as an embedded run's), and between them one ``status`` record per FlexBE status report
    (``flexbe_status``: ``{"code", "name", "behavior_id", "args", "stamp_ns"}``; the ``end``
    record carries the last one). A run onboard never acknowledged has ``start``, ``status`` and
    ``end`` records only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

SCHEMA = "bdi_supervisor/bdi_state"
VERSION = 1
EVENTS = ("start", "activate", "outcome", "status", "end")
#: how a run can end (``deadlock`` and ``loop``: a replayed counter-run, where the environment
#: wins: the supervisor has no safe move, or a guarantee never holds again)
FINAL_STATUSES = ("goal_reached", "failed", "stopped", "assumption_violated", "adapter_error",
                  "step_limit", "deadlock", "loop")

Record = dict[str, Any]
Callback = Callable[[Record], None]


def make_record(*, run_id: str, seq: int, event: str, t_wall: float, t_run: float,
                mission: str, seed: int | None, strategy_state: dict | None,
                intention: dict | None, beliefs: dict, desires: list, last_outcome: dict | None,
                status: str = "running", sm_outcome: str | None = None,
                ground_truth: dict | None = None) -> Record:
    """A record with every field of the schema (see the module docstring)."""
    if event not in EVENTS:
        raise ValueError(f"unknown BDI event {event!r}")
    record: Record = {
        "schema": SCHEMA, "version": VERSION, "run_id": run_id, "seq": seq, "event": event,
        "t_wall": t_wall, "t_run": t_run, "mission": mission, "seed": seed,
        "strategy_state": strategy_state, "intention": intention, "beliefs": beliefs,
        "desires": desires, "last_outcome": last_outcome, "status": status,
        "sm_outcome": sm_outcome,
    }
    if ground_truth is not None:
        record["ground_truth"] = ground_truth
    return record


def validate(record: Record) -> None:
    """Raise ``ValueError`` unless ``record`` carries this schema and version."""
    if record.get("schema") != SCHEMA or record.get("version") != VERSION:
        raise ValueError(f"not a {SCHEMA} v{VERSION} record: "
                         f"{record.get('schema')!r} v{record.get('version')!r}")
    missing = [k for k in ("run_id", "seq", "event", "strategy_state", "intention", "beliefs",
                           "desires", "last_outcome", "status") if k not in record]
    if missing:
        raise ValueError(f"BDI record lacks {', '.join(missing)}")


@dataclass
class JsonLinesSink:
    """Appends records to a JSON Lines file, written per record so a monitor can tail it. A
    write that fails (a full device) is cut off again, so the log holds whole lines only, and
    reported as :func:`~bdi_supervisor.outpaths.write_error`."""

    path: Path
    _file: IO[str] | None = field(default=None, init=False, repr=False)

    def __call__(self, record: Record) -> None:
        from bdi_supervisor.outpaths import append_whole, open_output

        if self._file is None:
            self._file = open_output(self.path, "BDI log")
        append_whole(self._file.fileno(),
                     (json.dumps(record, sort_keys=True, default=str) + "\n").encode(), self.path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_records(path: str | Path) -> Iterator[Record]:
    """Records of a JSON Lines file, validated."""
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                validate(record)
                yield record
