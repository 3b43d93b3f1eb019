"""What the ``bdi-supervisor`` and ``bdi-monitor`` entry points share.

A command is a list of subcommand modules ``<package>.<name>``, each with ``register(subparsers)``
(adds its parser and sets ``func``), so a subcommand is added without touching the entry point
beyond its list. :func:`run` calls the chosen ``func`` and maps the outcome to the suite's exit
codes (:class:`~bdi_supervisor.common.ExitCode`). Only the standard library and that enum are
imported here; the subcommands import their heavy modules inside ``func``.

:func:`run` also makes the process safe to run in any environment (:mod:`.streams`): closed
standard streams, a closed pipe (``| head``: exit 141, quietly), a full device (``no space left
on …``, exit 2), an ASCII-only encoding, SIGINT (exit 130) and SIGTERM (exit 143), each without a
traceback and with temporary files removed.
"""

from __future__ import annotations

import argparse
import atexit
import errno
import gc
import importlib
import re
import sys
from collections.abc import Sequence

from bdi_supervisor.cli import streams
from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import suggestion
from bdi_supervisor.helptext import HelpFormatter


class SuiteParser(argparse.ArgumentParser):
    """The parser of both command lines and their subcommands: help without reST markup
    (:class:`~bdi_supervisor.helptext.HelpFormatter`), the nearest option or choice suggested for a
    typo, and write errors of the help let through."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["formatter_class"] = HelpFormatter
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file=None) -> None:
        # argparse drops write errors; a closed pipe or a full device must reach :func:`run`
        if message:
            (file or sys.stderr).write(message)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            options = self._option_strings(getattr(parsed, "command", None))
            words = [f"{extra}{suggestion(extra.split('=')[0], options)}"
                     if extra.startswith("-") else extra for extra in extras]
            self.error("unrecognized arguments: " + " ".join(words))
        self._refuse_empty(parsed)
        return parsed

    def _refuse_empty(self, parsed: argparse.Namespace) -> None:
        """An empty value (``-o ''``, ``--from ''``) is a usage error naming the argument: taken
        as "not given", it would make the command do something else."""
        for parser in self._parsers(getattr(parsed, "command", None)):
            for action in parser._actions:
                value = getattr(parsed, action.dest, None) if action.dest else None
                values = value if isinstance(value, list) else [value]
                if any(item == "" for item in values):
                    name = "/".join(action.option_strings) or action.metavar or action.dest
                    self.error(f"argument {name}: an empty value (expected "
                               f"{action.metavar or 'a value'})")

    def error(self, message: str):
        choice = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)", message)
        if choice is not None:
            message += suggestion(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        super().error(message)

    def _parsers(self, command: str | None) -> list[argparse.ArgumentParser]:
        """This parser and that of the subcommand ``command``."""
        parsers = [self]
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                parsers.append(action.choices[command])
        return parsers

    def _option_strings(self, command: str | None) -> list[str]:
        """The options of this parser and of the subcommand ``command``."""
        return [option for parser in self._parsers(command) for action in parser._actions
                for option in action.option_strings]


def build_parser(prog: str, description: str, package: str,
                 subcommands: Sequence[str], epilog: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``prog`` with one subparser per installed module ``package.<name>``;
    ``--version`` and ``--max-input-size`` (also after the subcommand) on every one."""
    from bdi_supervisor import __version__

    parser = SuiteParser(prog=prog, description=description, epilog=epilog)
    parser.add_argument("--version", action="version", version=f"{prog} {__version__}",
                        help="print the version and exit")
    add_size_option(parser)
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
        # given after the subcommand, it sets the same field; left out, the top level's stays
        add_size_option(subparsers.choices[name], default=argparse.SUPPRESS)
    return parser


def add_size_option(parser: argparse.ArgumentParser, default: object = None) -> None:
    """``--max-input-size SIZE`` on a parser
    (:func:`bdi_supervisor.limits.set_max_input_bytes`)."""
    from bdi_supervisor.limits import DEFAULT_MAX_INPUT_BYTES, INPUT_SIZE_ENV, size_text

    parser.add_argument("--max-input-size", metavar="SIZE", type=_size_argument,
                        default=default,
                        help=f"largest input file read (default "
                             f"{size_text(DEFAULT_MAX_INPUT_BYTES)}, or ${INPUT_SIZE_ENV}); "
                             f"e.g. 200M, 2G")


