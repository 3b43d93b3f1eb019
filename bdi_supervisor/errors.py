"""Errors raised on bad user input.

Every stage raises :class:`InputError` for problems in what the user gave it (a file, a key, a
formula). The CLI prints :meth:`InputError.describe` as one paragraph and exits with status 2,
never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class InputError(Exception):
    """A problem in user input, located as precisely as we can.

    ``file`` is the path of the input, ``key`` a dotted/indexed key path inside it
    (``capabilities.bd.postconditions.completed[0]``), ``line``/``column`` 1-based where known,
    ``found`` what was there and ``expected`` what would have been accepted.
    """

    message: str
    file: str | None = None
    key: str | None = None
    line: int | None = None
    column: int | None = None
    found: str | None = None
    expected: str | None = None

    def __post_init__(self) -> None:
        super().__init__(self.describe())

    def describe(self) -> str:
        """One paragraph; the quoted input (``found``) and long lists are cut short."""
        where = []
        if self.file:
            where.append(_short(self.file, 300))
        if self.line is not None:
            where.append(f"line {self.line}" + (f", column {self.column}" if self.column else ""))
        if self.key:
            where.append(f"key '{_short(self.key, 200)}'")
        message = _short(self.message, 400)
        text = ": ".join([", ".join(where), message]) if where else message
        if self.found is not None:
            text += f"; found {_short(self.found, 100)}"
        if self.expected is not None:
            text += f"; expected {_short(self.expected, 400)}"
        return text

    def __str__(self) -> str:
        return self.describe()

    def at(self, **where: object) -> InputError:
        """Return a copy with location fields filled in where still unknown."""
        fields = {k: v for k, v in self.__dict__.items() if k in self.__dataclass_fields__}
        for name, value in where.items():
            if fields.get(name) is None:
                fields[name] = value
        return InputError(**fields)


def _short(text: object, limit: int) -> str:
    """``text`` cut to ``limit`` characters (saying how long it was): messages quote at most a
    short excerpt of the user's input, however long the offending value."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit - 20]}… ({len(text)} characters)"


def nearest(word: object, choices: Iterable[str]) -> str | None:
    """The choice a mistyped ``word`` most likely meant: the only choice it begins (``fair`` →
    ``fair-outcome``), else the closest (difflib); None when none is close."""
    import difflib

    if not isinstance(word, str):
        return None
    choices = list(choices)
    started = [choice for choice in choices if word and choice.startswith(word)]
    if len(started) == 1:
        return started[0]
    found = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return found[0] if found else None


def suggestion(word: object, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the :func:`nearest` choice, else ``""``."""
    near = nearest(word, choices)
    return f" (did you mean '{near}'?)" if near is not None and near != word else ""


class BudgetExceeded(Exception):
    """A time or node budget ran out; the stage reports ``INCOMPLETE`` rather than a verdict."""

    def __init__(self, what: str, limit: float | int) -> None:
        super().__init__(f"{what} budget of {limit} exhausted")
        self.what = what
        self.limit = limit
