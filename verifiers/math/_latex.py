"""LaTeX commands, functions and matrix environments, read for the parser (`_parser`).

Each reader takes the grammar through the `Grammar` protocol: the token cursor and the few
productions a command's arguments need, nothing else of the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from verifiers.math._lexer import ParseError, Token, number_value
from verifiers.math._nodes import (
    NEG_OO,
    OO,
    Binom,
    Const,
    Div,
    Domain,
    Fn,
    Interval,
    List,
    Log,
    Matrix,
    Neg,
    Node,
    Pow,
    Root,
    Set,
    Sym,
    Tup,
    num,
    product_of,
)

__all__ = ["FUNCTIONS", "GREEK", "Grammar", "command", "function", "matrix", "starts_value"]


class Grammar(Protocol):
    """What the LaTeX readers use of the parser."""

    @property
    def tok(self) -> Token: ...
    def take(self) -> Token: ...
    def is_op(self, *values: str) -> bool: ...
    def is_cmd(self, *values: str) -> bool: ...
    def expect_op(self, value: str) -> None: ...
    def arg(self) -> Node:
        """``{...}`` or one token."""

    def group(self) -> Node:
        """``{...}``."""

    def bracketed(self, opener: str) -> Node:
        """``(...)`` or ``[...]``."""

    def additive(self) -> Node:
        """A sum (a whole expression without relations)."""

    def power(self) -> Node:
        """A factor with its exponent."""

    def exponent(self) -> Node:
        """What follows ``^``."""

    def subscript(self, name: str) -> Node:
        """A name with an optional ``_`` subscript."""

    def items(self, closers: tuple[str, ...]) -> Node:
        """A comma list (a `List`) or one item."""


ONE = num(1)
GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Sigma Phi "
    "Psi Omega".split()
)
FUNCTIONS = frozenset("sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh ln log exp lg".split())
_INVERSE = {"sin": "arcsin", "cos": "arccos", "tan": "arctan"}
_VALUE_COMMANDS = frozenset(
    "\\frac \\sqrt \\pi \\infty \\binom \\begin \\lfloor \\lceil \\emptyset \\varnothing "
    "\\mathbb \\imath \\overline \\e \\langle".split()
)
_MATRIX_ENVS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix array".split())


def starts_value(name: str) -> bool:
    """Whether the command ``name`` (``\\frac``, ``\\alpha``, ``\\sin``) begins a value (and so an
    implicit product: ``2\\pi``)."""
    return name in _VALUE_COMMANDS or name[1:] in GREEK or name[1:] in FUNCTIONS


def command(p: Grammar) -> Node:
    """A command and its arguments: a constant (``\\pi``), a Greek name (``\\alpha_1``), a function
    (``\\sin x``) or one of `_READERS` (``\\frac12``, ``\\binom{n}{k}``, ``\\begin{pmatrix}``...)."""
    name = str(p.take().value)[1:]
    if name in _CONSTANTS:
        return _CONSTANTS[name]
    if name in GREEK:
        return p.subscript(name)
    if name in FUNCTIONS:
        return function(p, name)
    if name in _READERS:
        return _READERS[name](p, name)
    if name in ("min", "max") and p.is_op("}"):  # S_{\min}: a name's subscript
        return Sym(name)
    raise ParseError(f"unsupported command \\{name}")


def _frac(p: Grammar, name: str) -> Node:
    if p.tok.kind == "num":
        value, places = number_value(p.tok)
        if places is None and 10 <= value < 100:
            p.take()  # \frac12: two one-digit arguments
            a, b = divmod(int(value), 10)
            return Div(num(a), num(b))
    top = p.arg()
    return Div(top, p.arg())


def _binom(p: Grammar, name: str) -> Node:
    n = p.arg()
    return Binom(n, p.arg())


def _mathbb(p: Grammar, name: str) -> Node:
    """``\\mathbb{R}`` is the interval of all reals; ``\\mathbb{Z}``, ``\\mathbb{N}``, ``\\mathbb{Z}^+``
    (also ``^{+}``, ``_{>0}``, ``^*``) are named sets of numbers (`Domain`), read in qualifiers."""
    letter = p.arg()
    if letter == Sym("R") and not p.is_op("^", "_"):
        return Interval(False, NEG_OO, OO, False)
    if not isinstance(letter, Sym) or letter.name not in ("Z", "N", "Q", "R"):
        raise ParseError("unsupported \\mathbb")
    mark = ""
    if p.is_op("^", "_"):
        p.take()
        braced = p.is_op("{")
        if braced:
            p.take()
        while p.tok.kind in ("op", "rel", "num") and not p.is_op("}") and (braced or not mark):
            tok = p.take()
            mark += str(number_value(tok)[0]) if tok.kind == "num" else str(tok.value)
        if braced:
            p.expect_op("}")
    return Domain(letter.name + {"": "", "+": "+", "*": "+", ">0": "+", ">=0": "0+"}.get(mark, mark))


def _floor_or_ceiling(p: Grammar, name: str) -> Node:
    inner = p.additive()
    closer = "\\rfloor" if name == "lfloor" else "\\rceil"
    if not p.is_cmd(closer):
        raise ParseError(f"expected {closer}")
    p.take()
    return Fn("floor" if name == "lfloor" else "ceiling", inner)


def _vector(p: Grammar, name: str) -> Node:
    """A vector written ``\\langle 2, -3, 4 \\rangle``."""
    items = p.items(closers=())
    if not p.is_cmd("\\rangle"):
        raise ParseError("expected \\rangle")
    p.take()
    return Tup(items.items if isinstance(items, List) else (items,))


def function(p: Grammar, name: str) -> Node:
    if name == "sqrt":
        index: Node | None = None
        if p.is_op("["):
            p.take()
            index = p.additive()
            p.expect_op("]")
        arg = p.arg() if not p.is_op("(") else p.bracketed("(")
        return Root(arg, index or num(2))
    base: Node | None = None
    power: Node | None = None
    if name in ("log",) and p.is_op("_"):
        p.take()
        base = p.arg()
    if p.is_op("^"):
        p.take()
        power = p.exponent()
        if power == Neg(ONE) and name in _INVERSE:
            name, power = _INVERSE[name], None
    if p.is_op("(", "{"):
        arg = p.bracketed("(") if p.is_op("(") else p.group()
    else:  # \sin 2x: the implicit product that follows
        factors = [p.power()]
        while p.tok.kind in ("num", "letter") or (p.tok.kind == "cmd" and str(p.tok.value)[1:] in GREEK | {"pi"}):
            factors.append(p.power())
        arg = product_of(factors)
    if name == "lg":
        base = num(10)
    node: Node = Log(base, arg) if base is not None else Fn(name, arg)
    return Pow(node, power) if power is not None else node


def matrix(p: Grammar) -> Node:
    p.expect_op("{")
    env = p.take()
    p.expect_op("}")
    if env.value not in _MATRIX_ENVS:
        raise ParseError(f"unsupported environment {env.value!r}")
    if env.value == "array" and p.is_op("{"):
        while not p.is_op("}"):
            if p.take().kind == "end":
                raise ParseError("unclosed array spec")
        p.take()
    rows: list[list[Node]] = [[]]
    while not p.is_cmd("\\end"):
        if p.tok.kind == "end":
            raise ParseError("unclosed matrix")
        rows[-1].append(p.additive())
        if p.is_op("&"):
            p.take()
        elif p.is_op("\\\\"):
            p.take()
            rows.append([])
    p.take()
    p.expect_op("{")
    p.take()
    p.expect_op("}")
    if rows and not rows[-1]:
        rows.pop()
    if not rows or len({len(r) for r in rows}) != 1:
        raise ParseError("ragged matrix")
    return Matrix(tuple(tuple(r) for r in rows))


_CONSTANTS: dict[str, Node] = {
    "pi": Const("pi"),
    "infty": OO,
    "imath": Const("i"),
    "emptyset": Set(()),
    "varnothing": Set(()),
}
"""Commands that are a value by themselves (nodes are frozen: one instance serves every parse)."""
_READERS: dict[str, Callable[[Grammar, str], Node]] = {
    "frac": _frac,
    "sqrt": lambda p, name: function(p, "sqrt"),
    "binom": _binom,
    "mathbb": _mathbb,
    "lfloor": _floor_or_ceiling,
    "lceil": _floor_or_ceiling,
    "begin": lambda p, name: matrix(p),
    "langle": _vector,
}
"""Commands that read arguments after them: name -> reader of the grammar and the name."""
