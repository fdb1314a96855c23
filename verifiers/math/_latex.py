"""LaTeX commands, functions and matrix environments for the parser (`_parser`)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from verifiers.math._lexer import ParseError, number_value
from verifiers.math._nodes import Node

if TYPE_CHECKING:
    from verifiers.math._parser import _Parser as Parser

__all__ = ["FUNCTIONS", "GREEK", "command", "function", "matrix"]

ONE: Node = ("n", Fraction(1), None)
GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Sigma Phi "
    "Psi Omega".split()
)
FUNCTIONS = frozenset("sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh ln log exp lg".split())
_INVERSE = {"sin": "arcsin", "cos": "arccos", "tan": "arctan"}
_MATRIX_ENVS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix array".split())


def command(p: Parser) -> Node:
    name = str(p.take().value)[1:]
    if name == "frac":
        if p.tok.kind == "num":
            value, places = number_value(p.tok)
            if places is None and 10 <= value < 100:
                p.take()  # \frac12: two one-digit arguments
                a, b = divmod(int(value), 10)
                return ("div", ("n", Fraction(a), None), ("n", Fraction(b), None))
        num = p.arg()
        return ("div", num, p.arg())
    if name == "sqrt":
        return function(p, "sqrt")
    if name == "pi":
        return ("const", "pi")
    if name == "infty":
        return ("const", "oo")
    if name in ("imath",):
        return ("const", "i")
    if name in GREEK:
        return p.subscript(name)
    if name in FUNCTIONS:
        return function(p, name)
    if name == "binom":
        top = p.arg()
        return ("binom", top, p.arg())
    if name in ("emptyset", "varnothing"):
        return ("set", ())
    if name == "mathbb":
        arg = p.arg()
        if arg == ("sym", "R"):
            return ("ival", False, ("neg", ("const", "oo")), ("const", "oo"), False)
        raise ParseError("unsupported \\mathbb")
    if name in ("lfloor", "lceil"):
        inner = p.additive()
        closer = "\\rfloor" if name == "lfloor" else "\\rceil"
        if not p.is_cmd(closer):
            raise ParseError(f"expected {closer}")
        p.take()
        return ("fn", "floor" if name == "lfloor" else "ceiling", inner)
    if name == "begin":
        return matrix(p)
    raise ParseError(f"unsupported command \\{name}")


def function(p: Parser, name: str) -> Node:
    if name == "sqrt":
        index: Node | None = None
        if p.is_op("["):
            p.take()
            index = p.additive()
            p.expect_op("]")
        arg = p.arg() if not p.is_op("(") else p.bracketed("(")
        return ("root", arg, index or ("n", Fraction(2), None))
    base: Node | None = None
    power: Node | None = None
    if name in ("log",) and p.is_op("_"):
        p.take()
        base = p.arg()
    if p.is_op("^"):
        p.take()
        power = p.exponent()
        if power == ("neg", ONE) and name in _INVERSE:
            name, power = _INVERSE[name], None
    if p.is_op("(", "{"):
        arg = p.bracketed("(") if p.is_op("(") else p.group()
    else:  # \sin 2x: the implicit product that follows
        factors = [p.power()]
        while p.tok.kind in ("num", "letter") or (p.tok.kind == "cmd" and str(p.tok.value)[1:] in GREEK | {"pi"}):
            factors.append(p.power())
        arg = factors[0] if len(factors) == 1 else ("mul", tuple(factors))
    if name == "lg":
        base = ("n", Fraction(10), None)
    node: Node = ("log", base, arg) if base is not None else ("fn", name, arg)
    return ("pow", node, power) if power is not None else node


def matrix(p: Parser) -> Node:
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
    return ("matrix", tuple(tuple(r) for r in rows))
