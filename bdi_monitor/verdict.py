"""A property's current verdict: what the monitor core reports and the ROS monitor node
publishes."""

from __future__ import annotations

from dataclasses import dataclass, field

from bdi_supervisor.common import PropertyValue

#: runtime verdict values
VALUES = tuple(PropertyValue)


@dataclass(frozen=True)
class Verdict:
    """The current verdict of one property.

    ``value`` is one of :data:`VALUES` for runtime verdicts; launch-time checks use ``true`` (YES)
    or ``false`` (a counterexample, summarized in ``message``). ``evidence`` is short key/value
    text (e.g. the product node, the message that flipped it); ``latency_ns`` the core's
    processing time for the record that produced it, where measured.
    """

    property: str
    value: str
    message: str = ""
    evidence: dict[str, str] = field(default_factory=dict)
    latency_ns: int | None = None

    @classmethod
    def made(cls, property: str, value: str, message: str, evidence: dict[str, str],
             latency_ns: int | None) -> Verdict:
        """The same verdict as the constructor gives, built without the frozen class's
        per-field ``object.__setattr__`` (the monitor builds ten per message that moves)."""
        verdict = object.__new__(cls)
        verdict.__dict__.update(property=property, value=value, message=message,
                                evidence=evidence, latency_ns=latency_ns)
        return verdict
