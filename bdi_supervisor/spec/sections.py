"""The line layout slugsin and structuredslugs files share: ``[SECTION]`` headers, one variable
declaration or clause per line, ``#`` comment lines that belong to the next item."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bdi_supervisor.errors import InputError
from bdi_supervisor.spec.gr1 import SECTION_HEADERS

#: declaration headers → variable owner
DECLARATIONS = {"[INPUT]": "env", "[OUTPUT]": "sys"}
#: clause headers (``[ENV_INIT]``…) → section name (``env_init``…)
CLAUSES = {f"[{header}]": name for name, header in SECTION_HEADERS.items()}


@dataclass(frozen=True)
class Line:
    """One declaration (``owner`` set) or clause (``section`` set) with its 1-based line number
    and the comment lines above it (and its trailing comment, where the format has them)."""

    number: int
    body: str
    comment: str
    owner: str | None = None
    section: str | None = None


def split_comment(line: str) -> tuple[str, str]:
    """``body # comment`` → (body, comment); the comment is ``""`` where there is none."""
    index = line.find("#")
    if index < 0:
        return line, ""
    return line[:index], line[index:].lstrip("#").strip()


def section_lines(text: str, *, file: str | None = None, trailing_comments: bool = False,
                  blank_ends_comment: bool = False) -> Iterator[Line]:
    """Every declaration and clause line of ``text``, in order.

    ``trailing_comments``: ``body # text`` lines (and headers) carry a comment, and the body is
    the line up to the ``#``, unstripped; otherwise the body is the stripped line.
    ``blank_ends_comment``: a blank line drops the comment lines above it.
    """
    owner: str | None = None
    section: str | None = None
    pending: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            if blank_ends_comment:
                pending = []
            continue
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        if stripped.startswith("["):
            header = split_comment(stripped)[0].strip() if trailing_comments else stripped
            if header not in DECLARATIONS and header not in CLAUSES:
                raise InputError("unknown section", file=file, line=number, column=1,
                                 found=header, expected=", ".join([*DECLARATIONS, *CLAUSES]))
            owner, section = DECLARATIONS.get(header), CLAUSES.get(header)
            pending = []
            continue
        if owner is None and section is None:
            raise InputError("text before the first section header", file=file, line=number,
                             column=1, found=repr(stripped), expected="a section such as [INPUT]")
        body, trailing = split_comment(raw) if trailing_comments else (stripped, "")
        comment = "\n".join([*pending, trailing] if trailing else pending)
        pending = []
        yield Line(number, body, comment, owner, section)
