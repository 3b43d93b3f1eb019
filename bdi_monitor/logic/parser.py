"""Parser for CTL-BDI formulas.

Grammar (loosest first; ``->`` is right associative, the others left associative)::

    formula := imp ('<->' imp)*
    imp     := or ('->' imp)?
    or      := and ('|' and)*
    and     := unary ('&' unary)*
    unary   := '!' unary | OP unary | Q '[' formula 'U' formula ']' | '(' formula ')'
             | 'true' | 'false' | ATOM
    OP      := EX | AX | EF | AF | EG | AG | bel | des | int
    Q       := E | A

Errors are :class:`~bdi_supervisor.errors.InputError` with the 1-based line and column of the
offending token, what was found and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from bdi_monitor.logic.ast import (
    FALSE,
    MODALITIES,
    TEMPORAL_UNARY,
    TRUE,
    Atom,
    Binary,
    Formula,
    Modal,
    Not,
    Temporal,
    Until,
)
from bdi_supervisor.errors import InputError
from bdi_supervisor.limits import MAX_FORMULA_DEPTH, Heights, recursion_headroom

KEYWORDS = frozenset((*TEMPORAL_UNARY, *MODALITIES, "E", "A", "U", "true", "false"))
_TOKEN = re.compile(r"\s*(?:(<->|->|[!&|()\[\]])|([A-Za-z_][A-Za-z0-9_.]*))")


@dataclass(frozen=True)
class Token:
    kind: str  # 'op', 'word' or 'end'
    text: str
    offset: int


class _Parser:
    def __init__(self, text: str, propositions: Collection[str] | None, source: str | None,
                 key: str | None) -> None:
        self.text = text
        self.propositions = propositions
        self.source = source
        self.key = key
        self.tokens = self._tokenize()
        self.index = 0
        self.depth = 0  # recursion nesting (parentheses, operators, the right side of ->)
        self.heights = Heights(lambda node: node.children())

    # -- depth ----------------------------------------------------------------------------------
    def built(self, node: Formula, token: Token) -> Formula:
        """``node``, unless its tree is higher than ``MAX_FORMULA_DEPTH`` (error at ``token``)."""
        if self.heights.note(node) > MAX_FORMULA_DEPTH:
            raise self._too_deep(token)
        return node

    def enter(self, token: Token) -> None:
        self.depth += 1
        if self.depth > MAX_FORMULA_DEPTH:
            raise self._too_deep(token)

    def _too_deep(self, token: Token) -> InputError:
        return self.error(f"formula nested deeper than {MAX_FORMULA_DEPTH} levels", token.offset,
                          _show(token), f"at most {MAX_FORMULA_DEPTH} levels of operators and "
                                        "parentheses")

    # -- errors ---------------------------------------------------------------------------------
    def error(self, message: str, offset: int, found: str, expected: str) -> InputError:
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return InputError(message, file=self.source, key=self.key, line=line, column=column,
                          found=found, expected=expected)

    def _tokenize(self) -> list[Token]:
        tokens: list[Token] = []
        position = 0
        while True:
            while position < len(self.text) and self.text[position].isspace():
                position += 1
            if position == len(self.text):
                tokens.append(Token("end", "", position))
                return tokens
            match = _TOKEN.match(self.text, position)
            if not match:
                raise self.error("unexpected character", position, repr(self.text[position]),
                                 "an operator, a parenthesis or a proposition name")
            if match.group(1):
                tokens.append(Token("op", match.group(1), match.start(1)))
            else:
                tokens.append(Token("word", match.group(2), match.start(2)))
            position = match.end()

    # -- helpers --------------------------------------------------------------------------------
    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, text: str, what: str) -> Token:
        token = self.current
        if token.text != text or token.kind == "end":
            raise self.error(f"expected '{text}'", token.offset, _show(token), what)
        return self.advance()

    # -- grammar --------------------------------------------------------------------------------
    def parse(self) -> Formula:
        with recursion_headroom(8 * MAX_FORMULA_DEPTH + 100):
            formula = self.iff()
        token = self.current
        if token.kind != "end":
            raise self.error("unexpected token after the formula", token.offset, _show(token),
                             "an operator (& | -> <->) or the end of the formula")
        return formula

    def iff(self) -> Formula:
        left = self.imp()
        while self.current.text == "<->":
            token = self.advance()
            left = self.built(Binary("<->", left, self.imp()), token)
        return left

    def imp(self) -> Formula:
        left = self.disjunction()
        if self.current.text == "->":
            token = self.advance()
            self.enter(token)
            right = self.imp()
            self.depth -= 1
            return self.built(Binary("->", left, right), token)
        return left

    def disjunction(self) -> Formula:
        left = self.conjunction()
        while self.current.text == "|":
            token = self.advance()
            left = self.built(Binary("|", left, self.conjunction()), token)
        return left

    def conjunction(self) -> Formula:
        left = self.unary()
        while self.current.text == "&":
            token = self.advance()
            left = self.built(Binary("&", left, self.unary()), token)
        return left

    def unary(self) -> Formula:
        token = self.current
        if token.kind == "end":
            raise self.error("the formula ends too early", token.offset, "end of input",
                             "a formula")
        if token.text in _OPENING if token.kind == "op" else token.text in _PREFIX_WORDS:
            self.enter(token)
            inner = self.nested(token)
            self.depth -= 1
            return inner
        return self.leaf(token)

    def nested(self, token: Token) -> Formula:
        """A formula that starts with an operator or a parenthesis (one level deeper)."""
        self.advance()
        word = token.text
        if word == "!":
            return self.built(Not(self.unary()), token)
        if word == "(":
            inner = self.iff()
            self.expect(")", "')' closing the '(' at column "
                        f"{token.offset - (self.text.rfind(chr(10), 0, token.offset) + 1) + 1}")
            return inner
        if word in TEMPORAL_UNARY:
            return self.built(Temporal(word, self.unary()), token)
        if word in MODALITIES:
            return self.built(Modal(word, self.unary()), token)
        self.expect("[", f"'[' after '{word}' (write {word}[p U q])")
        left = self.iff()
        until = self.current
        if until.text != "U":
            raise self.error("expected 'U' in the until formula", until.offset,
                             _show(until), f"'U' ({word}[p U q])")
        self.advance()
        right = self.iff()
        self.expect("]", f"']' closing {word}[... U ...]")
        return self.built(Until(word, left, right), token)

    def leaf(self, token: Token) -> Formula:
        """``true``, ``false`` or a proposition."""
        if token.kind == "word":
            word = token.text
            if word in ("true", "false"):
                self.advance()
                return TRUE if word == "true" else FALSE
            if word == "U":
                raise self.error("'U' outside E[...] or A[...]", token.offset, "'U'",
                                 "a formula")
            if self.propositions is not None and word not in self.propositions:
                known = ", ".join(sorted(self.propositions)) or "none"
                raise self.error(f"unknown proposition '{word}'", token.offset, f"'{word}'",
                                 f"one of the structure's propositions ({known})")
            self.advance()
            return Atom(word)
        raise self.error("expected a formula", token.offset, _show(token),
                         "a proposition, true/false, '!', '(', a temporal operator "
                         "(EX AX EF AF EG AG E[..U..] A[..U..]) or bel/des/int")


_OPENING = ("!", "(")
_PREFIX_WORDS = frozenset((*TEMPORAL_UNARY, *MODALITIES, "E", "A"))


def _show(token: Token) -> str:
    return "end of input" if token.kind == "end" else f"'{token.text}'"


def parse(text: str, propositions: Collection[str] | None = None, *, source: str | None = None,
          key: str | None = None) -> Formula:
    """Parse ``text`` into a formula tree.

    With ``propositions`` given, an atom outside it is an error at the atom's position.
    ``source`` and ``key`` label the error (e.g. the command line argument it came from).
    """
    return _Parser(text, propositions, source, key).parse()
