"""A recursive-descent parser for LaTeX and plain-text answers: tokens in, a node tree out.

The grammar of expressions and structures lives here; the cursor over tokens (and units) in
`_lexer.Tokens`, LaTeX commands and functions in `_latex`, which reach the grammar only through
its `Grammar` protocol. Nothing is evaluated and no string ever reaches sympy. Sizes are bounded
(input length, nesting depth), so parsing any string takes linear time and never recurses
without bound. The node kinds are the classes of `_nodes`.
"""

from __future__ import annotations

from verifiers.math._config import MathConfig
from verifiers.math._definitions import LEADS, definition, membership, qualifier, set_builder, without
from verifiers.math._latex import FUNCTIONS, command, function, starts_value
from verifiers.math._lexer import UNIT_STOP, ParseError, Token, Tokens, number_value, tokenize
from verifiers.math._nodes import (
    Abs,
    And,
    Const,
    Deg,
    Div,
    Fact,
    InBase,
    Interval,
    List,
    Matrix,
    Neg,
    Node,
    Num,
    Or,
    Pct,
    PlusMinus,
    Pow,
    Ratio,
    Relation,
    Set,
    Sym,
    Tup,
    Union,
    product_of,
    sum_of,
    transposed,
)
from verifiers.math._shapes import solution

__all__ = ["Node", "ParseError", "parse"]

# Short words that make a "product of letters" prose instead (the answer is ...).
_PROSE = frozenset("is the so we it of to be are as at if in on by its an our was has get got all for not but".split())
_BRACKETS = {")": "(", "]": "["}
_DEFAULT = MathConfig()
_NOT_ATOMS = UNIT_STOP | LEADS


