"""What the ``bdi-supervisor`` and ``bdi-monitor`` entry points share.

A command is a list of subcommand modules ``<package>.<name>``, each with ``register(subparsers)``
(adds its parser and sets ``func``), so a subcommand is added without touching the entry point
beyond its list. :func:`run` calls the chosen ``func`` and maps the outcome to the suite's exit
codes (:class:`~bdi_supervisor.common.ExitCode`). Only the standard library and that enum are
imported here; the subcommands import their heavy modules inside ``func``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bdi_supervisor.common import ExitCode


def build_parser(prog: str, description: str, package: str,
                 subcommands: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of ``prog`` with one subparser per installed module ``package.<name>``."""
    from bdi_supervisor import limits

    parser = argparse.ArgumentParser(prog=prog, description=description)
    limits.add_size_option(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in subcommands:
        module_name = f"{package}.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name not in (module_name, package):
                raise
            continue  # a subcommand this installation leaves out
        module.register(subparsers)
    return parser


def requested(argv: Sequence[str] | None, subcommands: Sequence[str]) -> tuple[str, ...]:
    """The subcommands to register for ``argv``: just the one it starts with, if any (it parses
    the same, and the other subcommands' modules stay unimported); otherwise all of them."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in subcommands:
        return (args[0],)
    return tuple(subcommands)


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen subcommand; its exit code (help and exit 2 without one,
    exit 2 with the message on :class:`~bdi_supervisor.errors.InputError`)."""
    from bdi_supervisor import limits
    from bdi_supervisor.errors import InputError

    args = parser.parse_args(argv)
    limits.apply_options(args)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return ExitCode.BAD_INPUT
    try:
        return int(func(args) or ExitCode.OK)
    except InputError as error:
        print(f"error: {error.describe()}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
