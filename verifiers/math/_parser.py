"""A recursive-descent parser for LaTeX and plain-text answers.

It builds a small tree of tuples (see ``Node``) from tokens; nothing is evaluated and no
string ever reaches sympy. Sizes are bounded (input length, nesting depth), so parsing any
string takes linear time and never recurses without bound.

Nodes:
    ("n", Fraction, places)          number; places = decimal places written (None: exact)
    ("sym", name)  ("const", "pi" | "e" | "i" | "oo")
    ("add", (a, ...))  ("mul", (a, ...))  ("div", a, b)  ("pow", a, b)  ("neg", a)
    ("fact", a)  ("abs", a)  ("fn", name, a)  ("log", base, a)  ("root", a, index)
    ("binom", a, b)  ("pm", a | None, b)  ("pct", a)  ("deg", a)  ("base", digits, base)
    ("rel", (op, ...), (a, ...))     a chain: a op b op c (op: = < <= > >= != in perp parallel)
    ("tuple", items)  ("set", items)  ("list", items)  ("or", items)  ("union", items)
    ("ival", left_closed, a, b, right_closed)  ("matrix", rows)  ("text", str)
    ("ratio", (a, b, ...))           a : b (: c ...)
"""

from __future__ import annotations

from dataclasses import dataclass

from verifiers.math._latex import FUNCTIONS, GREEK, command, function
from verifiers.math._lexer import ParseError, Token, number_value, tokenize
from verifiers.math._nodes import Node

__all__ = ["DEFAULT_OPTIONS", "Node", "Options", "ParseError", "parse"]


MAX_DEPTH = 60

_UNIT_STOP = frozenset({"or", "and", "either"})
# Short words that make a "product of letters" prose instead (the answer is ...).
_PROSE = frozenset("is the so we it of to be are as at if in on by its an our was has get got all for not but".split())
ATOM_CMDS = frozenset(
    "\\frac \\sqrt \\pi \\infty \\binom \\begin \\lfloor \\lceil \\emptyset \\varnothing "
    "\\mathbb \\imath \\overline \\e".split()
)


