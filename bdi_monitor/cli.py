"""Entry point of ``bdi-monitor``: one module per subcommand (``bdi_monitor.commands.<name>``);
the parser and exit codes are ``bdi-supervisor``'s (:mod:`bdi_supervisor.cli.entry`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bdi_supervisor.cli import entry

SUBCOMMANDS = ("check", "grid", "replay")


def build_parser(subcommands: Sequence[str] = SUBCOMMANDS) -> argparse.ArgumentParser:
    return entry.build_parser("bdi-monitor", "CTL-BDI model checking and runtime monitoring.",
                              "bdi_monitor.commands", subcommands)


def main(argv: list[str] | None = None) -> int:
    return entry.run(build_parser(entry.requested(argv, SUBCOMMANDS)), argv)


if __name__ == "__main__":
    sys.exit(main())
