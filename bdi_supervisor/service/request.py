"""A synthesis request: the fields of the reference's ``FlexBESynthesisRequest`` plus the goal's
``synthesis_options`` text, and what those options may say.

``synthesis_options`` is a YAML mapping (empty: none) with the keys of a mission's
``synthesis:`` section (``encoding``, ``liveness``, ``pending``, ``declaration_order``, ``seed``,
``reordering``, ``reordering_threshold``, ``max_growth``, ``reachable``, ``time_budget_s``,
``node_budget``) and
the service's own:

- ``capabilities``: the capability file of the system to use, a file name in its
  ``capabilities/`` folder (when it has several);
- ``explain``: explain an unrealizable request (default true; the core of the explanation is
  in the answer's messages);
- ``fail_on_non_well_separated``: answer ``SYNTHESIS_FAILED`` when the spec's environment
  assumptions are not well-separated (default false: the verdict is a message);
- ``audit``: a mission's ``audit:`` section (``goals``, ``livelock``, ``time_budget_s``,
  ``max_product_states`` …; :mod:`bdi_supervisor.audit.config`).

Any other key, and any value out of range, is a :class:`~bdi_supervisor.service.codes.Refusal`
with ``INVALID_REQUEST`` naming ``synthesis_options.<key>``.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from bdi_supervisor.errors import InputError
from bdi_supervisor.mission.loader import SYNTHESIS_KEYS, synthesis_from_doc
from bdi_supervisor.service.codes import Code, Refusal
from bdi_supervisor.yamlsource import YamlDoc, parse_yaml

#: the options that are not synthesis options, and their types
SERVICE_KEYS = {"capabilities": str, "explain": bool, "fail_on_non_well_separated": bool,
                "audit": dict}
#: longest ``synthesis_options`` text read
OPTIONS_LIMIT = 10_000
#: a system name is one path component
_SYSTEM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}\Z")


@dataclass(frozen=True)
class SynthesisRequest:
    """One request, as the action goal carries it (strings as sent)."""

    initial_conditions: tuple[str, ...] = ()
    goals: tuple[str, ...] = ()
    sm_outcomes: tuple[str, ...] = ()
    system_name: str = ""
    spec_name: str = ""
    specification_file_name: str = ""
    synthesis_timeout_s: float = 0.0
    synthesis_options: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SynthesisRequest:
        values = dict(data)
        for key in ("initial_conditions", "goals", "sm_outcomes"):
            values[key] = tuple(values.get(key, ()))
        return cls(**values)


@dataclass(frozen=True)
class ServiceOptions:
    """What ``synthesis_options`` said: the synthesis options it sets (``overrides``, as
    ``SynthesisOptions`` field names) and the service's own keys."""

    overrides: dict[str, Any] = field(default_factory=dict)
    capabilities: str | None = None
    explain: bool = True
    fail_on_non_well_separated: bool = False
    audit: dict[str, Any] = field(default_factory=dict)


def _invalid(error: InputError) -> Refusal:
    return Refusal(Code.INVALID_REQUEST, error.describe())


def parse_options(text: str) -> ServiceOptions:
    """``synthesis_options`` read (see the module docstring); raises :class:`Refusal`."""
    if len(text) > OPTIONS_LIMIT:
        raise Refusal(Code.INVALID_REQUEST, f"synthesis_options: {len(text)} characters; "
                      f"expected at most {OPTIONS_LIMIT}")
    if not text.strip():
        return ServiceOptions()
    try:
        doc = parse_yaml(text, "synthesis_options")
        data = doc.data if doc.data is not None else {}
        doc.expect(data, dict, (), "a YAML mapping of options")
        own = {k: v for k, v in data.items() if k in SERVICE_KEYS}
        for key, value in own.items():
            doc.expect(value, SERVICE_KEYS[key], (key,), SERVICE_KEYS[key].__name__)
        rest = {k: v for k, v in data.items() if k not in SERVICE_KEYS}
        unknown = [k for k in rest if k not in SYNTHESIS_KEYS]
        if unknown:
            raise doc.error("unknown option", (unknown[0],), found=repr(unknown[0]),
                            expected="one of " + ", ".join([*SYNTHESIS_KEYS, *SERVICE_KEYS]))
        options = synthesis_from_doc(YamlDoc(rest, "synthesis_options", doc.lines), rest, ())
    except InputError as error:
        raise _invalid(error) from None
    overrides = {name: getattr(options, name) for name in _set_fields(rest)}
    return ServiceOptions(overrides, own.get("capabilities"), own.get("explain", True),
                          own.get("fail_on_non_well_separated", False), own.get("audit", {}))


def _set_fields(section: dict[str, Any]) -> list[str]:
    """``SynthesisOptions`` field names of the keys a ``synthesis:`` section sets."""
    from bdi_supervisor.options import MISSION_KEYS

    return [MISSION_KEYS.get(key, key) for key in section]


def check_request(request: SynthesisRequest) -> None:
    """The fields the pipeline does not check itself: the system name (one path component),
    the timeout (finite, not negative). Raises :class:`Refusal` (``INVALID_REQUEST``)."""
    if not request.system_name:
        raise Refusal(Code.INVALID_REQUEST, "request.system_name is empty; expected the name of "
                      "a system (a folder of the synthesis home, or a shipped catalog)")
    if not _SYSTEM.match(request.system_name) or request.system_name in (".", ".."):
        raise Refusal(Code.INVALID_REQUEST, f"request.system_name {request.system_name[:80]!r} "
                      "is not a name; expected letters, digits, '_', '-' and '.' (one path "
                      "component)")
    timeout = request.synthesis_timeout_s
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout >= 0):
        raise Refusal(Code.INVALID_REQUEST, f"request.synthesis_timeout_s is {timeout!r}; "
                      "expected a finite number of seconds >= 0 (0: the server's default)")
    for index, outcome in enumerate(request.sm_outcomes):
        if not outcome.strip():
            raise Refusal(Code.INVALID_REQUEST, f"request.sm_outcomes[{index}] is empty")


def time_budget(request: SynthesisRequest, options: ServiceOptions,
                default: float | None) -> float | None:
    """The synthesis time budget: the request's timeout when > 0 (as the reference), else the
    options' ``time_budget_s``, else the server's ``default``."""
    if request.synthesis_timeout_s > 0:
        return float(request.synthesis_timeout_s)
    return options.overrides.get("time_budget", default)


def mission_name(request: SynthesisRequest) -> str:
    """A name for the request's mission (run folder, behavior): the last segment of
    ``spec_name`` (the WebUI sends the target container's path) made an identifier, else the
    system name's."""
    for text in (request.spec_name.rsplit("/", 1)[-1], request.system_name):
        name = re.sub(r"\W", "_", text.strip(), flags=re.ASCII).strip("_")[:64]
        if name:
            return name if name[0].isalpha() else f"m_{name}"
    return "request"


__all__ = ["SERVICE_KEYS", "ServiceOptions", "SynthesisRequest",
           "check_request", "mission_name", "parse_options", "time_budget"]
