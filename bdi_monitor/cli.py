"""Entry point of ``bdi-monitor``: one module per subcommand (``bdi_monitor.commands.<name>``)."""

from __future__ import annotations

import argparse
import importlib
import sys

from bdi_supervisor.errors import InputError

SUBCOMMANDS = ("check", "grid", "replay")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bdi-monitor", description="CTL-BDI model checking and runtime monitoring.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"bdi_monitor.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name not in (f"bdi_monitor.commands.{name}", "bdi_monitor.commands"):
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as error:
        print(f"error: {error.describe()}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
