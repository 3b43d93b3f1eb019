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

#: how an absent value is shown
ABSENT = "-"


class SuiteConsole(Console):
    """rich's console, except on a closed pipe (``| head``): rich exits with status 1, which
    reads as a negative verdict; this one raises :class:`BrokenPipeError`, which the command
    line ends quietly (exit 141)."""

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
        return ", ".join(f"{k}={plain(v)}" for k, v in value.items()) or ABSENT
    return str(value)


def table(*columns: str, title: str | None = None, **options: Any) -> Table:
    """A results table with bold headers (``options`` go to :class:`rich.table.Table`)."""
    options.setdefault("header_style", "bold")
    return Table(*columns, title=title, **options)


def _cell_text(cell: Any) -> str:
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        try:
            return Text.from_markup(cell).plain
        except Exception:
            return cell
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


def print_table(grid: Table, console: Console | None = None) -> None:
    """Print ``grid``: rich on a terminal, :func:`render_plain` text otherwise."""
    console = console or output_console()
    if console.is_terminal:
        console.print(grid)
    else:
        console.file.write(render_plain(grid) + "\n")
        console.file.flush()

