"""The suite's shared vocabulary: stage verdicts, run statuses and exit codes.

Every module that reports or tests a verdict names it here, so a word means one thing everywhere
(records, JSON, the CLI, the ROS nodes, the sweeps). The text enums are ``str`` subclasses whose
value is what records carry: ``AuditVerdict.PASS == "PASS"``, ``f"{AuditVerdict.PASS}"`` is
``PASS`` and ``json.dumps`` writes ``"PASS"``, so a record read back from JSON compares equal to
the member.
"""

from __future__ import annotations

from enum import Enum, IntEnum


class Word(str, Enum):
    """A text enum whose members print and format as their value (like 3.11's ``StrEnum``)."""

    __str__ = str.__str__
    __format__ = str.__format__


class AuditVerdict(Word):
    """An audit's verdict (docs/audit-reduction.md): ``INCOMPLETE`` means a budget ran out."""

    PASS = "PASS"
    FAIL = "FAIL"
    INCOMPLETE = "INCOMPLETE"


class Realizability(Word):
    """A synthesis verdict: ``INCOMPLETE`` means a budget ran out before one was reached."""

    REALIZABLE = "REALIZABLE"
    UNREALIZABLE = "UNREALIZABLE"
    INCOMPLETE = "INCOMPLETE"


class Separation(Word):
    """A well-separation diagnosis (docs/well-separation.md)."""

    WELL_SEPARATED = "WELL_SEPARATED"
    NON_WELL_SEPARATED = "NON_WELL_SEPARATED"
    ANALYSIS_INCOMPLETE = "ANALYSIS_INCOMPLETE"


class StageStatus(Word):
    """The status of a stage without a verdict of its own, and of a sweep trial's row."""

    OK = "OK"
    #: the stage could not do its work on this input (e.g. a strategy that cannot be realized)
    FAILED = "FAILED"
    #: an exception ended the trial (the sweep goes on)
    ERROR = "ERROR"
    #: an earlier stage stopped the chain
    SKIPPED = "skipped"


class PropertyValue(Word):
    """A CTL-BDI property's verdict in the monitor: ``out_of_model`` means the robot did
    something the mission model does not admit."""

    TRUE = "true"
    FALSE = "false"
    INCONCLUSIVE = "inconclusive"
    OUT_OF_MODEL = "out_of_model"

#: SM outcomes that mean the mission failed: never a request's success outcome, and a run that ends
#: in one has failed (the reference pipeline's request module counts the same four)
FAILURE_SM_OUTCOMES = frozenset({"failed", "failure", "aborted", "canceled"})


def success_outcome(outcomes) -> str | None:
    """The success outcome among a request's SM ``outcomes``: the first that is not a failure
    outcome (None: the mission has none, its behavior never reaches its goal by an outcome)."""
    return next((outcome for outcome in outcomes if outcome not in FAILURE_SM_OUTCOMES), None)


class ExitCode(IntEnum):
    """Exit codes of every command and node of the suite."""

    #: success: realizable, audit passed, goal reached, every property holds
    OK = 0
    #: a negative verdict: unrealizable, audit failure, property false, goal not reached
    NEGATIVE = 1
    #: bad input: one line on stderr naming the file, key or position, no traceback
    BAD_INPUT = 2
    #: no verdict: a budget ran out first (also a run stopped by its step limit)
    INCOMPLETE = 3
    #: the supervisor node's run (``exit_when_done``) ended in one of the mission's designed
    #: outcomes that is not its goal (``failed``, ``aborted``, ...; also an outcome the
    #: assumptions exclude)
    FAILURE_OUTCOME = 4
    #: the supervisor node did not run the supervisor: its audit did not pass (or the hand-over
    #: did not match what was audited)
    AUDIT_REFUSED = 5
    #: the engine broke: FlexBE onboard reported an error, died or fell silent, the behavior
    #: ended without an outcome of the mission (an exception), an adapter broke
    ENGINE_ERROR = 6
    #: the run was stopped before its end (the behavior was preempted)
    STOPPED = 7
    #: stopped by SIGINT (128 + 2)
    INTERRUPTED = 130
    #: standard output was a pipe whose reader went away (128 + SIGPIPE): the output was cut
    #: short, quietly (``| head``)
    BROKEN_PIPE = 141
    #: stopped by SIGTERM (128 + 15)
    TERMINATED = 143


#: what an exit code of the suite's nodes means, for the launch's message when one ends
EXIT_MEANINGS = {
    ExitCode.OK: "done",
    ExitCode.NEGATIVE: "a negative verdict: the mission is unrealizable",
    ExitCode.BAD_INPUT: "bad input, see its error above",
    ExitCode.INCOMPLETE: "a budget ran out: synthesis or audit budget, or the run's step limit",
    ExitCode.FAILURE_OUTCOME: "the run ended in an outcome of the mission that is not its goal",
    ExitCode.AUDIT_REFUSED: "the supervisor was refused: its audit did not pass",
    ExitCode.ENGINE_ERROR: "engine error: the behavior or its engine broke, see the log above",
    ExitCode.STOPPED: "the run was stopped before its end",
}


__all__ = ["EXIT_MEANINGS", "FAILURE_SM_OUTCOMES", "AuditVerdict", "ExitCode", "PropertyValue",
           "Realizability", "Separation", "StageStatus", "Word", "success_outcome"]
