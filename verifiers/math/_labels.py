"""Labelled values: ``Minimum: 0, Maximum: 4`` (or ``Min = 0, Max = 4``) read as values under
names (``minimum = 0, maximum = 4``), so they match the same labels in any order, or the bare
values in order.

A label is one to four words with a word of three letters or more that is neither math nor
code (``sin``, ``or``, ``lambda``, ``return``); ``x: 3`` and ``AB:CD`` stay ratios. Filler
words do not count (``the``, ``value``): "the minimum value" and "Minimum" are one label, and
so are ``min`` and ``minimum``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifiers.math._latex import FUNCTIONS, GREEK
from verifiers.math._nodes import List, Node, Relation, Sym, Text

__all__ = ["labelled_sentence", "labelled_values"]

_CHUNK = re.compile(r"\s*([A-Za-z][A-Za-z ]{0,40}?)\s*(?::|=)(?!=)\s*(.+?)\s*", re.DOTALL)
_FILLER = frozenset("the a an value values of".split())
_SHORT = {"min": "minimum", "max": "maximum"}
# Math and code are not labels: a function's or a Greek letter's name, a joining word, a keyword.
_NOT_LABELS = FUNCTIONS | GREEK | frozenset("sqrt and or either pi inf frac return print def yield".split())


def _key(label: str) -> str | None:
    """The name a label stands for, or None when it is not a label."""
    words = label.lower().split()
    if not 1 <= len(words) <= 4 or not any(len(w) >= 3 and w not in _NOT_LABELS for w in words):
        return None
    kept = [_SHORT.get(w, w) for w in words if w not in _FILLER]
    return " ".join(kept or words)


def _top_level_parts(text: str, masked: str | None = None) -> list[str]:
    """``text`` split at commas, semicolons and " and " outside brackets (and outside math, where
    ``masked`` is the text with its math masked)."""
    scan = masked if masked is not None else text
    parts, depth, start, i = [], 0, 0, 0
    while i < len(scan):
        c = scan[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and (c in ",;" or scan.startswith(" and ", i)):
            parts.append(text[start:i])
            i += 1 if c in ",;" else 5
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


_ASSERTED = re.compile(
    r"\s*(?:(?:so|thus|therefore|hence|finally|and)\s*,?\s+)?(?:the\s+)?([A-Za-z][A-Za-z ]{0,40}?)"
    r"\s+(?:is|are|was|equals|=)\s+(.+?)\s*",
    re.IGNORECASE | re.DOTALL,
)
_LEAD = re.compile(r"\W*(?:so|thus|therefore|hence|finally|in\s+conclusion)\b\s*,?", re.IGNORECASE)
_VALUE_LIKE = re.compile(r"[\d$\\]")


def labelled_sentence(body: str, masked: str) -> str | None:
    """A sentence asserting two or more labelled values ("the minimum is $0$ and the maximum is
    $4$") as labelled values (``minimum: $0$, maximum: $4$``); None for any other sentence.
    ``masked`` is ``body`` with its math masked (commas inside math do not split it).

    Example:
        >>> labelled_sentence("So x is 2 and the area is 7", "So x is 2 and the area is 7")
        'x = 2, area: 7'
    """
    lead = _LEAD.match(body)
    start = lead.end() if lead else 0
    parts = [p for p in _top_level_parts(body[start:], masked[start:]) if p.strip()]
    while parts and not _VALUE_LIKE.search(parts[0]):  # an introduction: "Comparing the ends, ..."
        parts.pop(0)
    if len(parts) < 2:
        return None
    said = []
    for part in parts:
        m = _ASSERTED.fullmatch(part)
        if m is None or not _VALUE_LIKE.search(m.group(2)):
            return None
        label, value = m.group(1).strip(), m.group(2)
        if _key(label) is not None:
            said.append(f"{label}: {value}")
        elif re.fullmatch(r"[A-Za-z]", label):
            said.append(f"{label} = {value}")
        else:
            return None
    return ", ".join(said)


def labelled_values(norm: str, read: Callable[[str], Node | None]) -> Node | None:
    """``Minimum: 0, Maximum: 4`` (normalized text) as ``minimum = 0, maximum = 4``, one
    labelled value as its value; None when ``norm`` is not labelled values. ``read`` parses one
    value.

    Example:
        >>> from verifiers.math._parser import parse
        >>> labelled_values("Min: 0, Max: 4", parse).items[1]
        Relation(ops=('=',), exprs=(Sym(name='maximum'), Num(value=Fraction(4, 1), places=None)))
    """
    if ":" not in norm and "=" not in norm:
        return None
    pairs: list[list[str]] = []
    for part in _top_level_parts(norm):
        m = _CHUNK.fullmatch(part)
        key = _key(m.group(1)) if m else None
        if m is not None and key is not None:
            pairs.append([key, m.group(2)])
        elif pairs and part.strip():
            pairs[-1][1] += ", " + part.strip()  # a value with a comma inside: "Roots: 1, 2"
        else:
            return None
    items: list[Relation] = []
    for key, text in pairs:
        try:
            value = read(text)
        except ValueError:
            return None
        if value is None or isinstance(value, Text | Relation):
            return None
        items.append(Relation(("=",), (Sym(key), value)))
    if len({key for key, _ in pairs}) != len(pairs):
        return None
    if len(items) == 1:  # one labelled value is its value, as ``x = 3`` is 3
        return items[0].exprs[1]
    return List(tuple(items))
