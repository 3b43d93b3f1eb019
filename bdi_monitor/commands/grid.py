"""``bdi-monitor grid --size N [--worlds M] [--obstacles wall|none|random:SEED] -o MODEL.yaml``.

Writes the grid beer robot (the seed's benchmark, generalized) as a structure file (JSON when
the name ends in ``.json``). ``bdi-monitor check grid:n=N,...`` checks the same model without a
file, from the generator's rules.
"""

from __future__ import annotations

import argparse

from bdi_supervisor.common import ExitCode
from bdi_supervisor.errors import InputError
from bdi_supervisor.helptext import examples


def _cell(text: str) -> tuple[int, int]:
    try:
        x, y = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Y (two integers), got {text!r}") from None
    return x, y


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "grid", help="generate the grid beer-robot structure",
        description="Generate the n×n grid beer robot (directions north, east, south, west, "
                    "stay; worlds over beer-in-fridge × person-at-door, further instances move "
                    "the fridge) as a structure file for 'bdi-monitor check'.")
    parser.epilog = examples(
        'bdi-monitor grid --size 8 --obstacles wall -o out/grid8.yaml',
        'bdi-monitor grid --size 64 --worlds 8 -o out/grid64.json')
    parser.add_argument("--size", type=int, required=True, help="grid side n (≥ 2)")
    parser.add_argument("--worlds", type=int, default=4,
                        help="number of world instances (default 4)")
    parser.add_argument("--obstacles", default="none",
                        help="wall (column n/2, rows 1..n-2), none (default) or random:SEED")
    parser.add_argument("--actual", type=int, default=1,
                        help="actual world, 1-based (default 1: beer, person at the door)")
    parser.add_argument("--lounge", type=_cell, help="lounge cell X,Y (default 0,0)")
    parser.add_argument("--door", type=_cell, help="door cell X,Y (default 0,n-1)")
    parser.add_argument("--fridge", type=_cell, help="fridge cell X,Y (default n-1,n-1)")
    parser.add_argument("-o", "--output", required=True,
                        help="structure file to write (YAML; JSON if it ends in .json, which "
                             "loads much faster)")
    parser.set_defaults(func=run)


def _check_size(size: int, worlds: int) -> None:
    """Refuse a grid whose file would be too large to write (saying why and what to do)."""
    from bdi_supervisor.limits import MAX_GRID_FILE_STATES

    if size < 2 or worlds < 1:
        raise InputError("grid too small", key="--size" if size < 2 else "--worlds",
                         found=str(size if size < 2 else worlds),
                         expected="--size of at least 2 and --worlds of at least 1")
    states = 2 * size * size * worlds
    if states > MAX_GRID_FILE_STATES:
        raise InputError(
            f"a {size}×{size} grid with {worlds} worlds has up to {states:,} world states; a "
            f"structure file holds at most {MAX_GRID_FILE_STATES:,} (n = 128 with 4 worlds, "
            "about half a gigabyte of memory while it is written)", key="--size",
            found=str(size), expected=f"a smaller grid, or no file: bdi-monitor check "
                                      f"grid:n={size},worlds={worlds} 'PROPERTY' builds it "
                                      "from the generator's rules")


def run(args: argparse.Namespace) -> int:
    from bdi_monitor import structure as structure_io
    from bdi_monitor.models.grid import grid_structure
    from bdi_supervisor.display import output_console
    from bdi_supervisor.outpaths import check_output_file

    _check_size(args.size, args.worlds)
    check_output_file(args.output, "structure file")
    console = output_console(stderr=True)
    with console.status(f"generating the {args.size}×{args.size} grid"):
        if args.worlds >= 1 and not 1 <= args.actual <= args.worlds:
            raise InputError("actual world out of range", key="--actual",
                             found=str(args.actual), expected=f"1..{args.worlds}")
        structure = grid_structure(args.size, args.worlds, args.obstacles, args.actual - 1,
                                   args.lounge, args.door, args.fridge)
    with console.status(f"writing {args.output}"):
        structure_io.dump(structure, args.output)
    states = sum(len(w.states) for w in structure.worlds)
    console.print(f"wrote {args.output}: {len(structure.worlds)} worlds, {states} world states, "
                  f"{len(structure.automata['B'].states)} belief-automaton states")
    return ExitCode.OK
