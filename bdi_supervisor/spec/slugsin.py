"""slugs' compiled input format (*slugsin*): Boolean variables, prefix formulas.

Public API:

- :func:`to_boolean` — bit-blast a :class:`GR1Spec` with bounded integers into an equivalent
  Boolean one, with slugs' encoding: integer ``x:low...high`` becomes bits ``x@0.low.high``,
  ``x@1``, … (least significant first) holding ``value - low`` in the fewest ``b`` bits with
  ``2**b > high - low``; when the range size is not a power of two, ``## Variable limits:`` clauses
  go to the owner's INIT (current state) and TRANS (current and next state), as slugs' compiler
  writes them in its thorough mode.
- :func:`format_slugsin` — slugsin text of any spec (calls :func:`to_boolean`).
- :func:`parse_slugsin` — read slugsin (``$ N ...`` memory buffers with ``? i`` references,
  ``##`` comment lines naming the next clause); bit groups ``x@0.low.high, x@1, …`` are folded back
  into integer variables (formulas then compare ``x``), otherwise kept as Booleans.
- :func:`format_prefix` / :func:`parse_prefix` — one formula.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import (
    MAX_FORMULA_DEPTH,
    MAX_FORMULA_NODES,
    Heights,
    excerpt,
    numeral,
    printable,
)
from bdi_supervisor.spec.formula import (
    FALSE,
    TRUE,
    Add,
    And,
    Compare,
    Const,
    Formula,
    Iff,
    Implies,
    Not,
    Num,
    Or,
    Term,
    Var,
    Xor,
    children,
    conj,
    disj,
    eq,
    map_vars,
    variables,
)
from bdi_supervisor.spec.gr1 import SECTION_HEADERS, SECTIONS, Clause, GR1Spec, Origin, Variable
from bdi_supervisor.spec.sections import Line, section_lines

LIMITS_COMMENT = "Variable limits:"

# ---------------------------------------------------------------- bit encoding


def bit_names(var: Variable) -> list[str]:
    """slugs' bit variable names of an integer variable (the first carries the range)."""
    if var.kind != "int":
        return [var.name]
    return [f"{var.name}@{i}" + (f".{var.low}.{var.high}" if i == 0 else "")
            for i in range(var.bits)]


def _not(a: Formula) -> Formula:
    if isinstance(a, Const):
        return Const(not a.value)
    return a.arg if isinstance(a, Not) else Not(a)


def _and(a: Formula, b: Formula) -> Formula:
    if a == FALSE or b == FALSE:
        return FALSE
    if a == TRUE:
        return b
    if b == TRUE:
        return a
    return conj([a, b])


def _or(a: Formula, b: Formula) -> Formula:
    if a == TRUE or b == TRUE:
        return TRUE
    if a == FALSE:
        return b
    if b == FALSE:
        return a
    return disj([a, b])


def _xor(a: Formula, b: Formula) -> Formula:
    if isinstance(a, Const):
        return _not(b) if a.value else b
    if isinstance(b, Const):
        return _not(a) if b.value else a
    return Xor(a, b)


def _constant_bits(value: int) -> list[Formula]:
    bits: list[Formula] = []
    while value:
        bits.append(TRUE if value & 1 else FALSE)
        value >>= 1
    return bits


def _add(a: list[Formula], b: list[Formula]) -> list[Formula]:
    """Ripple-carry sum of two little-endian bit vectors (one bit wider than the longer)."""
    width = max(len(a), len(b))
    a = a + [FALSE] * (width - len(a))
    b = b + [FALSE] * (width - len(b))
    carry: Formula = FALSE
    out: list[Formula] = []
    for x, y in zip(a, b):
        half = _xor(x, y)
        out.append(_xor(half, carry))
        carry = _or(_and(x, y), _and(carry, half))
    if carry != FALSE:
        out.append(carry)
    return out


def _flatten(term: Term, ints: Mapping[str, Variable]) -> tuple[list[list[Formula]], int]:
    """Bit vectors (without offsets) and the constant part of a sum."""
    if isinstance(term, Num):
        return [], term.value
    if isinstance(term, Var):
        var = ints.get(term.name)
        if var is None:
            raise InputError(f"'{term.name}' is not a declared integer variable",
                             found=term.name, expected="an integer variable")
        return [[Var(n, term.primed) for n in bit_names(var)]], var.low
    if isinstance(term, Add):
        lv, lc = _flatten(term.left, ints)
        rv, rc = _flatten(term.right, ints)
        return lv + rv, lc + rc
    raise TypeError(f"not an integer term: {term!r}")


def _sum(vectors: list[list[Formula]], constant: int) -> list[Formula]:
    total: list[Formula] = _constant_bits(constant)
    for vector in vectors:
        total = _add(total, vector)
    return total


