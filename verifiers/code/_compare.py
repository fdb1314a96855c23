"""Comparing a program's stdout with the expected output, token by token."""

from __future__ import annotations

import re

__all__ = ["first_difference"]

_INT = re.compile(r"[+-]?\d+\Z")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?\Z|[+-]?(inf|nan)\Z", re.I)
FLOAT_TOL = 1e-6


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _tokens_equal(expected: str, actual: str) -> bool:
    if expected == actual:
        return True
    if _INT.match(expected):
        return bool(_INT.match(actual)) and int(expected) == int(actual)
    if _FLOAT.match(expected) and _FLOAT.match(actual):
        e, a = float(expected), float(actual)
        return abs(e - a) <= FLOAT_TOL * max(1.0, abs(e))
    return False


def first_difference(expected: str, actual: str) -> str | None:
    """None when ``actual`` matches ``expected``; else a short description of the first mismatch.

    Rules: ``\\r\\n`` equals ``\\n``; trailing whitespace per line and trailing blank lines are
    ignored; lines correspond one to one; tokens split on whitespace; integer tokens are exact;
    float tokens equal within ``1e-6 * max(1, |expected|)``; everything else is exact and
    case-sensitive. No order or set leniency.

    Examples:
        >>> first_difference("1 2.0\\n", "1 2.0000001  \\r\\n\\n") is None
        True
        >>> first_difference("3\\n", "3.0\\n")
        "line 1: expected '3', got '3.0'"
    """
    want, got = _lines(expected), _lines(actual)
    for k, (w, g) in enumerate(zip(want, got, strict=False), 1):
        wt, gt = w.split(), g.split()
        if len(wt) != len(gt) or not all(_tokens_equal(a, b) for a, b in zip(wt, gt, strict=True)):
            return f"line {k}: expected {w[:80]!r}, got {g[:80]!r}"
    if len(want) != len(got):
        return f"expected {len(want)} line(s), got {len(got)}"
    return None