class _Parser(Tokens):
    """The expression grammar, from a whole answer (`top`) down to an atom."""

    def __init__(self, tokens: list[Token], config: MathConfig) -> None:
        super().__init__(tokens)
        self.config = config

    # -- answers and structures ---------------------------------------------------------
    def top(self) -> Node:
        self.take() if self.is_word("either") else None
        groups = [self.items(closers=(";",))]
        while self.is_op(";"):  # `2; 5`, `p=5,q=2; p=7,q=2`: a list of groups
            self.take()
            if self.at_end():
                break
            groups.append(self.items(closers=(";",)))
        node = groups[0] if len(groups) == 1 else List(tuple(solution(g) for g in groups))
        self.skip_units()
        if not self.at_end():
            raise ParseError(f"unexpected {self.tok.value!r}")
        return node

    def items(self, closers: tuple[str, ...]) -> Node:
        """A comma list, or alternatives joined by 'or' / 'and'; a single item stands alone."""
        first = self.item()
        items, words = [first], set()
        while True:
            if qualified := qualifier(self, self.relation):  # where k is an integer
                items.extend(qualified)
                continue
            self.skip_units()
            if self.is_op(",") or (self.is_op(";") and ";" not in closers):  # (0;-2;6): ; inside brackets
                self.take()
                if self.is_word("or", "and"):
                    self.take()
            elif self.is_word("or", "and"):
                words.add(str(self.take().value).lower())  # a bare "or" / "and" anywhere makes alternatives
            else:
                break
            if self.at_end() or (self.tok.kind == "op" and self.tok.value in closers):
                break  # a trailing comma
            items.extend(qualifier(self, self.relation) or [self.item()])
        if len(items) == 1:
            return first
        if not words:
            return List(tuple(items))
        return Or(tuple(items)) if "or" in words else And(tuple(items))

    def item(self) -> Node:
        parts = [self.relation()]
        while self.is_cmd("\\cup", "\\setminus"):  # A \cup B; A \setminus \{4\}: A without the point 4
            if self.take().value == "\\cup":
                parts.append(self.relation())
            else:
                parts = [without(parts[0] if len(parts) == 1 else Union(tuple(parts)), self.relation())]
        return parts[0] if len(parts) == 1 else Union(tuple(parts))

    def relation(self) -> Node:
        defined = definition(self, self.additive)  # f(x) = x^2 + 1
        if defined is not None:
            return defined
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
            return membership(exprs[0], exprs[1])  # x \in [0, 1): the set is the answer
        return Relation(tuple(ops), tuple(exprs))

    def ratio(self) -> Node:
        """``7:32``, ``S_1 : S_2``, ``1:2:3``; a single expression stands alone."""
        first = self.additive()
        if not self.is_op(":"):
            return first
        parts = [first]
        while self.is_op(":"):
            self.take()
            parts.append(self.additive())
        return Ratio(tuple(parts))

    # -- arithmetic -----------------------------------------------------------------------
    def additive(self) -> Node:
        self.enter()
        terms = [self.unary()]
        while True:
            if self.is_op("+"):
                self.take()
                terms.append(self.unary())
            elif self.is_op("-"):
                self.take()
                terms.append(Neg(self.unary()))
            elif self.is_cmd("\\pm", "\\mp"):
                sign = self.take().value
                rest = self.unary()
                terms = [PlusMinus(sum_of(terms), rest if sign == "\\pm" else Neg(rest), sign == "\\mp")]
            else:
                break
        self.leave()
        return sum_of(terms)

    def unary(self) -> Node:
        if self.is_op("-"):
            self.take()
            return Neg(self.unary())
        if self.is_op("+"):
            self.take()
            return self.unary()
        if self.is_cmd("\\pm", "\\mp"):
            mp = self.take().value == "\\mp"
            return PlusMinus(None, Neg(self.unary()) if mp else self.unary(), mp)
        return self.multiplicative()

    def starts_atom(self) -> bool:
        tok = self.tok
        if tok.kind in ("num", "letter"):
            return True
        if tok.kind == "word":
            return not self.unit_ahead() and str(tok.value).lower() not in _NOT_ATOMS
        if tok.kind == "cmd":
            return starts_value(str(tok.value))
        return tok.kind == "op" and tok.value == "("

    def multiplicative(self) -> Node:
        factors = [self.power()]
        while True:
            if self.is_op("*") or self.is_cmd("\\cdot", "\\times", "\\ast"):
                self.take()
                factors.append(self.power())
            elif self.is_op("/") or self.is_cmd("\\div"):
                self.take()
                factors = [Div(product_of(factors), self.power())]
            elif self.starts_atom():
                if self.tok.kind == "num" and isinstance(factors[-1], Num):
                    raise ParseError("two numbers in a row")
                mixed = self.mixed_number(factors)
                if mixed is not None:
                    factors = [mixed]
                else:
                    factors.append(self.power())
            else:
                break
        return product_of(factors)

    def mixed_number(self, factors: list[Node]) -> Node | None:
        """``1\\frac{3}{4}`` right after an integer literal is a mixed number, 7/4."""
        whole = factors[-1]
        if not self.config.mixed_numbers or len(factors) != 1 or not self.is_cmd("\\frac"):
            return None
        if not isinstance(whole, Num) or whole.places is not None:
            return None
        save = self.i
        frac = self.power()
        if isinstance(frac, Div) and isinstance(frac.num, Num) and isinstance(frac.den, Num):
            if frac.num.places is None and frac.den.value != 0:
                return Num(whole.value + frac.num.value / frac.den.value)
        self.i = save
        return None

    def power(self) -> Node:
        base = self.postfix(self.atom())
        if self.is_op("^"):
            self.take()
            exponent = self.exponent()
            if isinstance(base, Matrix | Tup) and exponent == Sym("T"):  # a transpose: v^T, A^{\top}
                return self.postfix(transposed(base))
            base = self.postfix(Pow(base, exponent))
        return base

    def exponent(self) -> Node:
        if self.is_op("{"):
            return self.group()
        if self.is_op("-"):
            self.take()
            return Neg(self.exponent())
        if self.tok.kind == "num":
            return self.number()
        return self.atom()

    def postfix(self, node: Node) -> Node:
        while True:
            if self.is_op("!"):
                self.take()
                node = Fact(node)
            elif self.is_op("%"):
                self.take()
                node = Pct(node)
            elif self.is_op("\u00b0"):
                self.take()
                node = Deg(node)
            elif self.is_op("'"):
                raise ParseError("primes are not supported")
            else:
                return node

    # -- atoms --------------------------------------------------------------------------
    def number(self) -> Node:
        value, places = number_value(self.take())
        if self.is_op("_") and places is None:  # 1011_2: digits in another base
            self.take()
            base = self.arg()
            if not isinstance(base, Num) or base.places is not None or not 2 <= base.value <= 36:
                raise ParseError("unsupported base subscript")
            return InBase(str(value.numerator), int(base.value))
        return Num(value, places)

    def group(self) -> Node:
        """``{ ... }``: a grouped expression (with commas inside: a set, plain-text style)."""
        self.enter()
        self.expect_op("{")
        node = self.items(closers=("}",))
        self.expect_op("}")
        self.leave()
        return Set(node.items) if isinstance(node, List) else node

    def arg(self) -> Node:
        """A LaTeX argument: ``{...}`` or a single token (``\\frac12``, ``\\sqrt2``)."""
        if self.is_op("{"):
            return self.group()
        tok = self.tok
        if tok.kind == "num":
            value, places = number_value(tok)
            self.take()
            return Num(value, places)
        if tok.kind in ("letter", "cmd"):
            return self.atom()
        raise ParseError(f"expected an argument, found {tok.value!r}")

    def atom(self) -> Node:
        self.enter()
        try:
            return self._atom()
        finally:
            self.leave()

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
        if self.is_op("(", "["):
            return self.bracketed(str(tok.value))
        if self.is_op("{"):
            return self.group()
        if self.is_op("\\{"):
            return self.braced_set()
        if self.is_op("|"):
            self.take()
            inner = self.additive()
            self.expect_op("|")
            return Abs(inner)
        raise ParseError(f"unexpected {tok.value!r}")

    def braced_set(self) -> Node:
        """``\\{1, 2\\}``, ``\\{\\}``, and a set-builder set ``\\{x \\mid 1 < x < 2\\}`` (its condition)."""
        self.take()
        if self.is_op("\\}"):
            self.take()
            return Set(())
        if set_builder(self):
            condition = self.items(closers=("\\}",))
            self.expect_op("\\}")
            return And(condition.items) if isinstance(condition, List) else condition
        node = self.items(closers=("\\}",))
        self.expect_op("\\}")
        return Set(node.items if isinstance(node, List | Or) else (node,))

    def subscript(self, name: str) -> Node:
        """A name, with a subscript if one follows (``a_1``, ``x_n``)."""
        if not self.is_op("_"):
            return self.letter(name)
        self.take()
        after = self.peek(2)
        if self.is_op("{") and self.peek().kind == "word" and after.kind == "op" and after.value == "}":
            self.take()  # S_{MBCN}, x_{max}: a name as the subscript
            word = self.take().value
            self.take()
            return Sym(f"{name}_{word}")
        sub = self.arg()
        if isinstance(sub, Num) and sub.places is None:
            return Sym(f"{name}_{sub.value}")
        if isinstance(sub, Sym):
            return Sym(f"{name}_{sub.name}")
        raise ParseError("unsupported subscript")

    def letter(self, name: str) -> Node:
        constant = (name == "e" and self.config.euler_e) or (name == "i" and self.config.imaginary_i)
        return Const(name) if constant else Sym(name)

    def word(self) -> Node:
        word = str(self.take().value)
        low = word.lower()
        if low in ("pi", "inf", "infty", "infinity", "oo"):
            return Const("pi" if low == "pi" else "oo")
        if low in FUNCTIONS or low == "sqrt":
            return function(self, low)
        if low in UNIT_STOP or low in _PROSE or len(word) > 3:
            raise ParseError(f"{word!r} reads as prose, not math")
        # A run of letters in math is a product of one-letter symbols: xy = x*y.
        syms = [self.letter(c) for c in word[:-1]]
        syms.append(self.subscript(word[-1]))
        return product_of(syms)

    def bracketed(self, opener: str) -> Node:
        """``( ... )`` or ``[ ... ]``: a grouped expression, a tuple or an interval."""
        self.enter()
        self.take()
        node = self.items(closers=(")", "]"))
        closer = self.tok.value if self.tok.kind == "op" else None
        if closer not in _BRACKETS:
            raise ParseError(f"unclosed {opener!r}")
        self.take()
        self.leave()
        if not isinstance(node, List):
            if _BRACKETS[str(closer)] != opener:
                raise ParseError("mismatched brackets")
            return node
        if len(node.items) == 2 and (opener, closer) != ("(", ")"):
            return Interval(opener == "[", node.items[0], node.items[1], closer == "]")
        if _BRACKETS[str(closer)] != opener:
            raise ParseError("mismatched brackets")
        return Tup(node.items)


def parse(text: str, config: MathConfig = _DEFAULT) -> Node:
    """Parse normalized answer text into a node tree, reading letters and mixed numbers as
    ``config`` says; raises ParseError.

    Examples:
        >>> parse(r"\\frac{1}{2}")
        Div(num=Num(value=Fraction(1, 1), places=None), den=Num(value=Fraction(2, 1), places=None))
    """
    tokens = tokenize(text)
    if len(tokens) == 1:
        raise ParseError("empty answer")
    return _Parser(tokens, config).top()
