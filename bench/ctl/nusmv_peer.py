"""NuSMV as a peer of the CTL-BDI checker: the grid beer robot's product as an SMV model.

The model is the product our checker works on, coded the same way (``bdi_monitor/models/
grid_rules.py``): the current world ``w``, one shared cell (``x``, ``y`` as unsigned words, so
a move is a bit-level increment), each world's holding bit ``h_j``, the automaton's flags (door
seen, fridge variant looked into), and the edge kind as an input variable ``e`` (the five
directions and the three modal relations B, D, I). A direction moves the cell and updates the
bits by the grid's rules with the world unchanged; a modal edge keeps every state bit and moves
the world to a target of the relation's output at the current flags. ``bel br`` and ``bb`` are
DEFINEs computed from the same belief tables (``bdi_monitor/models/beer.py``).

NuSMV's path quantifiers range over both edge kinds (its CTL cannot restrict a path to the
temporal edges); on the benchmark's two properties the verdicts are the same as ours, and the
bench checks that they are. The order file follows ours: world bits, the flag and holding bits,
then x and y interleaved, most significant bit first (NuSMV keeps every next bit beside its
current bit); the edge-kind bits go where our direction bits are.

NuSMV is not shipped or built here: give its executable with ``--nusmv PATH`` or put ``NuSMV``
on PATH (the bench skips the peer and says so when there is none).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from bdi_monitor.models.beer import believed, desired, intended
from bdi_monitor.models.grid_layout import make_layout, world_facts

KINDS = ("north", "east", "south", "west", "stay", "B", "D", "I")
_PICK = {"B": believed, "I": intended}


def find_nusmv(given: str | None) -> str | None:
    """The NuSMV executable: ``given``, else ``NuSMV`` on PATH, else None."""
    if given:
        return given if Path(given).is_file() else None
    return shutil.which("NuSMV")


def _cell_is(x: str, y: str, cell: tuple[int, int], width: int) -> str:
    return f"({x} = 0ud{width}_{cell[0]} & {y} = 0ud{width}_{cell[1]})"


def _targets(relation: str, facts, i: int, looked: bool, door: bool) -> list[int]:
    if relation == "D":
        return desired(facts, i)
    return _PICK[relation](facts, i, looked, door)


def model(n: int, worlds: int) -> tuple[str, str]:
    """The SMV model and the variable order file of the n×n grid with ``worlds`` worlds."""
    if n & (n - 1) or n < 2:
        raise ValueError("the NuSMV model needs a power-of-two grid size")
    layout = make_layout(n, worlds)
    facts = world_facts(worlds)
    width = n.bit_length() - 1
    variants = len(layout.fridges)
    lines = ["MODULE main", "VAR", f"  w : 0..{worlds - 1};"]
    lines += ["  fd : boolean;"] + [f"  fv{v} : boolean;" for v in range(variants)]
    lines += [f"  h{j} : boolean;" for j in range(worlds)]
    lines += [f"  x : unsigned word[{width}];", f"  y : unsigned word[{width}];"]
    lines += ["IVAR", f"  e : {{{', '.join(KINDS)}}};", "DEFINE"]
    top = f"0ud{width}_{n - 1}"
    lines += [
        f"  nx := case e = east & x < {top} : x + 0ud{width}_1;"
        f" e = west & x > 0ud{width}_0 : x - 0ud{width}_1; TRUE : x; esac;",
        f"  ny := case e = north & y < {top} : y + 0ud{width}_1;"
        f" e = south & y > 0ud{width}_0 : y - 0ud{width}_1; TRUE : y; esac;",
        "  modal := e in {B, D, I};",
        f"  at_lounge := {_cell_is('x', 'y', layout.lounge, width)};",
        f"  leaves_lounge := at_lounge & !{_cell_is('nx', 'ny', layout.lounge, width)};",
        "  holding := " + " | ".join(f"(w = {j} & h{j})" for j in range(worlds)) + ";",
        "  bb := at_lounge & holding;",
        "  bel_br := " + _bel_br(facts) + ";",
        "ASSIGN",
        "  init(w) := 0;",
        f"  init(x) := 0ud{width}_{layout.lounge[0]};",
        f"  init(y) := 0ud{width}_{layout.lounge[1]};",
        "  init(fd) := FALSE;",
        *[f"  init(fv{v}) := FALSE;" for v in range(variants)],
        *[f"  init(h{j}) := FALSE;" for j in range(worlds)],
        "  next(x) := nx;",
        "  next(y) := ny;",
        f"  next(fd) := modal ? fd : fd | {_cell_is('nx', 'ny', layout.door, width)};",
    ]
    for v, cell in enumerate(layout.fridges):
        lines.append(f"  next(fv{v}) := modal ? fv{v} : fv{v} | "
                     f"{_cell_is('nx', 'ny', cell, width)};")
    for j, fact in enumerate(facts):
        gain = f" | {_cell_is('nx', 'ny', layout.fridges[fact.variant], width)}" if fact.br else ""
        lines.append(f"  next(h{j}) := modal ? h{j} : (h{j} & !leaves_lounge){gain};")
    lines.append("  next(w) := case")
    for relation in ("B", "D", "I"):
        for i, fact in enumerate(facts):
            for looked in (False, True):
                for door in (False, True):
                    targets = _targets(relation, facts, i, looked, door)
                    guard = (f"e = {relation} & w = {i} & {'' if looked else '!'}fv{fact.variant}"
                             f" & {'' if door else '!'}fd")
                    lines.append(f"    {guard} : {{{', '.join(map(str, targets))}}};")
    lines += ["    TRUE : w;", "  esac;",
              "SPEC AG (bel_br -> EF bb)", "SPEC AG (bel_br -> AF bb)", ""]
    order = _order(worlds, variants, width)
    return "\n".join(lines), "\n".join(order) + "\n"


def _bel_br(facts) -> str:
    """``bel br``: every world believed at the current world and flags has beer."""
    cases = []
    for i, fact in enumerate(facts):
        for looked in (False, True):
            for door in (False, True):
                holds = all(facts[j].br for j in believed(facts, i, looked, door))
                cases.append(f"w = {i} & {'' if looked else '!'}fv{fact.variant} & "
                             f"{'' if door else '!'}fd : {'TRUE' if holds else 'FALSE'};")
    return "case " + " ".join(cases) + " esac"


def _order(worlds: int, variants: int, width: int) -> list[str]:
    w_bits = max((worlds - 1).bit_length(), 1)
    order = [f"w.{b}" for b in range(w_bits - 1, -1, -1)]
    order += ["e.2", "e.1", "e.0", "fd", *[f"fv{v}" for v in range(variants)]]
    order += [f"h{j}" for j in range(worlds)]
    for b in range(width - 1, -1, -1):
        order += [f"x.{b}", f"y.{b}"]
    return order


_REACHABLE = re.compile(r"reachable states: ([0-9.e+]+) ")
_VERDICT = re.compile(r"-- specification .* is (true|false)")


def parse_output(text: str) -> dict:
    """Verdicts (in SPEC order) and the reachable-state count from NuSMV's output."""
    reach = _REACHABLE.search(text)
    return {"verdicts": [v == "true" for v in _VERDICT.findall(text)],
            "nodes": round(float(reach.group(1))) if reach else None}


def write(folder: Path, n: int, worlds: int) -> tuple[Path, Path]:
    """Write ``gridN_W.smv`` and its order file into ``folder``."""
    text, order = model(n, worlds)
    smv = folder / f"grid{n}_{worlds}.smv"
    ordfile = folder / f"grid{n}_{worlds}.ord"
    smv.write_text(text)
    ordfile.write_text(order)
    return smv, ordfile


#: NuSMV's transition relation: monolithic, the fastest of its methods on this model (its
#: default threshold partitioning, ``-thresh 10000`` and ``-iwls95 1000`` took 1.4-2× as long
#: at n = 256 and 1024 with 8 worlds)
PARTITIONING = ("-mono",)


def command(nusmv: str, smv: Path, ordfile: Path | None) -> list[str]:
    """NuSMV on the model: reachable states counted, no counterexamples, the monolithic
    relation (:data:`PARTITIONING`), our order if given."""
    args = [nusmv, "-r", "-dcx", *PARTITIONING]
    if ordfile is not None:
        args += ["-i", str(ordfile)]
    return [*args, str(smv)]
