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


class ExitCode(IntEnum):
    """Exit codes of every command and node of the suite."""

    #: success: realizable, audit passed, goal reached, every property holds
    OK = 0
    #: a negative verdict: unrealizable, audit failure, property false, goal not reached
    NEGATIVE = 1
    #: bad input: one line on stderr naming the file, key or position, no traceback
    BAD_INPUT = 2
    #: no verdict: a budget ran out first
    INCOMPLETE = 3
    #: stopped by SIGINT (128 + 2)
    INTERRUPTED = 130
    #: standard output was a pipe whose reader went away (128 + SIGPIPE): the output was cut
    #: short, quietly (``| head``)
    BROKEN_PIPE = 141
    #: stopped by SIGTERM (128 + 15)
    TERMINATED = 143


__all__ = ["FAILURE_SM_OUTCOMES", "AuditVerdict", "ExitCode", "PropertyValue", "Realizability",
           "Separation", "StageStatus", "Word"]
