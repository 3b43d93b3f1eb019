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


#: the narrowest a column of wrapped text (a description) is shown; narrower, it is left out
MIN_WRAPPED = 16


def keep_whole(grid: Table, width: int) -> list[str]:
    """Size ``grid``'s columns for a terminal ``width`` wide without cutting a name or a
    verdict: a column of names or verdicts keeps its longest one on a line (the first column
    each cell), text of several words (a description, a formula) wraps at word boundaries, and
    where even that does not fit, such columns after the first are left out, last first.
    Returns the headers of the columns left out."""
    rows = plain_rows(grid)
    widths, wrapped = [], []
    for index, column in enumerate(grid.columns):
        cells = [row[index] for row in rows]
        longest = max((len(cell) for cell in cells), default=0)
        word = max((len(w) for cell in cells for w in cell.split()), default=0)
        several = any(len(cell.split()) > 1 for cell in cells[1:])
        if index == 0 and not several:
            column.no_wrap, column.min_width = True, longest
        else:
            column.min_width = max(column.min_width or 0, word)
            column.overflow = "fold"
        widths.append(max(column.min_width, MIN_WRAPPED) if several else column.min_width)
        wrapped.append(several and index > 0)  # the first column is never left out
    dropped = []
    overhead = 3 * len(widths) + 1  # padding and borders
    for index in reversed(range(len(widths))):
        if sum(widths) + overhead <= width:
            break
        if wrapped[index]:
            dropped.append(_cell_text(grid.columns[index].header))
            del grid.columns[index], widths[index]
            overhead -= 3
    return dropped[::-1]


def print_table(grid: Table, console: Console | None = None) -> None:
    """Print ``grid``: rich on a terminal, sized by :func:`keep_whole`; :func:`render_plain`
    text otherwise."""
    console = console or output_console()
    if console.is_terminal:
        dropped = keep_whole(grid, console.width)
        console.print(grid)
        if dropped:
            console.print(f"[dim]({', '.join(dropped)} left out: the terminal is "
                          f"{console.width} columns wide; piped, every column is printed)[/]")
    else:
        console.file.write(render_plain(grid) + "\n")
        console.file.flush()

