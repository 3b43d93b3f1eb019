"""The live CTL-BDI monitor core: follow a run through the mission model, verdict per message.

Model-based runtime meaning (docs/ctl-bdi.md, "Live monitor"): every property is checked once at
launch; the true-sets are turned into a table that gives, per automaton state of the mission model,
the consistent worlds in which each property holds (:meth:`ModelChecker.truth_table`). Per message
the monitor maps the record to a direction (machine state, outcome, next state), advances the
automaton state (one list lookup) and reads the verdicts off the table:

- ``true``: the property holds at the current node in every world consistent with the outcomes
  seen (the actual world is one of them, as long as the model is right);
- ``false``: in none; ``inconclusive``: in some (the outcomes have not told the worlds apart), or
  the monitor lost track (a gap in the sequence numbers);
- ``out_of_model``: the robot did something the model does not admit (an outcome the strategy's
  assumptions exclude, one no consistent world admits, a state the supervisor does not have).
  It sticks until the next run starts.

Inputs: BDI-state records (schema ``bdi_supervisor/bdi_state`` v1) by :meth:`Monitor.feed`,
in-process (the executor's callback) or from JSON Lines (:func:`replay`); FlexBE telemetry by
:meth:`Monitor.feed_flexbe` (``flexbe/debug/current_state`` text ``"<path> > <outcome>"``,
``flexbe/mirror/outcome`` as ``{"state": path, "outcome": index or label}``). Malformed,
duplicate, out-of-order and unknown-state messages are counted (:meth:`Monitor.counters`) and
never raise. Memory is constant in the number of messages: counters, the current position, the
last sequence number of the current run and a bounded log of verdict changes.

:func:`create_monitor` is the factory the ROS monitor node calls (``bdi_monitor.ros.port``).
"""

from __future__ import annotations

import json
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bdi_monitor.mission_model import LaunchResult, MissionModel, ModelChecker
from bdi_monitor.verdict import Verdict
from bdi_supervisor.common import PropertyValue
from bdi_supervisor.limits import MAX_DATA_DEPTH, MAX_RECORD_BYTES, excerpt
from bdi_supervisor.runtime.bdi_state import EVENTS
from bdi_supervisor.yamlsource import json_depth

SCHEMA = "bdi_supervisor/bdi_state"
VERSION = 1
FLEXBE_CURRENT_STATE = "flexbe/debug/current_state"
FLEXBE_OUTCOME = "flexbe/mirror/outcome"
#: verdict changes kept for reports (older ones are dropped: memory stays bounded)
CHANGE_LOG = 256


@dataclass(frozen=True)
class Change:
    """A property's verdict changed at the message with ``seq`` (``index``: n-th accepted)."""

    property: str
    old: str | None
    new: str
    seq: int | None
    index: int
    event: str
    reason: str


