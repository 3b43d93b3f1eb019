"""Limits on what the tools read, and short excerpts of user input for error messages.

One place for the numbers (``docs/reliability.md`` lists them for users):

- :data:`DEFAULT_MAX_INPUT_BYTES` — the largest input file read (64 MiB). A user raises it
  with the ``--max-input-size SIZE`` option of ``bdi-supervisor``/``bdi-monitor`` or the
  environment variable ``BDI_MAX_INPUT_SIZE`` (``200M``, ``2G``, a byte count, at most
  :data:`MAX_SIZE`); the option wins. Files are read in chunks up to the limit, so a large
  limit costs no memory of its own.
- :data:`MAX_ALIAS_NODES` — how many nodes YAML aliases may add to a document beyond the nodes
  written in it (100,000; ``BDI_MAX_ALIAS_NODES``), so a 1 KB "billion laughs" file fails fast.
- :data:`MAX_DATA_DEPTH` — nesting of YAML and JSON documents (100 levels; fixed).
- :data:`MAX_FORMULA_DEPTH` — nesting of formulas (structuredslugs, slugsin, catalog and mission
  formulas, CTL-BDI properties): 200 levels of operators and parentheses (fixed). Both depth
  limits protect the Python stack of every stage that walks the tree.
- :data:`MAX_RECORD_BYTES` — one BDI-state record (a JSON line) the monitor reads: 1 MiB; a
  longer line is counted as malformed and skipped without being held in memory.
- :data:`MAX_GRID_FILE_STATES` — world states of a grid structure ``bdi-monitor grid`` writes
  as a file (131,072: n = 128 with 4 worlds, about half a gigabyte while it is written); larger
  grids are checked from the generator's rules without a file (``check grid:n=N``).
- :data:`MAX_FORMULA_NODES` — a slugsin formula whose ``?`` references expand it beyond
  a million nodes is refused (every later stage walks the expanded tree).
- :data:`MAX_SWEEP_TRIALS` — trials of one sweep grid (100,000): the product of the axes is
  counted before any trial is built.
- :data:`MAX_INT_DIGITS` — an integer in any input (a JSON or YAML number, a numeral in a
  formula, a range bound) has at most 4,300 decimal digits, Python's own limit for text to
  integer, fixed here whatever ``PYTHONINTMAXSTRDIGITS`` says; :func:`numeral` reads one,
  :func:`int_fits` checks a value built another way (YAML's ``0x``/``0b`` or ``1:30`` forms).

:func:`excerpt` shortens the offending text an error message quotes; :func:`printable` escapes
the control characters of input text before it is shown (a catalog's text could otherwise
retitle, recolour or rewrite the operator's terminal).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Iterator

DEFAULT_MAX_INPUT_BYTES = 64 * 2**20
DEFAULT_MAX_ALIAS_NODES = 100_000
MAX_DATA_DEPTH = 100
MAX_FORMULA_DEPTH = 200
MAX_FORMULA_NODES = 1_000_000
MAX_GRID_FILE_STATES = 131_072
MAX_INT_DIGITS = 4300
#: trials of one sweep grid (counted before the grid is built)
MAX_SWEEP_TRIALS = 100_000
_INT_BOUND = 10**MAX_INT_DIGITS
#: one message of the live monitor (a BDI-state JSON line): larger ones are counted malformed
MAX_RECORD_BYTES = 2**20
#: characters of user input an error message quotes at most
EXCERPT_CHARS = 60

INPUT_SIZE_ENV = "BDI_MAX_INPUT_SIZE"
ALIAS_NODES_ENV = "BDI_MAX_ALIAS_NODES"

_override_bytes: int | None = None
_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20,
          "MIB": 2**20, "G": 2**30, "GB": 2**30, "GIB": 2**30, "T": 2**40, "TB": 2**40,
          "TIB": 2**40}
#: the largest size :func:`parse_size` takes (the input limit, the alias-node limit)
MAX_SIZE = 2**40
#: bytes read from an input file at a time (a file is read up to the limit, never allocated
#: at the limit's size)
READ_CHUNK = 2**20
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*\Z")


def parse_size(text: str) -> int:
    """``"64M"`` → 67108864 (units B, K, M, G, binary); ValueError when not a size."""
    match = _SIZE.match(str(text))
    if not match or match.group(2).upper() not in _UNITS:
        raise ValueError(f"not a size: {excerpt(text)} (expected e.g. 200M, 2G or a byte count)")
    value = float(match.group(1)) * _UNITS[match.group(2).upper()]
    if not value <= MAX_SIZE:  # also infinity, from a long numeral
        raise ValueError(f"too large a size: {excerpt(text)} (at most {size_text(MAX_SIZE)})")
    if int(value) < 1:
        raise ValueError(f"not a positive size: {excerpt(text)}")
    return int(value)


def set_max_input_bytes(value: int | None) -> None:
    """Override the input size limit for this process (None: back to env/default)."""
    global _override_bytes
    _override_bytes = value


def max_input_bytes() -> int:
    """The input size limit: the override, else ``BDI_MAX_INPUT_SIZE``, else 64 MiB."""
    if _override_bytes is not None:
        return _override_bytes
    return _from_env(INPUT_SIZE_ENV, DEFAULT_MAX_INPUT_BYTES, parse_size)


def max_alias_nodes() -> int:
    """Nodes YAML aliases may add to a document (``BDI_MAX_ALIAS_NODES``, default 100,000)."""
    return _from_env(ALIAS_NODES_ENV, DEFAULT_MAX_ALIAS_NODES, lambda t: int(parse_size(t)))


def _from_env(name: str, default: int, parse) -> int:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return parse(text)
    except ValueError as error:
        from bdi_supervisor.errors import InputError

        raise InputError(f"bad value in the environment: {error}", key=name,
                         expected=f"a positive size such as 200M, at most "
                                  f"{size_text(MAX_SIZE)}") from None


def numeral(text: str) -> int:
    """The value of an ASCII decimal numeral (``-`` allowed first) of at most
    :data:`MAX_INT_DIGITS` digits; ValueError saying what is wrong otherwise (Python's ``int``
    also takes other scripts' digits, ``_`` and spaces, and fails on long ones)."""
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"not a decimal number: {excerpt(text)}")
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(long_number(len(digits)))
    return int(text)