def _size_argument(text: str) -> int:
    from bdi_supervisor.limits import parse_size

    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def requested(argv: Sequence[str] | None, subcommands: Sequence[str]) -> tuple[str, ...]:
    """The subcommands to register for ``argv``: just the one it starts with, if any (it parses
    the same, and the other subcommands' modules stay unimported); otherwise all of them."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in subcommands:
        return (args[0],)
    return tuple(subcommands)


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen subcommand; its exit code (help and exit 2 without one,
    exit 2 with the message on :class:`~bdi_supervisor.errors.InputError`; see the module
    docstring for streams and signals)."""
    from bdi_supervisor import interrupts
    from bdi_supervisor.outpaths import track_inputs

    # the last exit handler: the interpreter's final garbage collections then skip every object
    # that exists at exit (a sixth of a small command's time, docs/performance.md#start-up);
    # objects are still freed as their modules are cleared, and the other exit handlers (temporary
    # files) have run before
    atexit.register(gc.freeze)
    track_inputs()  # no output of this command may replace a file it read
    streams.prepare()
    with interrupts.handling():
        try:
            try:
                code = _dispatch(parser, argv)
            except SystemExit:  # argparse: --help, or a usage error
                streams.flush()
                raise
            streams.flush()
            return code
        except KeyboardInterrupt as stop:
            return _interrupted(stop)
        except OSError as error:
            if (stop := _interrupt_behind(error)) is not None:
                return _interrupted(stop)
            return _stream_error(error)
        except Exception as error:
            # an interrupt that a library or the interpreter wrapped in another exception
            # (a RuntimeError from a class body being built while the signal came, say)
            if (stop := _interrupt_behind(error)) is not None:
                return _interrupted(stop)
            raise


def _interrupted(stop: KeyboardInterrupt) -> int:
    from bdi_supervisor import interrupts

    if isinstance(stop, interrupts.Terminated):
        _say("terminated")
        return ExitCode.TERMINATED
    _say("interrupted")
    return ExitCode.INTERRUPTED


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The SIGINT/SIGTERM exception ``error`` was raised because of, if any."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _dispatch(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    from bdi_supervisor import limits
    from bdi_supervisor.errors import InputError

    args = parser.parse_args(argv)
    # --max-input-size for this command (not given: the environment or the default)
    limits.set_max_input_bytes(getattr(args, "max_input_size", None))
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return ExitCode.BAD_INPUT
    try:
        _check_working_folder()
        return int(func(args) or ExitCode.OK)
    except InputError as error:
        _say(f"error: {error.describe()}")
        return ExitCode.BAD_INPUT


def _check_working_folder() -> None:
    """Refuse to start in a working folder that was deleted (relative paths, worker processes
    and output folders would fail later, each in its own way)."""
    import os

    from bdi_supervisor.errors import InputError

    try:
        os.getcwd()
    except FileNotFoundError:
        raise InputError("the current folder no longer exists (was it deleted?)",
                         expected="to be run from an existing folder") from None


def _say(line: str) -> None:
    """``line`` on stderr (its control characters escaped: it quotes input), unless stderr
    cannot take it (closed pipe, full device)."""
    from bdi_supervisor.limits import printable

    try:
        print(printable(line), file=sys.stderr, flush=True)
    except OSError:
        streams.silence(sys.stderr)


def _stream_error(error: OSError) -> int:
    """The exit code for an error writing stdout or stderr (re-raised when it is another)."""
    from bdi_supervisor.outpaths import FULL_DEVICE, write_error

    if streams.broken_pipe(error):
        streams.silence(sys.stdout, sys.stderr)
        return ExitCode.BROKEN_PIPE
    if error.errno in FULL_DEVICE and error.filename is None:
        message = write_error(error, streams.where(sys.stdout)).describe()
        streams.silence(sys.stdout)
        _say(f"error: {message}")
        return ExitCode.BAD_INPUT
    if error.errno in (errno.EMFILE, errno.ENFILE):
        _say(f"error: {_too_many_files(error)}")
        return ExitCode.BAD_INPUT
    raise error


def _too_many_files(error: OSError) -> str:
    """The message for running out of file descriptors (this process's or the system's)."""
    if error.errno == errno.ENFILE:
        return "too many open files in the system; expected fewer processes or files open"
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return "too many open files; expected a higher limit (ulimit -n)"
    return (f"too many open files (this process may open {soft}); expected a higher limit "
            f"(ulimit -n) or fewer --workers")
