"""Entry point of ``bdi-supervisor``.

Each subcommand lives in its own module ``bdi_supervisor.cli.<name>`` exposing
``register(subparsers)`` (adds its parser, sets ``func``) — so stages can add commands without
touching this file beyond the list below. Exit codes: 0 success, 1 negative verdict
(unrealizable, audit failure, property false, mission failed), 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from bdi_supervisor.errors import InputError

SUBCOMMANDS = ("spec", "solve", "synthesize", "realize", "run", "sweep")

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bdi-supervisor",
        description="Capability catalogs to synthesized, audited, reduced supervisors.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"bdi_supervisor.cli.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"bdi_supervisor.cli.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args.func(args) or 0)
    except InputError as error:
        print(f"error: {error.describe()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
