"""The command-line arguments several commands share, and what they mean as options.

- :func:`add_mission_argument`: the ``MISSION`` positional (a file or a shipped mission name).
- :func:`add_override_arguments` / :func:`overrides_from_args`: ``--encoding``, ``--liveness``,
  ``--pending/--no-pending`` over the mission's ``synthesis:`` section (``spec``, ``synthesize``,
  ``run``, ``explain``).
- :func:`add_solver_arguments` / :func:`solver_overrides` / :func:`options_from_args`: the
  solver's knobs (``solve``, ``synthesize``, ``explain``) as
  :class:`~bdi_supervisor.options.SynthesisOptions` fields.
- :func:`add_separation_arguments`: ``--check-separation [--core] [--json]`` (``spec``,
  ``solve``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bdi_supervisor.options import ENCODINGS, LIVENESS

if TYPE_CHECKING:
    from bdi_supervisor.options import SynthesisOptions


def add_mission_argument(parser: argparse.ArgumentParser) -> None:
    """The ``MISSION`` positional."""
    parser.add_argument("mission", metavar="MISSION",
                        help="mission file or shipped mission name (bdi-supervisor missions)")


#: the synthesis-section keys that :func:`add_override_arguments` overrides
OVERRIDES = ("encoding", "liveness", "pending")


def add_override_arguments(parser: argparse.ArgumentParser) -> None:
    """``--encoding``, ``--liveness``, ``--pending/--no-pending``: the mission's synthesis
    section overridden."""
    parser.add_argument("--encoding", choices=ENCODINGS,
                        help="activation encoding (default: the mission's)")
    parser.add_argument("--liveness", choices=LIVENESS,
                        help="liveness treatment (default: the mission's)")
    pending = parser.add_mutually_exclusive_group()
    pending.add_argument("--pending", dest="pending", action="store_true", default=None,
                         help="add pending memory for failure-capable capabilities")
    pending.add_argument("--no-pending", dest="pending", action="store_false",
                         help="no pending memory")


def overrides_from_args(args: argparse.Namespace) -> dict:
    """The overrides given by :func:`add_override_arguments` (only those on the command line)."""
    return {k: getattr(args, k) for k in OVERRIDES if getattr(args, k) is not None}


def command_line(command: str, args: argparse.Namespace, *extra: str) -> str:
    """The ``bdi-supervisor`` command line of ``command`` on the same mission with the same
    overrides (and ``--out`` where not the default) as ``args``, then ``extra``: what a message
    tells someone to run next."""
    import shlex

    words = ["bdi-supervisor", command, args.mission]
    for key in OVERRIDES:
        value = getattr(args, key, None)
        if isinstance(value, bool):
            words.append(f"--{key}" if value else f"--no-{key}")
        elif value is not None:
            words += [f"--{key}", str(value)]
    if getattr(args, "out", "out") != "out":
        words += ["--out", args.out]
    return shlex.join([*words, *extra])


def add_solver_arguments(parser: argparse.ArgumentParser) -> None:
    """The solver's knobs."""
    group = parser.add_argument_group("solver")
    group.add_argument("--order", choices=["as-written", "alphabetic", "random"], default=None,
                       help="BDD declaration order (default: as written)")
    group.add_argument("--seed", type=int, default=None, help="seed of --order random")
    group.add_argument("--no-reorder", action="store_true",
                       help="disable CUDD dynamic variable reordering")
    group.add_argument("--reorder-threshold", type=int, default=None, metavar="NODES",
                       help="sift when live nodes pass NODES (then at twice the size)")
    group.add_argument("--max-growth", type=float, default=None, metavar="FACTOR",
                       help="how much CUDD's sifting may grow the BDDs while it moves a "
                            "variable (default 1.05; CUDD's own is 1.2)")
    group.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                       help="give up (INCOMPLETE) after SECONDS")
    group.add_argument("--node-budget", type=int, default=None, metavar="NODES",
                       help="give up (INCOMPLETE) beyond NODES live BDD nodes")
    group.add_argument("--max-states", type=int, default=None, metavar="N",
                       help="give up (INCOMPLETE) beyond N explicit strategy states "
                            "(default 1000000)")
    group.add_argument("--no-recycling", action="store_true",
                       help="restart inner fixpoints from TRUE in every outer pass")
    group.add_argument("--safety-start", action="store_true",
                       help="start the fixpoints from the safety region instead of TRUE")
    group.add_argument("--all-states", action="store_true",
                       help="run the fixpoints over every state, not only the states "
                            "reachable from the initial ones (same verdict and strategy)")
    group.add_argument("--initial", choices=["all", "per-input"], default=None,
                       help="initial strategy states: all valuations (slugs) or one per input")


def solver_overrides(args: argparse.Namespace) -> dict:
    """The solver options given on the command line (:func:`add_solver_arguments`), as
    :class:`~bdi_supervisor.options.SynthesisOptions` fields; left-out flags are left out."""
    flags = {"order": args.order, "seed": args.seed, "reorder_threshold": args.reorder_threshold,
             "max_growth": args.max_growth, "time_budget": args.time_budget,
             "node_budget": args.node_budget, "max_states": args.max_states,
             "initial": args.initial,
             "reordering": False if args.no_reorder else None,
             "recycling": False if args.no_recycling else None,
             "safety_start": True if args.safety_start else None,
             "reachable": False if args.all_states else None}
    return {name: value for name, value in flags.items() if value is not None}


def options_from_args(args: argparse.Namespace) -> SynthesisOptions:
    """The options of ``solve``: the defaults with :func:`solver_overrides`, validated."""
    from bdi_supervisor.options import SynthesisOptions

    options = SynthesisOptions(**solver_overrides(args))
    options.validate("command line", "option")
    return options


def add_separation_arguments(parser: argparse.ArgumentParser, json_flag: bool = True) -> None:
    """``--check-separation [--core] [--json]`` (shared with ``solve``, which has its own
    --json)."""
    group = parser.add_argument_group("well-separation")
    group.add_argument("--check-separation", action="store_true",
                       help="diagnose well-separation of the env assumptions (Maoz & Ringert); "
                            "exit 1 if not well-separated or incomplete")
    group.add_argument("--core", action="store_true",
                       help="with --check-separation: compute a 1-minimal core of assumptions")
    if json_flag:
        group.add_argument("--json", action="store_true",
                           help="with --check-separation: print the well_separation.json record")
