"""Adapters that need no simulator: log states and operator decisions.

``LogState``-like capabilities always complete. An ``OperatorDecisionState`` asks the operator to
pick one of its outcomes when an ``ask`` function is given (the CLI passes a terminal prompt for
interactive runs): the catalog's outcomes (``completed``, ``failure``: the words ``--force``
takes), each FlexBE outcome of the state (``button``, ``fail``) also accepted for its own;
otherwise it takes the state's ``suggestion`` (the nominal outcome).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bdi_supervisor.runtime.adapters import Activation, AdapterInfo, Outcome


@dataclass(frozen=True)
class Question:
    """What an operator is asked: one of ``choices`` (the catalog's outcomes), ``default`` the
    state's suggestion; ``aliases`` maps each FlexBE outcome name to the choice it stands for."""

    choices: tuple[str, ...]
    default: str | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)

    def answer(self, text: str) -> str | None:
        """The choice ``text`` names (a choice or a FlexBE alias), or None."""
        text = text.strip()
        return text if text in self.choices else self.aliases.get(text)


#: asks the operator of an activation a :class:`Question`; returns what they typed
Ask = Callable[[Activation, Question], str]


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
    """The operator chooses one of the capability's outcomes (``flexbe_outcomes``: the state's
    FlexBE outcome → the catalog's outcome)."""

    def __init__(self, flexbe_outcomes: Mapping[str, str], ask: Ask | None = None,
                 timeout: float = 3600.0) -> None:
        self.flexbe_outcomes = dict(flexbe_outcomes)
        self.ask = ask
        outcomes = tuple(dict.fromkeys(self.flexbe_outcomes.values()))
        self.info = AdapterInfo("operator", outcomes, timeout)

    def describe(self) -> AdapterInfo:
        return self.info

    def start(self, activation: Activation) -> Outcome:
        suggestion = activation.parameters.get("suggestion")
        question = self.question(suggestion)
        if self.ask is not None:
            typed = self.ask(activation, question)
            reason = "operator choice"
        else:
            typed = question.default or question.choices[0]
            reason = "operator suggestion"
        outcome = question.answer(str(typed))
        if outcome is None:
            raise ValueError(f"operator chose {typed!r}, not one of {list(question.choices)}")
        named = [typed, suggestion, *self.flexbe_outcomes]  # the FlexBE name it stands for
        flexbe = next((f for f in named if isinstance(f, str)
                       and self.flexbe_outcomes.get(f) == outcome), None)
        return Outcome(outcome, reason, flexbe)

    def question(self, suggestion: object = None) -> Question:
        """The question for an activation whose state suggests the FlexBE outcome
        ``suggestion`` (its nominal one, ``completed``, when it suggests none)."""
        choices = tuple(dict.fromkeys(self.flexbe_outcomes.values()))
        default = self.flexbe_outcomes.get(suggestion) if isinstance(suggestion, str) else None
        if default is None:
            default = "completed" if "completed" in choices else choices[0]
        return Question(choices, default, dict(self.flexbe_outcomes))

    def poll(self, handle: Outcome) -> Outcome:
        return handle

    def cancel(self, handle: Outcome) -> None:
        return None
