"""RTAMT as a peer of the live monitor: the logistics properties as past-time STL.

RTAMT (``pip install -e '.[bench]'``) monitors a trace online with discrete-time STL; it has no
model, so each of the ten CTL-BDI properties of ``logistics_p0`` gets the past-time trace
property that gives the same verdict on the benchmark's runs (the runs stay in the model):

- an invariant ``AG(p -> q)`` is ``historically(p implies q)``;
- ``bel nav_reliable`` (false from the first navigation failure on) is ``historically(not
  nav_fail)``; ``AG(bel gripper_ok -> gripper_ok)`` and ``AG(bel gripper_ok -> EF finished)``
  become true at the first completed pick: ``once(pick_ok)``;
- ``AF finished`` holds once the run has finished: ``once(finished)``; the believed and intended
  reachability of ``finished`` hold while the run has not failed: ``historically(not failed)``;
- ``AG(holding -> EF at_dest)``: no run has failed while holding, ``historically(holding implies
  not failed)``.

Signals (0 or 1) come from the record: its beliefs, ``last_outcome`` and ``sm_outcome``. A run
starts the specifications afresh. A verdict agrees when ``true`` ⟺ robustness > 0.
"""

from __future__ import annotations

from typing import Any

DONE = ("bread_done", "snacks_done", "soda_done", "butter_done", "waste0_done", "waste1_done")
BELIEFS = ("holding", "at_item", "selected", *DONE)
EVENTS = ("pick_ok", "nav_fail", "finished", "failed")
SIGNALS = BELIEFS + EVENTS


def _on(name: str) -> str:
    return f"({name} >= 0.5)"


SPECS = {
    "believes_delivery_possible": f"historically(not {_on('failed')})",
    "delivery_possible_while_gripper_believed_ok": f"once({_on('pick_ok')})",
    "delivery_inevitable": f"once({_on('finished')})",
    "holding_leads_to_destination": f"historically({_on('holding')} implies not {_on('failed')})",
    "pick_success_means_holding": f"historically({_on('pick_ok')} implies {_on('holding')})",
    "at_item_only_when_selected": f"historically({_on('at_item')} implies {_on('selected')})",
    "finishing_means_all_delivered":
        f"historically({_on('finished')} implies ({' and '.join(_on(d) for d in DONE)}))",
    "intends_only_feasible_worlds": f"historically(not {_on('failed')})",
    "gripper_belief_justified": f"once({_on('pick_ok')})",
    "believes_navigation_reliable": f"historically(not {_on('nav_fail')})",
}


def available() -> str | None:
    """RTAMT's version, or None when it is not installed."""
    try:
        from importlib.metadata import version

        import rtamt  # noqa: F401
    except ImportError:
        return None
    return version("rtamt")


def signals(record: dict[str, Any]) -> list[tuple[str, float]]:
    """The signal values of one BDI-state record."""
    beliefs = record.get("beliefs") or {}
    last = record.get("last_outcome") or {}
    capability, outcome = last.get("capability"), last.get("outcome")
    sm_outcome = record.get("sm_outcome")
    values = [(name, 1.0 if (beliefs.get(name) or {}).get("value") is True else 0.0)
              for name in BELIEFS]
    values += [
        ("pick_ok", 1.0 if capability == "pick" and outcome == "completed" else 0.0),
        ("nav_fail", 1.0 if str(capability).startswith("goto_") and outcome == "failure"
         else 0.0),
        ("finished", 1.0 if sm_outcome == "finished" else 0.0),
        ("failed", 1.0 if sm_outcome not in (None, "finished") else 0.0),
    ]
    return values


class RtamtMonitor:
    """The ten specifications, fed one record at a time (a ``start`` record resets them)."""

    def __init__(self) -> None:
        import rtamt

        self.specs = {}
        for name, formula in SPECS.items():
            spec = rtamt.StlDiscreteTimeSpecification()
            spec.name = name
            for signal in SIGNALS:
                spec.declare_var(signal, "float")
            spec.declare_var("out", "float")
            spec.spec = f"out = {formula}"
            spec.parse()
            self.specs[name] = spec
        self.time = 0

    def feed(self, record: dict[str, Any]) -> dict[str, float]:
        """Robustness of every specification after ``record``."""
        if record.get("event") == "start" and self.time:  # (a fresh spec cannot be reset)
            for spec in self.specs.values():
                spec.reset()
            self.time = 0
        values = signals(record)
        result = {name: spec.update(self.time, values) for name, spec in self.specs.items()}
        self.time += 1
        return result
