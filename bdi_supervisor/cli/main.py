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

SUBCOMMANDS = ("missions", "spec", "solve", "synthesize", "explain", "realize", "run", "sweep")
__all__ = ["SUBCOMMANDS", "build_parser", "main"]


def build_parser(subcommands: Sequence[str] = SUBCOMMANDS) -> argparse.ArgumentParser:
    return entry.build_parser(
        "bdi-supervisor", "Capability catalogs to synthesized, audited, reduced supervisors.",
        "bdi_supervisor.cli", subcommands)


def main(argv: list[str] | None = None) -> int:
    return entry.run(build_parser(entry.requested(argv, SUBCOMMANDS)), argv)


if __name__ == "__main__":
    sys.exit(main())
