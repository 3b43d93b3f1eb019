"""JSON carried in ``std_msgs/String`` on the suite's topics (plain Python).

The BDI-state topic carries the executor's BDI-state records themselves, one JSON object per
message, exactly as in its JSON Lines files (schema ``bdi_supervisor/bdi_state``, documented in
:mod:`bdi_supervisor.runtime.bdi_state`; :func:`encode_record` / :func:`decode_record`).

The synthesis node's messages are envelopes ``{"schema", "version", "seq", "stamp_ns", "body"}``:

- ``schema`` names the record kind (:data:`SYNTHESIS_RECORD`, :data:`HANDOVER`);
- ``version`` is the major version of that record's layout; a reader accepts its own major only
  (fields may be added within a major, never removed or retyped);
- ``seq`` counts the publisher's messages on the topic from 0, so readers see gaps, duplicates and
  reordering;
- ``stamp_ns`` is the publisher's clock (ROS time; sim time under ``use_sim_time``);
- ``body`` is the record itself, exactly the core's JSON record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BDI_STATE = "bdi_supervisor/bdi_state"
BDI_STATE_VERSION = 1
SYNTHESIS_RECORD = "bdi_supervisor/synthesis_record"
HANDOVER = "bdi_supervisor/supervisor_handover"

VERSIONS = {SYNTHESIS_RECORD: 1, HANDOVER: 1}


class WireError(ValueError):
    """A message that is not a valid envelope of the expected schema; ``reason`` is a short tag."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass(frozen=True)
class Envelope:
    """One decoded message."""

    schema: str
    version: int
    seq: int
    stamp_ns: int
    body: dict[str, Any]


def encode(schema: str, body: dict[str, Any], seq: int, stamp_ns: int) -> str:
    """Serialize ``body`` as an envelope of ``schema`` (compact JSON, keys in insertion order)."""
    if schema not in VERSIONS:
        raise ValueError(f"unknown schema {schema!r}")
    return json.dumps({"schema": schema, "version": VERSIONS[schema], "seq": int(seq),
                       "stamp_ns": int(stamp_ns), "body": body}, separators=(",", ":"))


def decode(text: str, schema: str) -> Envelope:
    """Parse one message of ``schema``; raise :class:`WireError` on anything else."""
    data = _message(text, schema, VERSIONS[schema])
    version = data["version"]
    seq, stamp, body = data.get("seq"), data.get("stamp_ns"), data.get("body")
    if not _is_count(seq) or not _is_count(stamp):
        raise WireError("bad_header", f"seq {seq!r}, stamp_ns {stamp!r}: expected integers >= 0")
    if not isinstance(body, dict):
        raise WireError("bad_body", f"body is {type(body).__name__}, expected an object")
    return Envelope(schema, version, seq, stamp, body)


def encode_record(record: dict[str, Any]) -> str:
    """A BDI-state record as message text (the same JSON as a line of its JSON Lines file)."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)


def decode_record(text: str) -> dict[str, Any]:
    """Parse one BDI-state record; check schema, version and the stream header (``run_id``,
    ``seq``); raise :class:`WireError` otherwise. The body is the monitor core's to judge."""
    data = _message(text, BDI_STATE, BDI_STATE_VERSION)
    if not isinstance(data.get("run_id"), str) or not _is_count(data.get("seq")):
        raise WireError("bad_header", f"run_id {data.get('run_id')!r}, seq {data.get('seq')!r}: "
                        "expected a string and an integer >= 0")
    return data


def loads(text: str) -> Any:
    """``json.loads(text)``, decoded by msgspec where it is installed (several times faster on
    a BDI-state record: docs/performance.md). msgspec accepts a subset of what ``json.loads``
    accepts and gives the same values on it (not NaN or Infinity, floats beyond the double
    range, lone surrogates); whatever it refuses is left to ``json.loads``, so the result, or
    the error, is ``json.loads``'s."""
    decode = fast_decoder()
    if decode is not None:
        try:
            return decode(text)
        except (ValueError, TypeError, RecursionError):  # msgspec.DecodeError is a ValueError
            pass
    return json.loads(text)


def fast_decoder() -> Callable[[str], Any] | None:
    """msgspec's JSON decoder (imported on first use), or None when msgspec is not installed."""
    global _FAST
    if _FAST is _UNSET:
        try:
            from msgspec.json import Decoder
        except ImportError:
            _FAST = None
        else:
            _FAST = Decoder().decode
    return _FAST


_UNSET = object()
_FAST: Any = _UNSET


def _message(text: str, schema: str, version: int) -> dict[str, Any]:
    """A JSON object of ``schema`` at ``version``; a :class:`WireError` naming what is wrong."""
    try:
        data = loads(text)
    except (TypeError, ValueError, RecursionError) as error:  # RecursionError: nested too deep
        raise WireError("not_json", str(error)[:200]) from None
    if not isinstance(data, dict):
        raise WireError("not_object", f"top level is {type(data).__name__}")
    if data.get("schema") != schema:
        raise WireError("wrong_schema", f"schema {data.get('schema')!r}, expected {schema!r}")
    if data.get("version") != version:
        raise WireError("wrong_version", f"version {data.get('version')!r}, expected {version}")
    return data


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