def _less(a: list[Formula], b: list[Formula], strict: bool) -> Formula:
    width = max(len(a), len(b))
    a = a + [FALSE] * (width - len(a))
    b = b + [FALSE] * (width - len(b))
    result: Formula = FALSE if strict else TRUE
    for x, y in zip(a, b):
        result = _or(_and(_not(x), y), _and(_or(_not(x), y), result))
    return result


def _equal(a: list[Formula], b: list[Formula]) -> Formula:
    width = max(len(a), len(b))
    a = a + [FALSE] * (width - len(a))
    b = b + [FALSE] * (width - len(b))
    result: Formula = TRUE
    for x, y in zip(a, b):
        result = _and(result, _not(_xor(x, y)))
    return result


def compare_bits(node: Compare, ints: Mapping[str, Variable]) -> Formula:
    """A Boolean formula over slugs' bit variables equivalent to an integer comparison."""
    lv, lc = _flatten(node.left, ints)
    rv, rc = _flatten(node.right, ints)
    shift = min(lc, rc)  # move the constants to one side; keeps negative lows working
    left, right = _sum(lv, lc - shift), _sum(rv, rc - shift)
    op = node.op
    if op == "=":
        return _equal(left, right)
    if op == "!=":
        return _not(_equal(left, right))
    if op in ("<", "<="):
        return _less(left, right, strict=op == "<")
    return _less(right, left, strict=op == ">")


def _blast(node: Formula, ints: Mapping[str, Variable]) -> Formula:
    if isinstance(node, Compare):
        return compare_bits(node, ints)
    if isinstance(node, (Const, Var)):
        return node
    if isinstance(node, Not):
        return Not(_blast(node.arg, ints))
    if isinstance(node, (And, Or)):
        return type(node)(tuple(_blast(a, ints) for a in node.args))
    return type(node)(_blast(node.left, ints), _blast(node.right, ints))  # type: ignore[call-arg]


def limit_formula(var: Variable, primed: bool) -> Formula:
    """slugs' range clause ``value - low < high - low + 1`` over the bits (exact compiler shape)."""
    size = var.high - var.low + 1
    result: Formula = FALSE
    for i, name in enumerate(bit_names(var)):
        literal = Not(Var(name, primed))
        result = Or((literal, result)) if size >> i & 1 else And((literal, result))
    return result


def needs_limits(var: Variable) -> bool:
    return var.kind == "int" and 2 ** var.bits != var.high - var.low + 1


def to_boolean(spec: GR1Spec) -> GR1Spec:
    """The same spec over Boolean bit variables only (slugs' encoding and limit clauses)."""
    ints = {v.name: v for v in spec.variables if v.kind == "int"}
    out = GR1Spec(name=spec.name, notes=dict(spec.notes))
    for var in spec.variables:
        if var.kind == "bool":
            out.variables.append(var)
        else:
            out.variables += [Variable(n, var.owner, comment=var.comment if i == 0 else "")
                              for i, n in enumerate(bit_names(var))]
    for section in SECTIONS:
        target = out.section(section)
        for clause in spec.section(section):
            target.append(Clause(_blast(clause.formula, ints), clause.origin, clause.comment))
    for var in ints.values():
        if not needs_limits(var):
            continue
        side = "env" if var.owner == "env" else "sys"
        origin = Origin("encoding", rule="variable-limits", key=var.name)
        now = f"{LIMITS_COMMENT} {var.low}<={var.name}<={var.high}"
        nxt = f"{LIMITS_COMMENT} {var.low}<={var.name}'<={var.high}"
        out.section(f"{side}_init").append(Clause(limit_formula(var, False), origin, now))
        out.section(f"{side}_safety").append(Clause(limit_formula(var, False), origin, now))
        out.section(f"{side}_safety").append(Clause(limit_formula(var, True), origin, nxt))
    return out


# ---------------------------------------------------------------- prefix text


def format_prefix(formula: Formula) -> str:
    """Prefix (Polish) text of a Boolean formula: ``| ! a b'``."""
    tokens: list[str] = []
    stack: list[Formula | str] = [formula]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            tokens.append(node)
        elif isinstance(node, Const):
            tokens.append("1" if node.value else "0")
        elif isinstance(node, Var):
            tokens.append(node.name + ("'" if node.primed else ""))
        elif isinstance(node, Not):
            tokens.append("!")
            stack.append(node.arg)
        elif isinstance(node, (And, Or)):
            op = "&" if isinstance(node, And) else "|"
            tokens.extend([op] * (len(node.args) - 1))
            stack.extend(reversed(node.args))
        elif isinstance(node, Xor):
            tokens.append("^")
            stack.extend([node.right, node.left])
        elif isinstance(node, Implies):
            tokens.extend(["|", "!"])
            stack.extend([node.right, node.left])
        elif isinstance(node, Iff):
            tokens.extend(["!", "^"])
            stack.extend([node.right, node.left])
        elif isinstance(node, Compare):
            raise ValueError("integer comparison in prefix output; call to_boolean first")
        else:
            raise TypeError(f"not a formula: {node!r}")
    return " ".join(tokens)


