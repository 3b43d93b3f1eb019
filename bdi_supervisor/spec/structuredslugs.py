"""Read and write slugs' *structuredslugs* text (infix GR(1) with bounded integers).

Public API:

- :func:`parse_formula` — one infix formula to a :class:`~bdi_supervisor.spec.formula.Formula`.
- :func:`format_formula` — the inverse; ``parse_formula(format_formula(f)) == f``.
- :func:`parse_spec` / :func:`format_spec` — a whole file to/from :class:`GR1Spec`.

Syntax (slugs' ``doc/input_formats.md`` and its structured-slugs grammar): sections ``[INPUT]``,
``[OUTPUT]``, ``[ENV_INIT]``, ``[SYS_INIT]``, ``[ENV_TRANS]``, ``[SYS_TRANS]``, ``[ENV_LIVENESS]``,
``[SYS_LIVENESS]`` (a section may appear more than once); one declaration or formula per line;
``#`` starts a comment. Declarations are ``name`` or ``name:low...high``. Operators, loosest
first: ``<->``/``<-->``, ``->``/``-->`` (both left-associative, as in slugs), ``^``,
``|``/``||``/``\\/``, ``&``/``&&``/``/\\``, then unary ``!``/``~``, ``X``/``next(...)``; atoms are
``TRUE``, ``FALSE``, ``(...)``, a Boolean variable, optionally primed (``a'``), or an integer
comparison ``t op t`` (``= != < <= > >=``) between sums (``+``) of integer variables and numerals.
Like slugs' compiler, a line that is already a valid slugsin prefix formula over the declared
Boolean variables (``| ! a b'``) is read as one.

Comment lines directly above a formula or declaration (and a trailing ``# ...``) become its
``comment``; the printer writes clause comments as ``## text`` (slugs' clause-naming convention).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import (
    MAX_FORMULA_DEPTH,
    MAX_INT_DIGITS,
    Heights,
    excerpt,
    long_number,
    printable,
    recursion_headroom,
)
from bdi_supervisor.spec.formula import (
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
    prime,
)
from bdi_supervisor.spec.gr1 import SECTION_HEADERS, Clause, GR1Spec, Origin, Variable
from bdi_supervisor.spec.sections import section_lines

#: words with a fixed meaning; they cannot name variables
RESERVED = frozenset({"TRUE", "FALSE", "X", "next", "F", "G", "U", "W"})
_TEMPORAL = frozenset({"F", "G", "U", "W"})

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.@]*'?")
_NUMBER = re.compile(r"[0-9]+")
# longest operators first
_SYMBOLS = (
    "<-->", "<->", "-->", "->", "&&", "||", "/\\", "\\/", "!=", "<=", ">=",
    "!", "~", "&", "|", "^", "<", ">", "=", "+", "(", ")", "[", "]",
)
_CANON = {"<-->": "<->", "-->": "->", "&&": "&", "/\\": "&", "||": "|", "\\/": "|", "~": "!"}
_COMPARE = ("=", "!=", "<", "<=", ">", ">=")
_OPEN = {"(": ")", "[": "]"}


@dataclass(frozen=True)
class _Token:
    """A lexical token of a formula and the column it starts at."""

    kind: str  # "name" | "num" | "op" | "end"
    text: str
    column: int  # 1-based


class _Fail(Exception):
    """Internal: a parse failure at a token (turned into InputError at the top)."""

    def __init__(self, message: str, token: _Token, expected: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.expected = expected


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == "#":
            break
        match = _NAME.match(text, i) or _NUMBER.match(text, i)
        if match:
            word = match.group(0)
            if word[0].isdigit() and i + len(word) < len(text) and (
                text[i + len(word)].isalpha() or text[i + len(word)] == "_"
            ):
                raise _Fail("a name cannot start with a digit", _Token("name", word, i + 1))
            kind = "num" if word[0].isdigit() else "name"
            if kind == "num" and len(word) > MAX_INT_DIGITS:
                raise _Fail(long_number(len(word)), _Token("num", word, i + 1),
                            f"a number of at most {MAX_INT_DIGITS:,} digits")
            if kind == "name" and text.startswith("'", match.end()):
                raise _Fail("a variable can be primed only once", _Token("name", word, i + 1))
            tokens.append(_Token(kind, word, i + 1))
            i = match.end()
            continue
        for symbol in _SYMBOLS:
            if text.startswith(symbol, i):
                tokens.append(_Token("op", _CANON.get(symbol, symbol), i + 1))
                i += len(symbol)
                break
        else:
            raise _Fail(f"unexpected character {ch!r}", _Token("op", ch, i + 1))
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


class _Parser:
    def __init__(self, tokens: list[_Token], names: Mapping[str, Variable] | None) -> None:
        self.tokens = tokens
        self.pos = 0
        self.names = names
        self.depth = 0  # recursion nesting (parentheses, unary operators, sums)
        self.heights = Heights(children)

    def built(self, node, token: _Token):
        """``node`` if its tree is at most ``MAX_FORMULA_DEPTH`` high, else a failure at
        ``token`` (the operator that made it too high)."""
        if self.heights.note(node) > MAX_FORMULA_DEPTH:
            raise _too_deep(token)
        return node

    def enter(self, token: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_FORMULA_DEPTH:
            raise _too_deep(token)

    # -- helpers
    @property
    def token(self) -> _Token:
        return self.tokens[self.pos]

    def at(self, *ops: str) -> bool:
        return self.token.kind == "op" and self.token.text in ops

    def take(self) -> _Token:
        token = self.token
        self.pos += 1
        return token

    def expect(self, op: str) -> _Token:
        if not self.at(op):
            raise _Fail(f"missing '{op}'", self.token, f"'{op}'")
        return self.take()

    def check_name(self, token: _Token, kind: str) -> Var:
        text = token.text
        primed = text.endswith("'")
        name = text[:-1] if primed else text
        if name in _TEMPORAL:
            raise _Fail(f"temporal operator '{name}' is not part of GR(1) formulas", token)
        if name in RESERVED:
            raise _Fail(f"'{name}' is a reserved word", token, "a variable name")
        if self.names is not None:
            var = self.names.get(name)
            if var is None:
                raise _Fail(f"undeclared variable '{name}'", token,
                            "a name declared in [INPUT] or [OUTPUT]")
            if var.kind != kind:
                what = "an integer" if var.kind == "int" else "a Boolean"
                hint = "compare it (x = 1)" if var.kind == "int" else "use it as a formula"
                raise _Fail(f"'{name}' is {what} variable; {hint}", token)
        return Var(name, primed)

    # -- formulas, loosest first
    def formula(self) -> Formula:
        left = self.implication()
        while self.at("<->"):
            token = self.take()
            left = self.built(Iff(left, self.implication()), token)
        return left

    def implication(self) -> Formula:
        left = self.xor()
        while self.at("->"):
            token = self.take()
            left = self.built(Implies(left, self.xor()), token)
        return left

    def xor(self) -> Formula:
        left = self.disjunction()
        while self.at("^"):
            token = self.take()
            left = self.built(Xor(left, self.disjunction()), token)
        return left

    def disjunction(self) -> Formula:
        token = self.token
        parts = [self.conjunction()]
        while self.at("|"):
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else self.built(Or(tuple(parts)), token)

    def conjunction(self) -> Formula:
        token = self.token
        parts = [self.unary()]
        while self.at("&"):
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else self.built(And(tuple(parts)), token)

    def unary(self) -> Formula:
        token = self.token
        if self.at("!"):
            self.take()
            self.enter(token)
            inner = self.unary()
            self.depth -= 1
            return self.built(Not(inner), token)
        if token.kind == "name" and token.text in ("X", "next"):
            self.take()
            self.enter(token)
            inner = self.unary()
            self.depth -= 1
            try:
                primed = prime(inner)
            except ValueError:
                raise _Fail("next() applied to a primed variable (next(next(...)))",
                            token) from None
            self.heights.note(primed, self.heights.of(inner))
            return primed  # type: ignore[return-value]
        return self.atom()

    def atom(self) -> Formula:
        start, depth = self.pos, self.depth
        try:
            left: Term | None = self.term()
        except _Fail:
            left = None
        if left is not None and self.at(*_COMPARE):
            token = self.take()
            return self.built(Compare(token.text, left, self.term()), token)
        self.pos, self.depth = start, depth
        token = self.token
        if token.kind == "name":
            if token.text in ("TRUE", "FALSE"):
                self.take()
                return Const(token.text == "TRUE")
            self.take()
            return self.check_name(token, "bool")
        if self.at("(", "["):
            self.enter(token)
            close = _OPEN[self.take().text]
            inner = self.formula()
            self.expect(close)
            self.depth -= 1
            return inner
        if token.kind == "num":
            raise _Fail(f"a number ({token.text}) is not a formula", token,
                        "a comparison such as x = 1")
        if token.kind == "end":
            raise _Fail("formula ends too early", token, "a variable, TRUE, FALSE, '(' or '!'")
        raise _Fail(f"unexpected '{token.text}'", token, "a variable, TRUE, FALSE, '(' or '!'")

    # -- integer terms: t := a | a + t ; a := num | var | ( t )
    def term(self) -> Term:
        left = self.term_atom()
        if self.at("+"):
            token = self.take()
            self.enter(token)
            right = self.term()
            self.depth -= 1
            return self.built(Add(left, right), token)
        return left

    def term_atom(self) -> Term:
        token = self.token
        if token.kind == "num":
            self.take()
            return Num(int(token.text))
        if (token.kind == "name" and token.text not in RESERVED
                and token.text.rstrip("'") not in RESERVED):
            var = self.check_name(token, "int")
            self.take()
            return var
        if self.at("("):
            self.enter(token)
            self.take()
            inner = self.term()
            self.expect(")")
            self.depth -= 1
            return inner
        raise _Fail("expected an integer term", token)


def _too_deep(token: _Token) -> _Fail:
    return _Fail(f"formula nested deeper than {MAX_FORMULA_DEPTH} levels", token,
                 f"at most {MAX_FORMULA_DEPTH} levels of operators and parentheses")


def _location_error(fail: _Fail, text: str, file: str | None, line: int | None,
                    column_offset: int) -> InputError:
    token = fail.token
    found = "end of formula" if token.kind == "end" else f"'{token.text}'"
    return InputError(
        f"malformed formula {excerpt(text.strip())}: {fail.message}",
        file=file, line=line, column=token.column + column_offset, found=found,
        expected=fail.expected,
    )


def parse_formula(text: str, *, names: Mapping[str, Variable] | None = None,
                  file: str | None = None, line: int | None = None, key: str | None = None,
                  column_offset: int = 0) -> Formula:
    """Parse one infix formula.

    ``names`` (declared variables by name), when given, makes undeclared names and Boolean/integer
    misuse errors. Errors are :class:`InputError` with ``line`` and 1-based ``column`` (shifted by
    ``column_offset`` when the text is a slice of a longer line).
    """
    try:
        tokens = _tokenize(text)
        parser = _Parser(tokens, names)
        with recursion_headroom(10 * MAX_FORMULA_DEPTH + 100):
            result = parser.formula()
        if parser.token.kind != "end":
            raise _Fail(f"unexpected '{parser.token.text}' after a complete formula", parser.token,
                        "an operator or the end of the line")
        return result
    except _Fail as fail:
        raise _location_error(fail, text, file, line, column_offset).at(key=key) from None


# ---------------------------------------------------------------- printing

_PREC = {Iff: 1, Implies: 2, Xor: 3, Or: 4, And: 5, Not: 6}
_OPS = {Iff: "<->", Implies: "->", Xor: "^", Or: "|", And: "&"}


def _prec(node: Formula) -> int:
    return _PREC.get(type(node), 7)


def format_term(term: Term) -> str:
    """Infix text of an integer term."""
    if isinstance(term, Num):
        if term.value < 0:
            raise ValueError("structuredslugs has no negative numerals")
        return str(term.value)
    if isinstance(term, Var):
        return term.name + ("'" if term.primed else "")
    if isinstance(term, Add):
        left = format_term(term.left)
        if isinstance(term.left, Add):
            left = f"({left})"
        return f"{left} + {format_term(term.right)}"
    raise TypeError(f"not an integer term: {term!r}")


def format_formula(formula: Formula) -> str:
    """Infix text with the fewest parentheses that re-parse to the same tree."""
    if isinstance(formula, Const):
        return "TRUE" if formula.value else "FALSE"
    if isinstance(formula, Var):
        return formula.name + ("'" if formula.primed else "")
    if isinstance(formula, Compare):
        return f"{format_term(formula.left)} {formula.op} {format_term(formula.right)}"
    if isinstance(formula, Not):
        inner = format_formula(formula.arg)
        if _prec(formula.arg) < 6 or isinstance(formula.arg, Compare):
            inner = f"({inner})"
        return "!" + inner
    if isinstance(formula, (And, Or)):
        args = formula.args
    elif isinstance(formula, (Xor, Implies, Iff)):
        args = (formula.left, formula.right)
    else:
        raise TypeError(f"not a formula: {formula!r}")
    mine = _prec(formula)
    parts = []
    for arg in args:
        text = format_formula(arg)
        if _prec(arg) <= mine:
            text = f"({text})"
        parts.append(text)
    return f" {_OPS[type(formula)]} ".join(parts)


# ---------------------------------------------------------------- whole files

_DECL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*(-?[0-9]+)\s*\.\.\.\s*(-?[0-9]+)\s*)?$")


def parse_declaration(text: str, owner: str, *, file: str | None = None,
                      line: int | None = None, comment: str = "") -> Variable:
    """``name`` or ``name:low...high`` (an ``[INPUT]``/``[OUTPUT]`` line)."""
    match = _DECL.match(text)
    if not match:
        raise InputError("malformed variable declaration", file=file, line=line,
                         column=len(text) - len(text.lstrip()) + 1, found=repr(text.strip()),
                         expected="name or name:low...high")
    name, low, high = match.groups()
    if name in RESERVED:
        raise InputError(f"'{name}' is a reserved word", file=file, line=line, found=name,
                         expected="a variable name")
    if low is None:
        return Variable(name, owner, comment=comment)  # type: ignore[arg-type]
    for bound in (low, high):
        if len(bound.lstrip("-")) > MAX_INT_DIGITS:
            raise InputError(f"range of '{name}': {long_number(len(bound.lstrip('-')))}",
                             file=file, line=line, column=text.index(bound) + 1,
                             found=excerpt(bound), expected="a smaller range")
    if int(low) > int(high):
        raise InputError(f"empty range for '{name}'", file=file, line=line,
                         found=f"{low}...{high}", expected="low <= high")
    return Variable(name, owner, "int", int(low), int(high), comment=comment)  # type: ignore[arg-type]


def parse_spec(text: str, *, file: str | None = None, name: str | None = None) -> GR1Spec:
    """Parse a structuredslugs file. Each clause gets ``Origin("file", file=..., line=N)``."""
    from bdi_supervisor.spec import slugsin  # prefix lines; import here to avoid a cycle

    spec = GR1Spec(name=name or (Path(file).stem if file else "spec"))
    entries: list[tuple[str, int, str, str]] = []  # (section, line no, body, comment)
    declared: dict[str, Variable] = {}
    for line in section_lines(text, file=file, trailing_comments=True, blank_ends_comment=True):
        if line.owner is None:
            entries.append((line.section, line.number, line.body, line.comment))
            continue
        var = parse_declaration(line.body, line.owner, file=file, line=line.number,
                                comment=line.comment)
        if var.name in declared:
            raise InputError(f"variable '{var.name}' declared twice", file=file,
                             line=line.number, found=var.name, expected="a new name")
        declared[var.name] = var
        spec.variables.append(var)
    for section_name, number, body, comment in entries:
        prefix = slugsin.try_parse_prefix(body, declared)
        formula = prefix if prefix is not None else parse_formula(
            body, names=declared, file=file, line=number)
        origin = Origin("file", file=file, line=number)
        spec.section(section_name).append(Clause(formula, origin, comment))
    return spec


def _comment_lines(comment: str, marker: str) -> list[str]:
    """A comment (catalog labels, constraint names) as comment lines, control characters
    escaped: a spec printed to a terminal shows them, never runs them."""
    return ([f"{marker} {printable(line)}".rstrip() for line in comment.splitlines()]
            if comment else [])


def format_declaration(var: Variable) -> str:
    return f"{var.name}:{var.low}...{var.high}" if var.kind == "int" else var.name


#: section order of the reference's generated files
FILE_ORDER = ("env_init", "sys_init", "env_safety", "sys_safety", "sys_liveness", "env_liveness")


def format_spec(spec: GR1Spec) -> str:
    """structuredslugs text; :func:`parse_spec` of it gives back the same variables and formulas."""
    out: list[str] = [f"# {spec.name}"] if spec.name else []
    for header, owner in (("[INPUT]", "env"), ("[OUTPUT]", "sys")):
        out += ["", header]
        for var in spec.variables:
            if var.owner == owner:
                out += _comment_lines(var.comment, "#")
                out.append(format_declaration(var))
    for name in FILE_ORDER:
        out += ["", f"[{SECTION_HEADERS[name]}]"]
        for clause in spec.section(name):
            out += _comment_lines(clause.comment, "##")
            out.append(format_formula(clause.formula))
    return "\n".join(out) + "\n"
