"""Definitions read from the token cursor: a function defined by an expression (``f(x) = x^2``,
whose arguments are bound names) and a set defined by a condition (``\\{x \\mid 1 < x < 2\\}``).
"""

from __future__ import annotations

from verifiers.math._latex import GREEK
from verifiers.math._lexer import Tokens, number_value

__all__ = ["function_head"]


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
