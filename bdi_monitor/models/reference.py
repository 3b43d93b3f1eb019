"""Model references: a generator and its parameters instead of a structure file.

    grid:n=512,worlds=8,obstacles=wall,actual=2,fridge=500/511
    beer:actual=w3

``bdi-monitor check`` accepts a reference wherever it accepts a structure file: a large
generated model is then built from its rules (the grid's symbolic encoding), with no file to
write, read or parse. Parameters of ``grid`` (as for ``bdi-monitor grid``): ``n`` (or ``size``,
required), ``worlds`` (default 4), ``obstacles`` (``none``, ``wall``, ``random:SEED``),
``actual`` (1-based, default 1), ``lounge``, ``door``, ``fridge`` (cells ``X/Y``). Parameters
of ``beer``: ``actual`` (w1..w4).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from bdi_monitor.structure import Structure
from bdi_supervisor.errors import InputError

_REFERENCE = re.compile(r"^([a-z]+):(.*)$")


def _integer(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not re.fullmatch(r"[0-9]{1,7}", text) or int(text) < low:
            raise ValueError(f"an integer ≥ {low}")
        return int(text)
    return parse


def _cell(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"([0-9]{1,7})/([0-9]{1,7})", text)
    if not match:
        raise ValueError("a cell X/Y")
    return int(match.group(1)), int(match.group(2))


def _word(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_:]{1,40}", text):
        raise ValueError("a word of letters, digits, '_' or ':'")
    return text


def _grid(params: dict[str, Any]) -> Structure:
    from bdi_monitor.models.grid import grid_structure

    worlds = params.get("worlds", 4)
    actual = params.get("actual", 1)
    if not 1 <= actual <= worlds:
        raise InputError("actual world out of range", key="actual", found=str(actual),
                         expected=f"1..{worlds}")
    return grid_structure(params["n"], worlds, params.get("obstacles", "none"), actual - 1,
                          params.get("lounge"), params.get("door"), params.get("fridge"))


def _beer(params: dict[str, Any]) -> Structure:
    from bdi_monitor.models.beer import beer_structure

    actual = params.get("actual", "w1")
    if actual not in ("w1", "w2", "w3", "w4"):
        raise InputError("unknown world", key="actual", found=repr(actual),
                         expected="w1, w2, w3 or w4")
    return beer_structure(actual)


#: generator name -> (builder, {parameter: parser}, required parameters)
GENERATORS: dict[str, tuple[Callable[[dict[str, Any]], Structure],
                            dict[str, Callable[[str], Any]], tuple[str, ...]]] = {
    "grid": (_grid, {"n": _integer(2), "worlds": _integer(1), "obstacles": _word,
                     "actual": _integer(1), "lounge": _cell, "door": _cell, "fridge": _cell},
             ("n",)),
    "beer": (_beer, {"actual": _word}, ()),
}
_ALIASES = {"size": "n"}


def is_reference(text: str) -> bool:
    """Does ``text`` name a generator (``NAME:PARAMS``) rather than an existing file?"""
    match = _REFERENCE.match(text)
    return bool(match) and match.group(1) in GENERATORS and not os.path.exists(text)


def resolve(text: str) -> Structure:
    """Build the structure a reference names; :class:`InputError` (naming the reference and
    the parameter) on a bad one."""
    match = _REFERENCE.match(text)
    if not match or match.group(1) not in GENERATORS:
        raise InputError("not a model reference", file=text,
                         expected="NAME:KEY=VALUE,... with NAME one of " + ", ".join(GENERATORS))
    name, body = match.groups()
    build, parsers, required = GENERATORS[name]
    params: dict[str, Any] = {}
    for item in filter(None, body.split(",")):
        key, sep, value = item.partition("=")
        key = _ALIASES.get(key.strip(), key.strip())
        if not sep or key not in parsers:
            raise InputError("unknown parameter" if sep else "parameter without a value",
                             file=text, key=key, found=repr(item),
                             expected="one of " + ", ".join(f"{p}=..." for p in parsers))
        if key in params:
            raise InputError("parameter given twice", file=text, key=key)
        try:
            params[key] = parsers[key](value.strip())
        except ValueError as error:
            raise InputError("bad parameter value", file=text, key=key, found=repr(value),
                             expected=str(error)) from None
    for key in required:
        if key not in params:
            raise InputError("missing parameter", file=text, key=key,
                             expected=f"{key}=... (e.g. {name}:{key}=8)")
    try:
        return build(params)
    except InputError as error:
        raise error.at(file=text) from None


def load_model(text: str) -> Structure:
    """A structure from a file (YAML or JSON, :func:`bdi_monitor.structure.load`) or from a
    model reference."""
    if is_reference(text):
        return resolve(text)
    from bdi_monitor.structure import load

    return load(text)
