"""How results look to people, on a terminal and when piped.

On a terminal, rich renders (colours, boxed tables sized to the window). When the output is a
pipe or a file, :func:`output_console` never wraps lines and :func:`print_table` writes plain
text: one line per row, columns aligned with two spaces, every cell complete (no 80-column
truncation, no box characters), so ``| grep`` and ``> file`` keep what the terminal shows.
:func:`plain` turns values into the words people read (``None`` → ``-``, lists joined), so raw
Python reprs such as ``None`` or ``['a', 'b']`` are never printed.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bdi_supervisor.limits import printable

#: how an absent value is shown
ABSENT = "-"


class SuiteConsole(Console):
    """rich's console, except on a closed pipe (``| head``): rich exits with status 1, which
    reads as a negative verdict; this one raises :class:`BrokenPipeError`, which the command
    line ends quietly (exit 141). Every string it renders (printed, or a table's cell) has its
    control characters escaped (:func:`~bdi_supervisor.limits.printable`): text from a catalog
    never reaches the terminal as an escape sequence."""

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(printable(text), **options)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def output_console(*, stderr: bool = False) -> Console:
    """A console for results (or, with ``stderr``, for progress): rich on a terminal; no
    wrapping when piped."""
    console = SuiteConsole(stderr=stderr)
    if console.is_terminal:
        return console
    return SuiteConsole(stderr=stderr, soft_wrap=True)


def plain(value: Any) -> str:
    """``value`` as a reader sees it: ``None`` → ``-``, booleans yes/no, sequences joined."""
    if value is None:
        return ABSENT
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return ", ".join(plain(v) for v in items) or ABSENT
    if isinstance(value, dict):
        return ", ".join(f"{printable(k)}={plain(v)}" for k, v in value.items()) or ABSENT
    return printable(value)


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 guarantee``, ``4 guarantees`` (``plural`` where adding ``s`` is wrong)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def valuation(values: dict[str, Any]) -> str:
    """A valuation as people write one: ``!a, b, x=2`` (booleans by their sign, integers by
    their value; ``-`` when empty)."""
    parts = []
    for name, value in values.items():
        if isinstance(value, bool):
            parts.append(printable(name) if value else f"!{printable(name)}")
        else:
            parts.append(f"{printable(name)}={plain(value)}")
    return ", ".join(parts) or ABSENT


#: how much further in the continuation lines of a wrapped line start (a hanging indent)
HANG = 2


def say(console: Console, text: str, indent: int = 0, *, copyable: bool = False,
        label: str = "") -> None:
    """One line of a message, ``indent`` spaces in, as plain text (no markup) after a bold
    ``label``. Piped, it stays one line. On a terminal narrower than the line it wraps at
    spaces, its continuation lines :data:`HANG` further in than its first; ``copyable`` (a
    path or a command to copy) leaves it whole for the terminal to wrap, so that a copy of it
    is one line."""
    body = Text(printable(label), "bold") + Text(printable(text))
    if copyable or not console.is_terminal:
        console.print(Text(" " * indent) + body, soft_wrap=True, highlight=False)
        return
    room = max(console.width - indent - HANG, MIN_WRAPPED)
    for k, piece in enumerate(body.wrap(console, room)):
        console.print(Text(" " * (indent if k == 0 else indent + HANG)) + piece,
                      soft_wrap=True, highlight=False)


def table(*columns: str, title: str | None = None, **options: Any) -> Table:
    """A results table with bold headers (``options`` go to :class:`rich.table.Table`)."""
    options.setdefault("header_style", "bold")
    return Table(*columns, title=title, **options)


def _cell_text(cell: Any) -> str:
    if isinstance(cell, Text):
        return printable(cell.plain)
    if isinstance(cell, str):
        try:
            return printable(Text.from_markup(cell).plain)
        except Exception:
            return printable(cell)
    return plain(cell)


def plain_rows(grid: Table) -> list[list[str]]:
    """The header and every row of ``grid`` as plain strings (newlines folded to spaces)."""
    columns = grid.columns
    rows = [[_cell_text(c.header) for c in columns]] if grid.show_header else []
    for index in range(grid.row_count):
        rows.append([_cell_text(c._cells[index]).replace("\n", " ") for c in columns])
    return rows


def render_plain(grid: Table) -> str:
    """``grid`` as aligned plain text (see the module docstring)."""
    rows = plain_rows(grid)
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    right = [c.justify == "right" for c in grid.columns]
    lines = []
    if grid.title:
        lines.append(_cell_text(grid.title))
    for row in rows:
        cells = [cell.rjust(width) if r else cell.ljust(width)
                 for cell, width, r in zip(row, widths, right)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


#: the narrowest a column of text of several words (a description, a reason) is wrapped to
MIN_WRAPPED = 12
#: the longest single word (a name, a path) kept whole on one line; longer ones may fold
MAX_WHOLE = 32


@dataclass
class _Fit:
    """A column's narrowest and widest useful width (its content, without padding)."""

    least: int
    most: int


def _column_fit(cells: list[str], header: str) -> _Fit:
    """How narrow a column may get: text of several words wraps at word boundaries (down to
    :data:`MIN_WRAPPED`), a name or number stays whole up to :data:`MAX_WHOLE` characters."""
    longest = max((len(cell) for cell in cells), default=0)
    longest = max(longest, len(header))
    word = max((len(w) for cell in [*cells, header] for w in cell.split()), default=0)
    if any(len(cell.split()) > 1 for cell in cells):
        return _Fit(min(longest, max(MIN_WRAPPED, min(word, MAX_WHOLE // 2))), longest)
    return _Fit(min(max(word, 1), MAX_WHOLE), longest)


def _overhead(grid: Table, count: int) -> int:
    """Characters a table of ``count`` columns spends besides its cells: borders, padding."""
    _top, right, _bottom, left = grid.padding
    padding = (left + right) * count
    if not grid.pad_edge and count:
        padding -= left + right
    edges = 2 if grid.box and grid.show_edge else 0
    return padding + edges + (count - 1 if grid.box else 0)


def fit_columns(grid: Table, width: int, drop: Sequence[str] = ()) -> list[str]:
    """Size ``grid``'s columns for a terminal ``width`` wide, so that nothing is cut: text wraps
    at words, names stay whole (longer ones fold), and where even the narrowest layout is too
    wide whole columns are left out: first those whose headers ``drop`` names, in its order
    (a command's least important first, e.g. timings), then the others after the first column,
    last first. Returns the headers left out (shown order)."""
    rows = plain_rows(grid)
    headers = [_cell_text(c.header) for c in grid.columns]
    body = rows[1:] if grid.show_header else rows
    fits = [_column_fit([row[i] for row in body], headers[i] if grid.show_header else "")
            for i in range(len(grid.columns))]
    order = [headers.index(h) for h in drop if h in headers[1:]]
    order += [i for i in reversed(range(1, len(headers))) if i not in order]
    kept = list(range(len(headers)))
    for index in order:
        if sum(fits[i].least for i in kept) + _overhead(grid, len(kept)) <= width:
            break
        kept.remove(index)
    left_out = [headers[i] for i in range(len(headers)) if i not in kept]
    for index in reversed(range(len(headers))):
        if index not in kept:
            del grid.columns[index]
    kept_fits = [fits[i] for i in kept]
    widths = _share(kept_fits, max(width - _overhead(grid, len(kept)), len(kept)))
    for column, size in zip(grid.columns, widths):
        column.width, column.min_width, column.max_width = size, None, None
        column.no_wrap, column.overflow = False, "fold"
    return left_out


def _share(fits: list[_Fit], room: int) -> list[int]:
    """Widths for columns that fit in ``room``: each its least, then what is left handed out
    towards each one's most, the narrowest wants first; all shrunk alike where even the least
    do not fit."""
    widths = [f.least for f in fits]
    spare = room - sum(widths)
    if spare < 0:  # one column left, still too wide: it folds
        return [max(1, w * room // max(sum(widths), 1)) for w in widths]
    wants = sorted(range(len(fits)), key=lambda i: fits[i].most - fits[i].least)
    for position, index in enumerate(wants):
        give = min(fits[index].most - widths[index], spare // (len(wants) - position))
        widths[index] += give
        spare -= give
    return widths


def print_table(grid: Table, console: Console | None = None, drop: Sequence[str] = ()) -> None:
    """Print ``grid``: rich on a terminal, sized by :func:`fit_columns` (``drop``: the headers
    of the columns to leave out first where it is too narrow); :func:`render_plain` text
    otherwise."""
    console = console or output_console()
    if console.is_terminal:
        dropped = fit_columns(grid, console.width, drop)
        console.print(grid)
        if dropped:
            console.print(f"[dim]({', '.join(dropped)} left out: the terminal is "
                          f"{console.width} columns wide; piped, every column is printed)[/]")
    else:
        console.file.write(render_plain(grid) + "\n")
        console.file.flush()

