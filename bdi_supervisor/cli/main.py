"""Entry point of ``bdi-supervisor``.

Each subcommand lives in its own module ``bdi_supervisor.cli.<name>`` exposing
``register(subparsers)`` (adds its parser, sets ``func``) — so stages can add commands without
touching this file beyond the list below. Exit codes (:mod:`.entry`): 0 success, 1 negative
verdict (unrealizable, audit failure, property false, mission failed), 2 bad input, 3 no verdict
within the budget.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bdi_supervisor.cli import entry
from bdi_supervisor.helptext import examples

SUBCOMMANDS = ("missions", "spec", "solve", "synthesize", "explain", "realize", "run", "sweep")
__all__ = ["SUBCOMMANDS", "build_parser", "main"]
#: the top-level ``--help``'s examples: the first hour's path
EXAMPLES = examples(
    "bdi-supervisor missions                            # the shipped missions",
    "bdi-supervisor run coffee_extended --seed 1        # synthesize and run one",
    "bdi-supervisor synthesize coffee_extended --draw   # every stage's files, pictures",
    "bdi-supervisor explain two_rivers_goat_stays       # why a mission is unrealizable",
    "bdi-supervisor run coffee_extended --help          # a command's options")


def build_parser(subcommands: Sequence[str] = SUBCOMMANDS) -> argparse.ArgumentParser:
    return entry.build_parser(
        "bdi-supervisor", "Capability catalogs to synthesized, audited, reduced supervisors. "
        "Each command has its own --help, with examples.",
        "bdi_supervisor.cli", subcommands, epilog=EXAMPLES)


def main(argv: list[str] | None = None) -> int:
    return entry.run(build_parser(entry.requested(argv, SUBCOMMANDS)), argv)


if __name__ == "__main__":
    sys.exit(main())