class _Parser:
    def __init__(self, tokens: list[Token], options: Options) -> None:
        self.options = options
        self.t = tokens
        self.i = 0
        self.depth = 0

    # -- helpers -------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.t[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.t[min(self.i + k, len(self.t) - 1)]

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
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError("nested too deeply")

    # -- grammar -------------------------------------------------------------------------
    def top(self) -> Node:
        if self.is_word("either"):
            self.take()
        groups = [self.items(closers=(";",))]
        while self.is_op(";"):  # `2; 5`, `p=5,q=2; p=7,q=2`: a list of groups
            self.take()
            if self.tok.kind == "end":
                break
            groups.append(self.items(closers=(";",)))
        node = groups[0] if len(groups) == 1 else ("list", tuple(_named_tuple(g) for g in groups))
        self.skip_units()
        if self.tok.kind != "end":
            raise ParseError(f"unexpected {self.tok.value!r}")
        return node

    def items(self, closers: tuple[str, ...]) -> Node:
        """A comma list, or alternatives joined by 'or' / 'and'; a single item stands alone."""
        first = self.item()
        items, kind = [first], None
        while True:
            self.skip_units()
            if self.is_op(","):
                self.take()
                if self.is_word("or", "and"):
                    self.take()
                kind = kind or "list"
            elif self.is_word("or", "and"):
                self.take()
                kind = "or"
            else:
                break
            if self.tok.kind == "end" or (self.tok.kind == "op" and self.tok.value in closers):
                break  # a trailing comma
            items.append(self.item())
        if len(items) == 1:
            return first
        return (kind or "list", tuple(items))

    def item(self) -> Node:
        node = self.relation()
        if self.is_cmd("\\cup"):
            parts = [node]
            while self.is_cmd("\\cup"):
                self.take()
                parts.append(self.relation())
            return ("union", tuple(parts))
        return node

    def relation(self) -> Node:
        exprs = [self.ratio()]
        ops: list[str] = []
        while self.tok.kind == "rel" or self.is_cmd("\\in", "\\perp", "\\parallel"):
            op = str(self.tok.value)[1:] if self.tok.kind == "cmd" else str(self.tok.value)
            self.take()
            ops.append(op)
            exprs.append(self.item() if op == "in" else self.ratio())
        if not ops:
            return exprs[0]
        if ops == ["in"]:
            return exprs[1]  # x \in [0, 1): the set is the answer
        return ("rel", tuple(ops), tuple(exprs))

    def ratio(self) -> Node:
        """``7:32``, ``S_1 : S_2``, ``1:2:3``; a single expression stands alone."""
        first = self.additive()
        if not self.is_op(":"):
            return first
        parts = [first]
        while self.is_op(":"):
            self.take()
            parts.append(self.additive())
        return ("ratio", tuple(parts))

    def additive(self) -> Node:
        self.enter()
        terms = [self.unary()]
        while True:
            if self.is_op("+"):
                self.take()
                terms.append(self.unary())
            elif self.is_op("-"):
                self.take()
                terms.append(("neg", self.unary()))
            elif self.is_cmd("\\pm", "\\mp"):
                sign = self.take().value
                rest = self.unary()
                left = terms[0] if len(terms) == 1 else ("add", tuple(terms))
                terms = [("pm", left, rest if sign == "\\pm" else ("neg", rest))]
            else:
                break
        self.depth -= 1
        return terms[0] if len(terms) == 1 else ("add", tuple(terms))

    def unary(self) -> Node:
        if self.is_op("-"):
            self.take()
            return ("neg", self.unary())
        if self.is_op("+"):
            self.take()
            return self.unary()
        if self.is_cmd("\\pm", "\\mp"):
            self.take()
            return ("pm", None, self.unary())
        return self.multiplicative()

    def starts_atom(self) -> bool:
        tok = self.tok
        if tok.kind in ("num", "letter"):
            return True
        if tok.kind == "word":
            return not self.unit_ahead() and str(tok.value).lower() not in _UNIT_STOP
        if tok.kind == "cmd":
            name = str(tok.value)
            return name in ATOM_CMDS or name[1:] in GREEK or name[1:] in FUNCTIONS
        return tok.kind == "op" and tok.value == "("

    def multiplicative(self) -> Node:
        factors = [self.power()]
        while True:
            if self.is_op("*") or self.is_cmd("\\cdot", "\\times", "\\ast"):
                self.take()
                factors.append(self.power())
            elif self.is_op("/") or self.is_cmd("\\div"):
                self.take()
                left = factors[0] if len(factors) == 1 else ("mul", tuple(factors))
                factors = [("div", left, self.power())]
            elif self.starts_atom():
                if self.tok.kind == "num" and factors[-1][0] == "n":
                    raise ParseError("two numbers in a row")
                mixed = self.mixed_number(factors)
                if mixed is not None:
                    factors = [mixed]
                else:
                    factors.append(self.power())
            else:
                break
        return factors[0] if len(factors) == 1 else ("mul", tuple(factors))

    def mixed_number(self, factors: list[Node]) -> Node | None:
        """``1\\frac{3}{4}`` right after an integer literal is a mixed number, 7/4."""
        last = factors[-1]
        if not self.options.mixed_numbers:
            return None
        if len(factors) != 1 or last[0] != "n" or last[2] is not None or not self.is_cmd("\\frac"):
            return None
        save = self.i
        frac = self.power()
        if frac[0] == "div" and frac[1][0] == "n" and frac[2][0] == "n" and frac[1][2] is None:
            return ("n", last[1] + frac[1][1] / frac[2][1], None)
        self.i = save
        return None

    def power(self) -> Node:
        base = self.postfix(self.atom())
        if self.is_op("^"):
            self.take()
            exponent = self.exponent()
            base = self.postfix(("pow", base, exponent))
        return base

    def exponent(self) -> Node:
        if self.is_op("{"):
            return self.group()
        if self.is_op("-"):
            self.take()
            return ("neg", self.exponent())
        if self.tok.kind == "num":
            return self.number()
        return self.atom()

    def postfix(self, node: Node) -> Node:
        while True:
            if self.is_op("!"):
                self.take()
                node = ("fact", node)
            elif self.is_op("%"):
                self.take()
                node = ("pct", node)
            elif self.is_op("\u00b0"):
                self.take()
                node = ("deg", node)
            elif self.is_op("'"):
                raise ParseError("primes are not supported")
            else:
                return node

    def number(self) -> Node:
        value, places = number_value(self.take())
        if self.is_op("_") and places is None:  # 1011_2: digits in another base
            self.take()
            base = self.arg()
            if base[0] != "n" or base[2] is not None or not 2 <= base[1] <= 36:
                raise ParseError("unsupported base subscript")
            return ("base", str(value.numerator), int(base[1]))
        return ("n", value, places)

    def group(self) -> Node:
        """``{ ... }``: a grouped expression (with commas inside: a set, plain-text style)."""
        self.enter()
        self.expect_op("{")
        node = self.items(closers=("}",))
        self.expect_op("}")
        self.depth -= 1
        if node[0] == "list":
            return ("set", node[1])
        return node

    def arg(self) -> Node:
        """A LaTeX argument: ``{...}`` or a single token (``\\frac12``, ``\\sqrt2``)."""
        if self.is_op("{"):
            return self.group()
        tok = self.tok
        if tok.kind == "num":
            value, places = number_value(tok)
            self.take()
            return ("n", value, places)
        if tok.kind in ("letter", "cmd"):
            return self.atom()
        raise ParseError(f"expected an argument, found {tok.value!r}")

    def unit_ahead(self) -> bool:
        """A spaced word with only words (or the end) after it: units or prose, e.g. ``5 cm``."""
        if not (self.tok.kind == "word" and self.tok.space):
            return False
        j = self.i
        while (
            self.t[j].kind in ("word", "letter")
            or (self.t[j].kind == "op" and self.t[j].value in ("^", ".", "/"))
            or (self.t[j].kind == "num" and self.t[j - 1].value == "^")
        ):
            if self.t[j].kind == "word" and str(self.t[j].value).lower() in _UNIT_STOP:
                return True
            j += 1
        end = self.t[j]
        return end.kind == "end" or (end.kind == "op" and str(end.value) in (",", ")", "]", "}"))

    def skip_units(self) -> None:
        if not self.unit_ahead():
            return
        while (
            (self.tok.kind in ("word", "letter") and str(self.tok.value).lower() not in _UNIT_STOP)
            or (self.tok.kind == "op" and self.tok.value in ("^", ".", "/"))
            or (self.tok.kind == "num" and self.t[self.i - 1].value == "^")
        ):
            self.take()

    def atom(self) -> Node:
        self.enter()
        try:
            return self._atom()
        finally:
            self.depth -= 1

    def _atom(self) -> Node:
        tok = self.tok
        if tok.kind == "num":
            return self.number()
        if tok.kind == "letter":
            self.take()
            return self.subscript(str(tok.value))
        if tok.kind == "word":
            return self.word()
        if tok.kind == "cmd":
            return command(self)
        if tok.kind == "op":
            if tok.value == "(":
                return self.bracketed("(")
            if tok.value == "[":
                return self.bracketed("[")
            if tok.value == "{":
                return self.group()
            if tok.value == "\\{":
                self.take()
                if self.is_op("\\}"):
                    self.take()
                    return ("set", ())
                node = self.items(closers=("\\}",))
                self.expect_op("\\}")
                return ("set", node[1] if node[0] in ("list", "or") else (node,))
            if tok.value == "|":
                self.take()
                inner = self.additive()
                self.expect_op("|")
                return ("abs", inner)
        raise ParseError(f"unexpected {tok.value!r}")

    def subscript(self, name: str) -> Node:
        if self.is_op("_"):
            self.take()
            sub = self.arg()
            if sub[0] == "n" and sub[2] is None:
                name = f"{name}_{sub[1]}"
            elif sub[0] == "sym":
                name = f"{name}_{sub[1]}"
            else:
                raise ParseError("unsupported subscript")
            return ("sym", name)
        return self.letter(name)

    def letter(self, name: str) -> Node:
        if name == "e" and self.options.euler_e:
            return ("const", "e")
        if name == "i" and self.options.imaginary_i:
            return ("const", "i")
        return ("sym", name)

    def word(self) -> Node:
        word = str(self.take().value)
        low = word.lower()
        if low in ("pi",):
            return ("const", "pi")
        if low in ("inf", "infty", "infinity", "oo"):
            return ("const", "oo")
        if low in FUNCTIONS or low == "sqrt":
            return function(self, low)
        if low in _UNIT_STOP or low in _PROSE or len(word) > 3:
            raise ParseError(f"{word!r} reads as prose, not math")
        # A run of letters in math is a product of one-letter symbols: xy = x*y.
        syms: list[Node] = [self.subscript(c) if k == len(word) - 1 else ("sym", c) for k, c in enumerate(word)]
        syms = [self.letter(s[1]) if s[0] == "sym" else s for s in syms]
        return syms[0] if len(syms) == 1 else ("mul", tuple(syms))

    def bracketed(self, opener: str) -> Node:
        self.enter()
        self.take()
        node = self.items(closers=(")", "]"))
        closer = self.tok.value if self.tok.kind == "op" else None
        if closer not in (")", "]"):
            raise ParseError(f"unclosed {opener!r}")
        self.take()
        self.depth -= 1
        parts = node[1] if node[0] == "list" else None
        if parts is None:
            if opener == "(" and closer == ")":
                return node
            if opener == "[" and closer == "]":
                return node
            raise ParseError("mismatched brackets")
        if len(parts) == 2 and (opener, closer) != ("(", ")"):
            return ("ival", opener == "[", parts[0], parts[1], closer == "]")
        if (opener, closer) == ("(", ")"):
            return ("tuple", parts)
        if (opener, closer) == ("[", "]"):
            return ("tuple", parts)
        raise ParseError("mismatched brackets")


@dataclass(frozen=True)
class Options:
    """Reading choices (set from `MathConfig`)."""

    mixed_numbers: bool = True
    imaginary_i: bool = True
    euler_e: bool = True


DEFAULT_OPTIONS = Options()


def parse(text: str, options: Options = DEFAULT_OPTIONS) -> Node:
    """Parse normalized answer text into a node tree; raises ParseError.

    Example:
        >>> parse(r"\\frac{1}{2}")
        ('div', ('n', Fraction(1, 1), None), ('n', Fraction(2, 1), None))
    """
    tokens = tokenize(text)
    if len(tokens) == 1:
        raise ParseError("empty answer")
    return _Parser(tokens, options).top()


def _named_tuple(group: Node) -> Node:
    """One of several solutions, ``p=5, q=2``: the named tuple ``(p, q) = (5, 2)``."""
    if group[0] != "list":
        return group
    pairs = [item[2] for item in group[1] if item[0] == "rel" and item[1] == ("=",) and item[2][0][0] == "sym"]
    if len(pairs) != len(group[1]) or len({left for left, _ in pairs}) != len(pairs):
        return group
    return ("rel", ("=",), (("tuple", tuple(left for left, _ in pairs)), ("tuple", tuple(right for _, right in pairs))))