class Monitor:
    """Follows one supervisor's runs through its mission model (see the module docstring)."""

    def __init__(self, model: MissionModel, checker: ModelChecker, launch: list[LaunchResult],
                 tables: list[list[frozenset[int]]]) -> None:
        self.model = model
        self.checker = checker
        #: called with every verdict change (e.g. to print it live)
        self.on_change: Callable[[Change], None] | None = None
        self.launch = launch
        self.names = [p.name for p in model.properties]
        self.tables = tables
        # precomputed verdict value per automaton state and property
        self.values: list[tuple[str, ...]] = []
        for q, (_, consistent) in enumerate(model.tracker):
            row = []
            for table in tables:
                holding = table[q]
                row.append(PropertyValue.OUT_OF_MODEL if not consistent else
                           PropertyValue.TRUE if holding == consistent else
                           PropertyValue.FALSE if not holding else PropertyValue.INCONCLUSIVE)
            self.values.append(tuple(row))
        self._machine_states = {s.name: s for s in model.machine.states}
        self.counts: Counter[str] = Counter()
        self.changes: deque[Change] = deque(maxlen=CHANGE_LOG)
        self.run_id: str | None = None
        self.last_seq: int | None = None
        self.accepted = 0
        self.q = model.initial
        self.lost = False  # a gap: position unknown until the next start
        self.reason = "initial"
        self.current: tuple[str, ...] = self.values[self.q]
        self.flipped_at: list[int | None] = [None] * len(self.names)
        self.last_latency_ns: int | None = None
        self._verdict_key: tuple | None = None
        self._verdict_list: list[Verdict] = []
        #: what the verdicts depend on, as of the last record that changed it, and its latency
        self._moved_key: tuple | None = None
        self._moved_latency: int | None = None

    # -- public API ---------------------------------------------------------------------------
    def launch_verdicts(self) -> list[Verdict]:
        """Model-checking results in the actual world, computed at construction."""
        result = []
        for r in self.launch:
            evidence = {"formula": r.property.text, "holds_in": ", ".join(r.holds_in) or "-",
                        "seconds": f"{r.seconds:.4f}"}
            message = "YES"
            if r.certificate is not None:
                message = (f"NO: counterexample with {len(r.certificate.obligations)} "
                           "obligations")
                evidence["counterexample"] = r.certificate.render(self.checker.actual)
            value = PropertyValue.TRUE if r.holds else PropertyValue.FALSE
            result.append(Verdict(r.property.name, value, message, evidence))
        return result

    def feed(self, record: Any, stamp_ns: int | None = None) -> list[Verdict]:
        """Advance on one BDI-state record; return every property's verdict (never raises)."""
        self.advance(record, stamp_ns)
        return self.verdicts()

    def advance(self, record: Any, stamp_ns: int | None = None) -> tuple[str, ...]:
        """Advance on one BDI-state record (never raises); every property's verdict value, in
        :attr:`names` order. The :class:`Verdict` objects are built when :meth:`verdicts` asks
        (the ROS node asks when it publishes), as :meth:`feed` would have built them here."""
        t0 = time.perf_counter_ns()
        self.counts["received"] += 1
        try:
            self._record(record)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError,
                RecursionError) as error:
            self._malformed(f"bad_field:{type(error).__name__}")
        self._moved(time.perf_counter_ns() - t0)
        return self.current

    def feed_line(self, line: str | bytes | None, stamp_ns: int | None = None) -> list[Verdict]:
        """One JSON Lines line (a record as text or UTF-8 bytes; None: a line too long to read).

        Never raises: a line that :func:`parse_line` refuses is counted as malformed.
        """
        record, reason = parse_line(line)
        if reason is not None:
            self.counts["received"] += 1
            self._malformed(reason)
            return self.verdicts()
        return self.feed(record, stamp_ns)

    def feed_flexbe(self, topic: str, data: Any, stamp_ns: int | None = None) -> list[Verdict]:
        """One FlexBE telemetry message as plain data (see the module docstring)."""
        t0 = time.perf_counter_ns()
        self.counts["received"] += 1
        self.counts["flexbe"] += 1
        try:
            self._flexbe(topic, data)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            self._malformed("bad_flexbe")
        self._moved(time.perf_counter_ns() - t0)
        return self.verdicts()

    def verdicts(self) -> list[Verdict]:
        """Every property's current verdict with its evidence. The verdicts are built again only
        when a value, the position or the reason changed (most records change none): their
        ``latency_ns`` is that of the record that last changed them."""
        key = self._moved_key or (self.q, self.reason, self.lost, self.current)
        if key != self._verdict_key:
            position, reason = self._position_name(), self.reason
            latency, made = self._moved_latency, Verdict.made
            messages = {value: self._message(value) for value in set(self.current)}
            self._verdict_list = [
                made(name, value, messages[value],
                     {"position": position, "since_seq": _text(since), "reason": reason},
                     latency)
                for name, value, since in zip(self.names, self.current, self.flipped_at)]
            self._verdict_key = key
        return list(self._verdict_list)

    def state(self) -> dict[str, Any]:
        """Where the monitor is: position, worlds consistent / believed / desired / intended."""
        return {**self.model.describe(self.q), "lost": self.lost, "reason": self.reason,
                "run_id": self.run_id, "last_seq": self.last_seq}

    def counters(self) -> dict[str, int]:
        return dict(self.counts)

    def value(self, name: str) -> str:
        return self.current[self.names.index(name)]

    # -- records ------------------------------------------------------------------------------
    def _moved(self, latency_ns: int) -> None:
        """Note the record's latency, and it as the verdicts' latency if it changed what they
        depend on (values, position, reason, lost track)."""
        self.last_latency_ns = latency_ns
        key = (self.q, self.reason, self.lost, self.current)
        if key != self._moved_key:
            self._moved_key, self._moved_latency = key, latency_ns

    def _record(self, record: Any) -> None:
        if not isinstance(record, dict):
            return self._malformed("not_object")
        if record.get("schema") != SCHEMA or record.get("version") != VERSION:
            return self._malformed("wrong_schema")
        run_id, seq, event = record.get("run_id"), record.get("seq"), record.get("event")
        if not isinstance(run_id, str) or not _is_count(seq):
            return self._malformed("bad_header")
        if event not in EVENTS:
            return self._malformed("bad_event")
        if run_id != self.run_id:
            self.run_id, self.last_seq = run_id, None
            self.counts["runs"] += 1
            if event != "start" or seq != 0:
                self._lose(f"joined run {_show(run_id)} at seq {seq}")
        elif self.last_seq is not None and seq <= self.last_seq:
            self.counts["duplicates" if seq == self.last_seq else "out_of_order"] += 1
            return None
        if self.last_seq is not None and seq > self.last_seq + 1:
            self.counts["gaps"] += seq - self.last_seq - 1
            self._lose(f"{seq - self.last_seq - 1} records missing before seq {seq}")
        self.last_seq = seq
        self.accepted += 1
        self.counts["accepted"] += 1
        if event == "start":
            return self._start(record, seq)
        if self.lost:
            return None
        if event == "activate":
            return self._activate(record, seq)
        if event == "outcome":
            return self._outcome(record, seq)
        return None  # status, end: nothing moves

    def _start(self, record: dict, seq: int) -> None:
        self.lost = False
        state = (record.get("strategy_state") or {}).get("machine_state")
        self._move(self.model.initial, seq, "start", "run started")
        if state != self.model.machine.initial:
            self._out_of_model(seq, "start", f"run starts in {_show(state)}, the model in "
                                              f"{self.model.machine.initial!r}",
                               unknown=state not in self._machine_states)

    def _activate(self, record: dict, seq: int) -> None:
        state = (record.get("strategy_state") or {}).get("machine_state")
        capability = (record.get("intention") or {}).get("capability")
        expected = self._here()
        if expected is None or state != expected.name or capability != expected.capability:
            self._out_of_model(seq, "activate", f"activates {_show(capability)} in "
                               f"{_show(state)}, the "
                               f"model is at {self._position_name()}",
                               unknown=state not in self._machine_states)

    def _outcome(self, record: dict, seq: int) -> None:
        last = record.get("last_outcome")
        if not isinstance(last, dict):
            return self._malformed("no_last_outcome")
        self._observe(last.get("state"), last.get("outcome"), last.get("next"), seq, "outcome")

    # -- FlexBE -------------------------------------------------------------------------------
    def _flexbe(self, topic: str, data: Any) -> None:
        if isinstance(data, dict) and "data" in data and topic == FLEXBE_CURRENT_STATE:
            data = data["data"]
        if topic == FLEXBE_CURRENT_STATE:
            if not isinstance(data, str):
                return self._malformed("bad_flexbe")
            path, _, flexbe_outcome = data.partition(">")
            state = path.strip().rstrip("/").rsplit("/", 1)[-1]
            flexbe_outcome = flexbe_outcome.strip()
        elif topic == FLEXBE_OUTCOME:
            if not isinstance(data, dict):
                return self._malformed("bad_flexbe")
            state = str(data["state"]).rstrip("/").rsplit("/", 1)[-1]
            flexbe_outcome = data["outcome"]
        else:
            return self._malformed("unknown_topic")
        self.accepted += 1
        self.counts["accepted"] += 1
        if self.lost:
            return None
        machine_state = self._machine_states.get(state)
        if machine_state is None:
            return self._out_of_model(None, "flexbe", f"unknown state {_show(state)}",
                                      unknown=True)
        if not flexbe_outcome and flexbe_outcome != 0:  # entering a state
            here = self._here()
            if here is None or here.name != state:
                self._out_of_model(None, "flexbe", f"entered {_show(state)}, the model is at "
                                                   f"{self._position_name()}")
            return None
        labels = list(machine_state.outcomes)
        if isinstance(flexbe_outcome, int) and not isinstance(flexbe_outcome, bool):
            flexbe_outcome = labels[flexbe_outcome]
        outcome = machine_state.outcomes.get(flexbe_outcome)
        if outcome is None:
            return self._out_of_model(None, "flexbe", f"{_show(state)} has no outcome "
                                                      f"{_show(flexbe_outcome)}")
        target = machine_state.transitions[outcome].target
        self._observe(state, outcome, target, None, "flexbe")

    # -- moving -------------------------------------------------------------------------------
    def _observe(self, state: Any, outcome: Any, target: Any, seq: int | None,
                 event: str) -> None:
        here = self._here()
        if state not in self._machine_states:
            return self._out_of_model(seq, event, f"unknown state {_show(state)}", unknown=True)
        if here is None or state != here.name:
            return self._out_of_model(seq, event, f"outcome in {_show(state)}, the model is at "
                                                  f"{self._position_name()}")
        direction = self.model.steps.get((state, outcome, target))
        if direction is None:
            why = ("excluded by the strategy's assumptions"
                   if (state, outcome) in self.model.excluded else "not a transition")
            return self._out_of_model(seq, event, f"{here.capability} {_show(outcome)} -> "
                                                  f"{_show(target)} at {state}: {why}")
        q = self.model.advance(self.q, direction)
        if q == self.model.sink:
            return self._out_of_model(seq, event, f"{here.capability} {_show(outcome)} is admitted "
                                                  "by no world consistent with the run so far")
        self._move(q, seq, event, f"{here.capability} {outcome}")

    def _move(self, q: int, seq: int | None, event: str, reason: str) -> None:
        self.q = q
        self.reason = reason
        self._set(self.values[q], seq, event, reason)

    def _set(self, values: tuple[str, ...], seq: int | None, event: str, reason: str) -> None:
        if values == self.current:
            return
        for i, (old, new) in enumerate(zip(self.current, values)):
            if old != new:
                self.flipped_at[i] = seq
                change = Change(self.names[i], old, new, seq, self.accepted, event, reason)
                self.changes.append(change)
                if self.on_change is not None:
                    self.on_change(change)
        self.current = values

    def _out_of_model(self, seq: int | None, event: str, reason: str,
                      unknown: bool = False) -> None:
        self.counts["unknown_state" if unknown else "out_of_model"] += 1
        self.q = self.model.sink
        self.reason = reason
        self._set((PropertyValue.OUT_OF_MODEL,) * len(self.names), seq, event, reason)

    def _lose(self, reason: str) -> None:
        self.lost = True
        self.reason = f"lost track: {reason}"
        self._set((PropertyValue.INCONCLUSIVE,) * len(self.names), self.last_seq, "gap",
                  self.reason)

    def _malformed(self, reason: str) -> None:
        self.counts["malformed"] += 1
        self.counts[f"malformed.{reason}"] += 1

    def _here(self):
        position, _ = self.model.tracker[self.q]
        if position is None or self.lost:
            return None
        name = self.model.positions[position].machine_state
        return None if name is None else self._machine_states[name]

    def _position_name(self) -> str:
        position, _ = self.model.tracker[self.q]
        return "-" if position is None else self.model.positions[position].name

    def _message(self, value: str) -> str:
        if value == PropertyValue.INCONCLUSIVE and not self.lost:
            return "worlds consistent so far disagree"
        return self.reason if value in (PropertyValue.OUT_OF_MODEL,
                                        PropertyValue.INCONCLUSIVE) else value


