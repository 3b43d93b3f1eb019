"""The help of the command lines: plain text made from docstrings, and examples.

Subcommand descriptions are often their module's docstring, written in reST: :func:`plain_help`
drops the markup, :class:`HelpFormatter` (the formatter of every parser of both command lines)
applies it and keeps a description's paragraphs, and :func:`examples` makes the ``examples:``
epilog each subcommand shows. Standard library only: every command's start-up imports it.
"""

from __future__ import annotations

import argparse
import re

#: reST markup of the docstrings the help is made from: ``code``, :role:`~path.name`
_REST = re.compile(r"``([^`]+)``|:[a-z]+:`~?(?:[\w.]+\.)?([^`]+)`")


def plain_help(text: str) -> str:
    """``text`` without reST markup (``synthesize`` → synthesize, :mod:`~a.b` → b)."""
    return _REST.sub(lambda m: m.group(1) or m.group(2), text)


class HelpFormatter(argparse.HelpFormatter):
    """Help without reST markup; a description keeps its paragraphs, and the examples (lines
    that start with a space, the epilog of :func:`examples`) stay as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for block in re.split(r"\n\s*\n", plain_help(text).strip("\n")):
            if block.startswith((" ", "examples:")):
                paragraphs.append(block)
            else:
                paragraphs.append(super()._fill_text(block, width, indent))
        return "\n\n".join(paragraphs)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(plain_help(text), width)


def examples(*lines: str) -> str:
    """The epilog of a subcommand's ``--help``: its examples, one command line each (a comment
    after ``  #`` says what it shows)."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)