def long_number(digits: int) -> str:
    """The message for an integer literal of ``digits`` digits, over :data:`MAX_INT_DIGITS`."""
    return f"a number of {digits:,} digits (at most {MAX_INT_DIGITS:,} are read)"


def int_fits(value: int) -> bool:
    """True when ``value`` has at most :data:`MAX_INT_DIGITS` decimal digits."""
    return -_INT_BOUND < value < _INT_BOUND


def size_text(count: int) -> str:
    """``67108864`` → ``64 MiB``."""
    for unit, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= factor:
            return f"{count / factor:.3g} {unit}"
    return f"{count} bytes"


def excerpt(text: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr`` of ``text`` cut to about ``limit`` characters, saying how long it was."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


#: characters never shown as they are: C0 and C1 controls (escape sequences, bell, carriage
#: return...) but newline and tab, DEL, and the bidirectional overrides that reorder a line
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """``text`` with every control character written as its escape (``\\x1b``, ``\\u202e``);
    newlines and tabs stay."""
    return _UNPRINTABLE.sub(_escape, str(text))


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def positive_finite(value: object) -> bool:
    """True for an int/float that is finite and > 0 (never for bool, NaN or infinity)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def non_negative_finite(value: object) -> bool:
    """True for an int/float that is finite and >= 0 (never for bool or NaN)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


@contextlib.contextmanager
def recursion_headroom(frames: int) -> Iterator[None]:
    """Let a depth-checked recursive parser use ``frames`` more Python frames than now.

    The callers bound their own depth (:data:`MAX_FORMULA_DEPTH`) first, so the raised limit is
    never reached by hostile input; the old limit comes back afterwards unless someone else
    changed it meanwhile.
    """
    old = sys.getrecursionlimit()
    wanted = _stack_depth() + frames
    if wanted <= old:
        yield
        return
    sys.setrecursionlimit(wanted)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == wanted:
            sys.setrecursionlimit(old)


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


class Heights:
    """Heights (and expanded sizes) of the syntax trees a parser builds, so it can refuse one
    taller than :data:`MAX_FORMULA_DEPTH` at the token that made it so. Chains of
    left-associative operators grow trees without nesting the parser, and shared sub-formulas
    (slugsin's ``$``/``?`` buffers) grow the expanded tree without growing the text; both are
    caught here, without recursion."""

    def __init__(self, children) -> None:
        self._children = children
        # id -> (node, height, size): the node is kept alive so that its id is never reused
        self._known: dict[int, tuple[object, int, int]] = {}

    def of(self, node: object) -> int:
        """Height of ``node`` (1 for a leaf); computed once per node."""
        return self._entry(node)[1]

    def size(self, node: object) -> int:
        """Nodes of the expanded tree of ``node`` (shared sub-trees counted at every use)."""
        return self._entry(node)[2]

    def _entry(self, node: object) -> tuple[object, int, int]:
        known = self._known.get(id(node))
        if known is not None:
            return known
        if not self._children(node):
            return node, 1, 1
        stack, order = [node], []
        while stack:
            current = stack.pop()
            if id(current) in self._known:
                continue
            order.append(current)
            stack.extend(self._children(current))
        for current in reversed(order):
            self.note(current)
        return self._known[id(node)]

    def note(self, node: object, height: int | None = None) -> int:
        """Record a node just built (its children are known) and return its height
        (``height`` given: a node with the shape of one already known, e.g. a primed copy)."""
        parts = [self._entry(c) for c in self._children(node)]
        size = 1 + sum(p[2] for p in parts)
        if height is None:
            height = 1 + max((p[1] for p in parts), default=0)
        self._known[id(node)] = (node, height, size)
        return height