def parse_line(line: str | bytes | None) -> tuple[Any, str | None]:
    """``(record, None)``, or ``(None, reason)`` for a line that is not UTF-8 JSON
    (``not_json``), longer than ``MAX_RECORD_BYTES`` or unread (``too_long``), or nested deeper
    than ``MAX_DATA_DEPTH`` (``too_deep``)."""
    if line is None or len(line) > MAX_RECORD_BYTES:
        return None, "too_long"
    try:
        record = json.loads(line)
    except RecursionError:
        return None, "too_deep"
    except (ValueError, TypeError):  # UnicodeDecodeError is a ValueError
        return None, "not_json"
    if json_depth(record) > MAX_DATA_DEPTH:
        return None, "too_deep"
    return record, None


def _show(value: Any) -> str:
    """A value from a message, quoted short (messages can carry anything)."""
    if isinstance(value, str):
        return excerpt(value)
    if value is None or isinstance(value, bool) or (isinstance(value, (int, float))
                                                     and abs(value) < 1e18):
        return repr(value)
    return f"a {type(value).__name__}"


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _text(value: Any) -> str:
    return "-" if value is None else str(value)


# ---------------------------------------------------------------------------------------------
# construction


def build_monitor(model: MissionModel,
                  progress: Callable[[str], None] | None = None) -> Monitor:
    """Check every property of ``model`` at launch and precompute its truth table."""
    checker = ModelChecker(model)
    launch, tables = [], []
    for prop in model.properties:
        if progress is not None:
            progress(prop.name)
        launch.append(checker.launch(prop))
        tables.append(checker.truth_table(prop))
    return Monitor(model, checker, launch, tables)


