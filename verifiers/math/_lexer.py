"""Tokens of LaTeX and plain-text math. Linear time, bounded input; evaluates nothing."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

__all__ = ["MAX_CHARS", "MAX_DEPTH", "UNIT_STOP", "ParseError", "Token", "Tokens", "number_value", "tokenize"]

MAX_CHARS = 2000
"""Longest answer we parse; a longer one is unparseable (answers are short)."""

MAX_DEPTH = 60
"""Deepest nesting we parse; deeper is unparseable."""

UNIT_STOP = frozenset({"or", "and", "either"})
"""Words that join answers; never units or part of a product."""


class ParseError(ValueError):
    """The text is not math we can read (internal: turned into a status, never raised out)."""


class Token(NamedTuple):
    kind: str  # num | cmd | letter | word | op | rel | end
    value: object
    space: bool  # whitespace before it


_NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d{1,6})(?![\d.]))?", re.ASCII)
_OVERLINE = re.compile(r"\\overline\s*\{\s*(\d{1,50})\s*\}|\\overline\s*(\d)", re.ASCII)
_COMMAND = re.compile(r"\\([a-zA-Z]+)")
_LETTERS = re.compile(r"[a-zA-Z]+")
_STRAY_PERIOD = re.compile(r"\.\s*[,)\]]")  # [5, \infty.), (-\infty, 3. ]: not a decimal point
_RELATIONS = {
    "=": "=",
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
    "!=": "!=",
    "\\le": "<=",
    "\\leq": "<=",
    "\\leqslant": "<=",
    "\\ge": ">=",
    "\\geq": ">=",
    "\\geqslant": ">=",
    "\\ne": "!=",
    "\\neq": "!=",
    "\\lt": "<",
    "\\gt": ">",
    "\\approx": "~",
    "\\equiv": "=",
}


def _number(text: str, places_hint: str | None, exponent: str | None) -> tuple[Fraction, int | None]:
    """Exact value of a literal and its decimal places (None for integers)."""
    if "." in text:
        whole, _, frac = text.partition(".")
        value = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
        places: int | None = len(frac)
    else:
        value, places = Fraction(int(text)), None
    if exponent is not None:
        e = int(exponent)
        if abs(e) > 400:
            raise ParseError(f"exponent {e} is out of range")
        value *= Fraction(10) ** e
        places = (places or 0) - e  # may be negative: 6.02e23 is precise to 1e21
    return value, places


def number_value(tok: Token) -> tuple[Fraction, int | None]:
    """The (value, decimal places) a "num" token carries."""
    value = tok.value
    assert isinstance(value, tuple)
    return value[0], value[1]


def tokenize(text: str) -> list[Token]:
    """Split normalized math text into tokens.

    Examples:
        >>> [t.kind for t in tokenize(r"2x + \\frac{1}{2}")]
        ['num', 'letter', 'op', 'cmd', 'op', 'num', 'op', 'op', 'num', 'op', 'end']
    """
    if len(text) > MAX_CHARS:
        raise ParseError(f"answer is longer than {MAX_CHARS} characters")
    tokens: list[Token] = []
    i, n = 0, len(text)
    space = False
    while i < n:
        c = text[i]
        if c.isspace():
            space = True
            i += 1
            continue
        if "0" <= c <= "9" or (c == "." and i + 1 < n and "0" <= text[i + 1] <= "9"):
            token, i = _number_token(text, i, space)
            tokens.append(token)
        elif c == "\\":
            token, i = _backslash_token(text, i, space)
            tokens.append(token)
        elif c.isalpha() and c.isascii():
            m = _LETTERS.match(text, i)
            assert m is not None
            word = m.group(0)
            if len(word) == 1:
                tokens.append(Token("letter", word, space))
            else:
                tokens.append(Token("word", word, space))
            i = m.end()
        elif text.startswith("**", i):  # plain-text power (Python, sympy's str)
            tokens.append(Token("op", "^", space))
            i += 2
        elif text.startswith(("<=", ">=", "!="), i):
            tokens.append(Token("rel", text[i : i + 2], space))
            i += 2
        elif c in "=<>":
            tokens.append(Token("rel", c, space))
            i += 1
        elif c == "." and _STRAY_PERIOD.match(text, i) and text[i - 1 : i] not in (".", ""):
            i += 1  # a stray period before a comma or a closing bracket: (-\infty, 3.], [2., 7]
            continue
        elif c in "+-*/^_!%'(),[]{}|&:;.\u00b0":
            tokens.append(Token("op", c, space))
            i += 1
        else:
            raise ParseError(f"unexpected character {c!r}")
        space = False
    tokens.append(Token("end", None, space))
    return tokens


def _number_token(text: str, i: int, space: bool) -> tuple[Token, int]:
    """A number at ``i`` (``12``, ``0.5``, ``1.5e3``, ``0.\\overline{3}``) and where it ends."""
    n = len(text)
    m = _NUMBER.match(text, i)
    assert m is not None
    literal = m.group(1)
    end = m.end()
    if literal.endswith(".") and end < n and text.startswith("\\overline", end):
        pass  # 0.\overline{3}
    elif literal.endswith("."):
        literal, end = literal[:-1], end - 1
        if m.group(2) is not None:  # "2.e5" is not a number we read
            end = m.start(1) + len(literal)
    value, places = _number(literal, None, m.group(2) if end == m.end() else None)
    o = _OVERLINE.match(text, end)
    if o is not None and "." in literal:
        digits = o.group(1) or o.group(2)
        k = len(literal.partition(".")[2])
        value += Fraction(int(digits), (10 ** len(digits) - 1) * 10**k)
        places, end = None, o.end()
    return Token("num", (value, places), space), end


def _backslash_token(text: str, i: int, space: bool) -> tuple[Token, int]:
    """``\\\\`` (a row break), ``\\{``, ``\\}``, ``\\|``, or a command (a relation like ``\\le``)."""
    if text.startswith("\\\\", i):
        return Token("op", "\\\\", space), i + 2
    if i + 1 < len(text) and text[i + 1] in "{}|":
        return Token("op", "\\" + text[i + 1], space), i + 2
    m = _COMMAND.match(text, i)
    if m is None:
        raise ParseError(f"stray backslash at {i}")
    name = "\\" + m.group(1)
    if name in _RELATIONS:
        return Token("rel", _RELATIONS[name], space), m.end()
    return Token("cmd", name, space), m.end()


class Tokens:
    """A cursor over the tokens: look at the current one, take it, bound the nesting.

    Examples:
        >>> ts = Tokens(tokenize("x + 1"))
        >>> ts.take().value, ts.is_op("+"), ts.is_op("-")
        ('x', True, False)
    """

    def __init__(self, tokens: list[Token]) -> None:
        self.t = tokens
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.t[self.i]

    def peek(self, k: int = 1) -> Token:
        """The token ``k`` places ahead (the end token past the end)."""
        return self.t[min(self.i + k, len(self.t) - 1)]

    def at_end(self) -> bool:
        return self.tok.kind == "end"

    def is_op(self, *values: str) -> bool:
        return self.tok.kind == "op" and self.tok.value in values

    def is_cmd(self, *values: str) -> bool:
        return self.tok.kind == "cmd" and self.tok.value in values

    def is_word(self, *values: str) -> bool:
        return self.tok.kind == "word" and str(self.tok.value).lower() in values

    def take(self) -> Token:
        tok = self.t[self.i]
        if tok.kind != "end":
            self.i += 1
        return tok

    def expect_op(self, value: str) -> None:
        if not self.is_op(value):
            raise ParseError(f"expected {value!r}, found {self.tok.value!r}")
        self.i += 1

    def enter(self) -> None:
        """One level deeper (pair with `leave`); too deep is a ParseError."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError("nested too deeply")

    def leave(self) -> None:
        self.depth -= 1

    def unit_ahead(self) -> bool:
        """A spaced word with only words (or the end) after it: units or prose, e.g. ``5 cm``."""
        if not (self.tok.kind == "word" and self.tok.space):
            return False
        j = self.i
        while self._unit_part(j):
            if self.t[j].kind == "word" and str(self.t[j].value).lower() in UNIT_STOP:
                return True
            j += 1
        end = self.t[j]
        return end.kind == "end" or (end.kind == "op" and str(end.value) in (",", ")", "]", "}"))

    def skip_units(self) -> None:
        """Step over trailing units (``cm^2``, ``km/h``), never over ``or``/``and``."""
        if not self.unit_ahead():
            return
        while self._unit_part(self.i) and not (self.tok.kind == "word" and str(self.tok.value).lower() in UNIT_STOP):
            self.take()

    def _unit_part(self, j: int) -> bool:
        tok = self.t[j]
        return (
            tok.kind in ("word", "letter")
            or (tok.kind == "op" and tok.value in ("^", ".", "/"))
            or (tok.kind == "num" and self.t[j - 1].value == "^")
        )
