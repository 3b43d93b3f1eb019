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

SUBCOMMANDS = ("check", "grid", "replay")
__all__ = ["SUBCOMMANDS", "build_parser", "main"]


def build_parser(subcommands: Sequence[str] = SUBCOMMANDS) -> argparse.ArgumentParser:
    return entry.build_parser("bdi-monitor", "CTL-BDI model checking and runtime monitoring.",
                              "bdi_monitor.commands", subcommands)


def main(argv: list[str] | None = None) -> int:
    return entry.run(build_parser(entry.requested(argv, SUBCOMMANDS)), argv)


if __name__ == "__main__":
    sys.exit(main())