def monitor_for_mission(mission, prepared) -> Monitor:
    """The monitor of ``mission`` with its supervisor ``prepared`` (a
    :class:`bdi_supervisor.pipeline.Prepared`)."""
    from bdi_monitor.mission_model import mission_model
    from bdi_supervisor.errors import InputError

    if prepared.machine is None:  # refused by its audit: there is no supervisor to model
        raise InputError(f"the supervisor failed its audit ({prepared.audit}); nothing to "
                         "monitor", file=prepared.source or None,
                         expected="a supervisor whose audit passed")
    return build_monitor(mission_model(mission, prepared.machine, prepared.reduced))


def create_monitor(mission: str | Path, from_dir: str | Path | None = None) -> Monitor:
    """The factory of ``bdi_monitor.ros.port``: load ``mission``, obtain its supervisor
    (synthesized, or from a saved run folder), build and check its model."""
    from bdi_supervisor.mission import load_mission
    from bdi_supervisor.pipeline import load_folder, prepare

    loaded = load_mission(str(mission))
    prepared = (load_folder(Path(from_dir), loaded) if from_dir is not None
                else prepare(loaded))
    return monitor_for_mission(loaded, prepared)


def replay(monitor: Monitor, lines: Iterable[str]) -> list[Change]:
    """Feed JSON Lines text to ``monitor``; every verdict change, in order."""
    changes: list[Change] = []
    previous, monitor.on_change = monitor.on_change, changes.append
    try:
        for line in lines:
            if line.strip():
                monitor.feed_line(line)
    finally:
        monitor.on_change = previous
    return changes
