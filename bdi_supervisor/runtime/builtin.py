"""Adapters that need no simulator: log states and operator decisions.

``LogState``-like capabilities always complete. An ``OperatorDecisionState`` asks the operator to
pick one of its FlexBE outcomes when an ``ask`` function is given (the CLI passes a terminal
prompt for interactive runs); otherwise it takes the state's ``suggestion`` (the nominal outcome).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, Outcome

Ask = Callable[[Activation, list[str]], str]


class LogAdapter:
    """Completes at once, recording the state's ``text``."""

    def __init__(self, completed: str = "completed", timeout: float = 5.0) -> None:
        self.completed = completed
        self.info = AdapterInfo("log", (completed,), timeout)

    def describe(self) -> AdapterInfo:
        return self.info

    def start(self, activation: Activation) -> Outcome:
        text = str(activation.parameters.get("text", ""))
        return Outcome(self.completed, text, "done", {"text": text})

    def poll(self, handle: Outcome) -> Outcome:
        return handle

    def cancel(self, handle: Outcome) -> None:
        return None


class OperatorAdapter:
    """The operator chooses a FlexBE outcome (``flexbe_outcomes``: FlexBE → normalized)."""

    def __init__(self, flexbe_outcomes: Mapping[str, str], ask: Ask | None = None,
                 timeout: float = 3600.0) -> None:
        self.flexbe_outcomes = dict(flexbe_outcomes)
        self.ask = ask
        outcomes = tuple(dict.fromkeys(self.flexbe_outcomes.values()))
        self.info = AdapterInfo("operator", outcomes, timeout)

    def describe(self) -> AdapterInfo:
        return self.info

    def start(self, activation: Activation) -> Outcome:
        labels = list(self.flexbe_outcomes)
        suggestion = activation.parameters.get("suggestion")
        if self.ask is not None:
            choice = self.ask(activation, labels)
            reason = "operator choice"
        else:
            choice = suggestion if suggestion in self.flexbe_outcomes else next(
                (f for f, n in self.flexbe_outcomes.items() if n == "completed"), labels[0])
            reason = "operator suggestion"
        if choice not in self.flexbe_outcomes:
            raise ValueError(f"operator chose {choice!r}, not one of {labels}")
        return Outcome(self.flexbe_outcomes[choice], reason, choice)

    def poll(self, handle: Outcome) -> Outcome:
        return handle

    def cancel(self, handle: Outcome) -> None:
        return None