class _PrefixError(Exception):
    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.message = message
        self.index = index


def _parse_tokens(tokens: list[str], names: Mapping[str, Variable] | None) -> Formula:
    """Prefix tokens to a formula, without recursion (slugsin nests ``& a & b c`` as deep as a
    clause is long); ``&``/``|`` chains are flattened and the flattened tree may be at most
    ``MAX_FORMULA_DEPTH`` high."""
    heights = Heights(children)
    buffers: list[list[Formula]] = []
    # open operators: [token, index of the token, operands so far, operands wanted]
    frames: list[list] = []
    pos = 0
    while True:
        if pos >= len(tokens):
            raise _PrefixError("formula ends too early", pos)
        token, at = tokens[pos], pos
        pos += 1
        value: Formula | None = None
        if token in ("&", "|") and frames and frames[-1][0] == token:
            frames[-1][3] += 1  # & a & b c: one flat conjunction (conj/disj would flatten it)
        elif token in ("!", "&", "|", "^"):
            frames.append([token, at, [], 1 if token == "!" else 2])
        elif token in ("0", "1"):
            value = Const(token == "1")
        elif token in ("$", "?"):
            try:
                count = numeral(tokens[pos] if pos < len(tokens) else "")
            except ValueError as error:
                raise _PrefixError(f"'{token}' needs a number after it: {error}", pos) from None
            if count < 0:
                raise _PrefixError(f"'{token}' needs a number after it", pos)
            pos += 1
            if token == "?":
                if not buffers or count >= len(buffers[-1]):
                    raise _PrefixError(f"'? {count}' refers to no earlier buffer entry", pos - 2)
                value = buffers[-1][count]
            elif count == 0:
                raise _PrefixError("empty memory buffer '$ 0'", pos - 2)
            else:
                buffers.append([])
                frames.append(["$", at, [], count])
        else:
            name = token[:-1] if token.endswith("'") else token
            if not _BOOL_NAME.fullmatch(name):
                raise _PrefixError(f"unexpected token '{token}'", at)
            if names is not None and (name not in names or names[name].kind != "bool"):
                raise _PrefixError(f"undeclared Boolean variable '{name}'", at)
            value = Var(name, token.endswith("'"))
        while value is not None:
            if not frames:
                if pos != len(tokens):
                    raise _PrefixError("text after a complete formula", pos)
                return value
            frame = frames[-1]
            frame[2].append(value)
            if frame[0] == "$":
                buffers[-1].append(value)
            if len(frame[2]) < frame[3]:
                break
            frames.pop()
            value = _combine(frame[0], frame[2], buffers)
            if heights.note(value) > MAX_FORMULA_DEPTH:
                raise _PrefixError(f"formula nested deeper than {MAX_FORMULA_DEPTH} levels "
                                   "(after flattening & and | chains)", frame[1])
            if heights.size(value) > MAX_FORMULA_NODES:
                raise _PrefixError(f"'?' references expand the formula beyond "
                                   f"{MAX_FORMULA_NODES:,} nodes", frame[1])


_BOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.@]*")


def _combine(op: str, operands: list[Formula], buffers: list[list[Formula]]) -> Formula:
    if op == "!":
        return Not(operands[0])
    if op == "&":
        return conj(operands)
    if op == "|":
        return disj(operands)
    if op == "^":
        return Xor(operands[0], operands[1])
    buffers.pop()  # "$": the block's value is its last entry
    return operands[-1]


def _column(text: str, index: int) -> int:
    """1-based column of the ``index``-th whitespace-separated token of ``text``."""
    spans = [m.start() + 1 for m in re.finditer(r"\S+", text)]
    return spans[index] if index < len(spans) else len(text) + 1


def parse_prefix(text: str, *, names: Mapping[str, Variable] | None = None,
                 file: str | None = None, line: int | None = None) -> Formula:
    """One prefix formula (``$``/``?`` buffers allowed). Errors carry line and column."""
    tokens = text.split()
    try:
        return _parse_tokens(tokens, names)
    except _PrefixError as error:
        found = tokens[error.index] if error.index < len(tokens) else "end of formula"
        raise InputError(f"malformed slugsin formula {excerpt(text.strip())}: {error.message}",
                         file=file, line=line, column=_column(text, error.index),
                         found=found) from None


