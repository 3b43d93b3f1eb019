"""Entry point of ``bdi-monitor``: one module per subcommand (``bdi_monitor.commands.<name>``),
with the parser and exit codes of :mod:`.entry`.

It lives here, beside ``bdi-supervisor``'s :mod:`.main`, so that ``bdi_monitor`` never imports
``bdi_supervisor.cli`` (whose ``run`` imports the monitor): the two packages form no cycle.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bdi_supervisor.cli import entry
from bdi_supervisor.helptext import examples

SUBCOMMANDS = ("check", "grid", "replay")
__all__ = ["SUBCOMMANDS", "build_parser", "main"]
#: the top-level ``--help``'s examples
EXAMPLES = examples(
    "bdi-monitor check config/ctl/beer.yaml 'AG(bel br -> EF bb)'   # YES or NO",
    "bdi-monitor grid --size 64 -o grid64.json                      # a benchmark structure",
    "bdi-supervisor run beer_robot --bdi-log beer.jsonl             # record a run...",
    "bdi-monitor replay beer.jsonl                                  # ...and replay it")


def build_parser(subcommands: Sequence[str] = SUBCOMMANDS) -> argparse.ArgumentParser:
    return entry.build_parser("bdi-monitor", "CTL-BDI model checking and runtime monitoring. "
                              "Each command has its own --help, with examples.",
                              "bdi_monitor.commands", subcommands, epilog=EXAMPLES)


def main(argv: list[str] | None = None) -> int:
    return entry.run(build_parser(entry.requested(argv, SUBCOMMANDS)), argv)


if __name__ == "__main__":
    sys.exit(main())
