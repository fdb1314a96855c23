"""Definitions read from the token cursor: a function defined by an expression (``f(x) = x^2``,
whose arguments are bound names) and a set defined by a condition (``\\{x \\mid 1 < x < 2\\}``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from verifiers.math._latex import GREEK
from verifiers.math._lexer import ParseError, Token, Tokens, number_value
from verifiers.math._nodes import NEG_OO, OO, And, Def, Domain, Interval, List, Node, Num, Or, Relation, Set, Sym, Tup

__all__ = ["LEADS", "definition", "function_head", "membership", "qualifier", "set_builder", "without"]


def definition(ts: Tokens, expression: Callable[[], Node]) -> Node | None:
    """``f(x) = x^2 + 1``, ``h(s, t) = st``, ``f^{-1}(x) = 2x``, ``g_1(x) = 3``: a function of
    named arguments defined by one ``expression``; ``(u(k), v(k)) = (2k, k^2)``: the list of
    definitions it writes at once; None (nothing taken) for anything else."""
    start = ts.i
    if ts.is_op("(") and (several := _definitions_at_once(ts, expression)) is not None:
        return several
    ts.i = start
    head = function_head(ts)
    if head is not None and ts.tok.kind == "rel" and ts.tok.value == "=":
        ts.take()
        body = expression()
        if ts.tok.kind != "rel" and not ts.is_cmd("\\in", "\\perp", "\\parallel"):
            return Def(head[0], head[1], body)
    ts.i = start
    return None


def _definitions_at_once(ts: Tokens, expression: Callable[[], Node]) -> List | None:
    """``(u(k), v(k)) = (2k, k^2)`` as ``u(k) = 2k, v(k) = k^2``; None for anything else."""
    ts.take()
    heads = []
    while (head := function_head(ts)) is not None:
        heads.append(head)
        if ts.is_op(")"):
            ts.take()
            break
        if not ts.is_op(","):
            return None
        ts.take()
    if len(heads) < 2 or not (ts.tok.kind == "rel" and ts.tok.value == "=") or not ts.peek().value == "(":
        return None
    ts.take()
    value = expression()
    if not isinstance(value, Tup) or len(value.items) != len(heads) or ts.tok.kind == "rel":
        return None
    return List(tuple(Def(name, args, body) for (name, args), body in zip(heads, value.items, strict=True)))


def function_head(ts: Tokens) -> tuple[str, tuple[str, ...]] | None:
    """``f(x, y)`` (a one-letter name, maybe ``_1`` or ``^{-1}``, then named arguments), taken."""
    if ts.tok.kind != "letter" or ts.peek().kind != "op" or ts.peek().value not in ("(", "_", "^"):
        return None
    name = str(ts.take().value)
    if ts.is_op("_") and ts.peek().kind in ("num", "letter"):
        ts.take()
        sub = ts.take()
        name += f"_{number_value(sub)[0]}" if sub.kind == "num" else f"_{sub.value}"
    if ts.is_op("^"):
        ts.take()
        braced = ts.is_op("{")
        if braced:
            ts.take()
        if not (ts.is_op("-") and ts.peek().kind == "num" and number_value(ts.peek())[0] == 1):
            return None
        ts.take()
        ts.take()
        if braced:
            if not ts.is_op("}"):
                return None
            ts.take()
        name += "^{-1}"
    if not ts.is_op("("):
        return None
    ts.take()
    args: list[str] = []
    while True:
        tok = ts.tok
        if tok.kind == "letter":
            args.append(str(tok.value))
        elif tok.kind == "cmd" and str(tok.value)[1:] in GREEK:
            args.append(str(tok.value)[1:])
        else:
            return None
        ts.take()
        if ts.is_op(")"):
            ts.take()
            break
        if not ts.is_op(","):
            return None
        ts.take()
    if len(set(args)) != len(args) or name in args:
        return None
    return name, tuple(args)


def set_builder(ts: Tokens) -> bool:
    """After ``\\{``: whether a set-builder head follows (``x \\mid``, ``x :``, ``x \\in \\mathbb{R} |``),
    taken, so that the condition comes next; nothing is taken when it does not. A set of
    integers (``x \\in \\mathbb{Z}``) is not an interval: unsupported."""
    start = ts.i
    tok = ts.take()
    if not (tok.kind == "letter" or (tok.kind == "cmd" and str(tok.value)[1:] in GREEK)):
        ts.i = start
        return False
    if ts.is_cmd("\\in") and ts.peek().kind == "cmd" and ts.peek().value == "\\mathbb":
        ts.take()
        ts.take()
        domain = [ts.take().value for _ in range(3)] if ts.is_op("{") else ["{", ts.take().value, "}"]
        if domain != ["{", "R", "}"]:
            raise ParseError(f"a set of \\mathbb{{{domain[1]}}} defined by a condition is not supported")
    if ts.is_cmd("\\mid", "\\colon") or ts.is_op("|", ":"):
        ts.take()
        return True
    ts.i = start
    return False


LEADS = frozenset("where for with when whenever".split())
_QUANTIFIERS = frozenset("all any every each some arbitrary".split())
_DOMAIN_WORDS = {"integer": "Z", "integers": "Z", "real": "R", "reals": "R", "natural": "N", "naturals": "N"}
_SIGNS = {"positive": "+", "nonnegative": "0+", "negative": "-"}


_REALS = Interval(False, NEG_OO, OO, False)


_BOUNDS: dict[tuple[str, Node], str] = {
    (">", Num(Fraction(0))): "R+",
    (">=", Num(Fraction(0))): "R0+",
    ("<", Num(Fraction(0))): "R-",
}
"""``x > 0`` is what "positive real x" says (``R+``), and so on; other bounds keep their own name."""


def _is_name(tok: Token) -> bool:
    return tok.kind == "letter" or (tok.kind == "cmd" and str(tok.value)[1:] in GREEK)


def membership(name: Node, domain: Node) -> Node:
    """``k \\in \\mathbb{Z}`` is a qualifier (`Relation` ``in``) on the name; ``x \\in [0, 1)`` is its set."""
    if isinstance(domain, Sym) and domain.name in ("Z", "N"):  # k \in Z written without \mathbb
        domain = Domain(domain.name)
    if domain == _REALS and isinstance(name, Sym):
        domain = Domain("R")  # x \in \mathbb{R}: a qualifier after an answer, the set of reals alone
    if isinstance(domain, Domain) and isinstance(name, Sym):
        return Relation(("in",), (name, domain))
    return domain


def qualifier(ts: Tokens, relation: Callable[[], Node]) -> list[Node] | None:
    """A qualifier on a parameter after an answer, taken: ``where k is an integer``, ``for any
    integer k``, ``for every real t``, ``k \\in \\mathbb{Z}``, ``for all positive integers n`` (a
    `Relation` ``in`` a `Domain` per name); None (nothing taken) when none follows."""
    if ts.tok.kind not in ("word", "letter", "cmd"):  # a comma, a bracket, the end: no qualifier
        return None
    start = ts.i
    lead = ts.is_word(*LEADS) or ts.is_cmd("\\mid", "\\forall")  # \{\frac{\pi}{4} + k\pi \mid k \in \mathbb{Z}\}
    if lead:
        ts.take()
    while ts.is_word(*_QUANTIFIERS) or ts.is_cmd("\\forall"):
        ts.take()
    domain = _domain_words(ts)
    names: list[Sym] = []
    if domain is not None:  # for any integer k (, m)
        while _is_name(ts.tok):
            names.append(Sym(str(ts.take().value).lstrip("\\")))
            if not (ts.is_op(",") and ts.peek().kind == "letter" and ts.peek(2).kind in ("end", "op")):
                break
            ts.take()
    elif ts.tok.kind == "letter" and ts.peek().kind == "word" and str(ts.peek().value).lower() in ("is", "are"):
        names.append(Sym(str(ts.take().value)))  # k is an integer
        ts.take()
        domain = _domain_words(ts)
    elif lead and _is_name(ts.tok) and ts.peek().kind == "cmd" and ts.peek().value == "\\in":
        names.append(Sym(str(ts.take().value).lstrip("\\")))  # where k \in \mathbb{Z}; for all t \in \mathbb{R}
        ts.take()
        found = relation()
        domain = found.name if isinstance(found, Domain) else "R" if found == _REALS else None
    elif lead and _is_name(ts.tok) and ts.peek().kind == "rel" and ts.peek().value != "=":
        found = relation()  # for all x > 0, for x \neq 0: a condition on a variable
        if isinstance(found, Relation) and len(found.ops) == 1 and isinstance(found.exprs[0], Sym):
            names.append(found.exprs[0])
            domain = _BOUNDS.get((found.ops[0], found.exprs[1]), f"{found.ops[0]} {found.exprs[1]!r}")
    if domain is None or not names or (ts.tok.kind not in ("end", "op") or ts.is_op("(", "{", "[")):
        ts.i = start
        return None
    return [Relation(("in",), (name, Domain(domain))) for name in names]


def _domain_words(ts: Tokens) -> str | None:
    """``an integer``, ``any positive integer``, ``real number``: the domain's name, taken."""
    start = ts.i
    while ts.is_word("an", "any", "arbitrary", "some") or (ts.tok.kind == "letter" and ts.tok.value == "a"):
        ts.take()
    sign = ""
    if ts.tok.kind == "word" and str(ts.tok.value).lower() in _SIGNS:
        sign = _SIGNS[str(ts.take().value).lower()]
    if ts.tok.kind == "word" and str(ts.tok.value).lower() in _DOMAIN_WORDS:
        name = _DOMAIN_WORDS[str(ts.take().value).lower()]
        if ts.is_word("number", "numbers"):
            ts.take()
        return name + sign
    ts.i = start
    return None


def without(kept: Node, removed: Node) -> Node:
    """``A \\setminus \\{4\\}`` as the condition it is, ``A`` and ``x \\ne 4`` (a set of points, or an
    interval: ``A`` and outside it); anything else is unsupported."""
    x = Sym("x")  # the condition's variable: a set of numbers names none
    if isinstance(removed, Tup) and len(removed.items) == 2:  # (-1, 1): an open interval
        removed = Interval(False, removed.items[0], removed.items[1], False)
    if isinstance(removed, Set) and removed.items:
        return And((kept, *(Relation(("!=",), (x, point)) for point in removed.items)))
    if isinstance(removed, Interval):
        below = Relation(("<" if removed.left_closed else "<=",), (x, removed.low))
        above = Relation((">" if removed.right_closed else ">=",), (x, removed.high))
        return And((kept, Or((below, above))))
    raise ParseError("unsupported \\setminus")