def try_parse_prefix(text: str, names: Mapping[str, Variable]) -> Formula | None:
    """The formula if ``text`` is a valid prefix formula over declared Booleans, else ``None``."""
    tokens = text.split()
    if not tokens:
        return None
    try:
        return _parse_tokens(tokens, names)
    except _PrefixError:
        return None


# ---------------------------------------------------------------- whole files

_BIT0 = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z0-9_]*)@0\.(?P<low>-?[0-9]+)\.(?P<high>-?[0-9]+)$")
_FOLD_LIMIT = 1024  # larger ranges stay as bits (the folded formulas would be too long)


def _fold_groups(variables: list[Variable]) -> dict[str, Variable]:
    """Integer variables recoverable from bit groups, keyed by base name."""
    by_name = {v.name: v for v in variables}
    groups: dict[str, Variable] = {}
    for var in variables:
        match = _BIT0.match(var.name)
        if not match:
            continue
        try:
            base, low, high = match["base"], numeral(match["low"]), numeral(match["high"])
        except ValueError:  # bounds too long to be a range: plain Boolean names
            continue
        if high < low or high - low >= _FOLD_LIMIT or base in by_name:
            continue
        candidate = Variable(base, var.owner, "int", low, high)
        rest = [f"{base}@{i}" for i in range(1, candidate.bits)]
        if all(n in by_name and by_name[n].owner == var.owner for n in rest):
            groups[base] = candidate
    return groups


def _fold_formula(formula: Formula, bits: Mapping[str, tuple[Variable, int]]) -> Formula:
    def replace(leaf: Var) -> Formula:
        hit = bits.get(leaf.name)
        if hit is None:
            return leaf
        var, index = hit
        return disj(eq(var.name, v, leaf.primed) for v in var.values if (v - var.low) >> index & 1)

    return map_vars(formula, replace)  # type: ignore[return-value]




def parse_slugsin(text: str, *, file: str | None = None, name: str | None = None,
                  fold_integers: bool = True) -> GR1Spec:
    """Read a slugsin file. Clauses get ``Origin("file", line=N)`` and the ``##`` text as
    comment."""
    spec = GR1Spec(name=name or (Path(file).stem if file else "spec"))
    entries: list[Line] = []
    seen: set[str] = set()
    for line in section_lines(text, file=file):
        if line.owner is None:
            entries.append(line)
            continue
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.@]*", line.body):
            raise InputError("malformed variable name", file=file, line=line.number, column=1,
                             found=repr(line.body), expected="a Boolean variable name")
        if line.body in seen:
            raise InputError(f"variable '{line.body}' declared twice", file=file,
                             line=line.number, found=line.body, expected="a new name")
        seen.add(line.body)
        spec.variables.append(Variable(line.body, line.owner))
    names = {v.name: v for v in spec.variables}
    clauses = [(e.section, Clause(parse_prefix(e.body, names=names, file=file, line=e.number),
                                  Origin("file", file=file, line=e.number), e.comment))
               for e in entries]
    groups = _fold_groups(spec.variables) if fold_integers else {}
    if groups:
        bits: dict[str, tuple[Variable, int]] = {}
        for var in groups.values():
            for i, bit in enumerate(bit_names(var)):
                bits[bit] = (var, i)
        folded: list[Variable] = []
        for var in spec.variables:
            if var.name in bits:
                group, index = bits[var.name]
                if index == 0:
                    folded.append(group)
            else:
                folded.append(var)
        spec.variables = folded
        clauses = [(s, Clause(_fold_formula(c.formula, bits), c.origin, c.comment))
                   for s, c in clauses
                   if not (c.comment.startswith(LIMITS_COMMENT)
                           and {v.name for v in variables(c.formula)} <= set(bits))]
    for section_name, clause in clauses:
        spec.section(section_name).append(clause)
    return spec


def format_slugsin(spec: GR1Spec) -> str:
    """slugsin text (integers bit-blasted as slugs' compiler does); empty sections are omitted."""
    flat = to_boolean(spec)
    out: list[str] = []
    for header, owner in (("[INPUT]", "env"), ("[OUTPUT]", "sys")):
        out += [header, *[v.name for v in flat.variables if v.owner == owner], ""]
    for section in SECTIONS:
        clauses = flat.section(section)
        if not clauses:
            continue
        out.append(f"[{SECTION_HEADERS[section]}]")
        for clause in clauses:
            label = clause.comment or clause.origin.label()
            if label and label != "unknown":
                out.append("## " + printable(" / ".join(label.splitlines())))
            out.append(format_prefix(clause.formula))
        out.append("")
    return "\n".join(out)


__all__ = [
    "bit_names", "compare_bits", "format_prefix", "format_slugsin", "limit_formula",
    "parse_prefix", "parse_slugsin", "to_boolean", "try_parse_prefix",
]
