"""Error codes of the reference's ``flexbe_synthesis_msgs/SynthesisErrorCode``, and the answer
to one request.

The numbers are the reference's (``SynthesisErrorCode.msg`` of CNURobotics/flexbe_synthesis
0.0.1); ``AUDIT_INCOMPLETE`` (-44) is the code its later strategy auditor reports for an audit
that ran out of time. Which outcome of the pipeline gives which code is
:func:`bdi_supervisor.service.answer.answer_run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from bdi_supervisor.service.instantiations import StateInstantiation


class Code(IntEnum):
    """The error codes a request can get (a subset of the reference's)."""

    UNKNOWN = 0
    SUCCESS = 1
    #: last resort: the worker ended without an answer
    FAILURE = -9999
    INVALID_REQUEST = -2
    PREEMPTED = -9
    #: the system's seed specification cannot be read or does not fit its catalog
    SPEC_COMPILATION_FAILED = -10
    #: the synthesis stopped (time or node budget), or the spec is not well-separated and the
    #: request asked to fail then
    SYNTHESIS_FAILED = -20
    SPEC_UNSYNTHESIZABLE = -21
    #: the audited supervisor cannot be a FlexBE state machine
    SM_GENERATION_FAILED = -30
    NO_SYSTEM_CONFIG = -32
    SYSTEM_CONFIG_NOT_FOUND = -33
    CONFIG_FILE_INVALID = -34
    #: the strategy failed its audit (the reference's auditor reports confirmed defects so)
    AUTOMATON_INVALID = -37
    AUDIT_INCOMPLETE = -44


class Refusal(Exception):
    """A request that is answered with ``code`` before (or instead of) running the pipeline."""

    def __init__(self, code: Code, *messages: str) -> None:
        super().__init__("; ".join(messages))
        self.code = code
        self.messages = list(messages)


@dataclass
class Answer:
    """The result of one request: its code, the behavior (empty unless ``SUCCESS``) and
    human-readable messages (why it failed; what the audit, the reduction and the
    well-separation analysis found)."""

    code: Code
    states: list[StateInstantiation] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"code": int(self.code), "states": [s.to_dict() for s in self.states],
                "messages": list(self.messages)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Answer:
        return cls(Code(int(data["code"])),
                   [StateInstantiation.from_dict(s) for s in data.get("states", [])],
                   [str(m) for m in data.get("messages", [])])
