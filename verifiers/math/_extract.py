"""Which answer(s) a completion commits to. Linear-time string scanning, no parsing.

Order of evidence: every ``\\boxed{}`` / ``\\fbox{}`` and every explicit statement ("the
answer is", "Final Answer:", "####", ...) in the text, in the order they appear; else the
whole completion when it is one short line; else (optionally) the last number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from verifiers.math._config import MathConfig

__all__ = ["Commitments", "bare_candidates", "commitments", "last_number", "reduce_gold"]

_BOX = re.compile(r"\\(?:boxed|fbox)\s*(\{)|\\boxed\s+([^\s${}\\]+)")
_SENTENCE_END = re.compile(r"\n|(?<!\d)[.!?](?=\s|$)|(?<=\d)[.!?](?=\s+[A-Z(]|\s*$)|\.\s+(?=[A-Z])")
_CLAUSE = re.compile(
    r"\s+(?:because|since|as|which|so that|for|when|where|given|if|with)\s"
    r"|,\s*(?:which|since|because|so)\s",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:/\d+)?")
_MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)


@dataclass(frozen=True)
class Commitments:
    """The answers a completion commits to, in order, and how they were found."""

    answers: tuple[str, ...]
    source: str  # boxed | stated | bare | last_number | none
    note: str = ""
    kinds: tuple[str, ...] = ()  # per answer: boxed | stated (when source is boxed/stated)
    spray: bool = False  # more answers than anyone commits to: spraying whatever they say


_MAX_ANSWER = 4000  # longer boxed content is cut here (it cannot parse anyway)
_MAX_BOXES = 64  # more committed answers than this is spraying, whatever they say


def _closing_braces(text: str) -> dict[int, int]:
    """Index of each unescaped '{' mapped to its matching '}', in one linear pass."""
    match: dict[int, int] = {}
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            match[stack.pop()] = i
        i += 1
    return match


@lru_cache(maxsize=32)
def _anchor_regex(anchors: tuple[str, ...]) -> re.Pattern[str]:
    alts = "|".join(re.escape(a) for a in sorted(anchors, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z])(?:{alts})", re.IGNORECASE)


def _statement(text: str, start: int) -> str:
    """The answer stated after an anchor ending at ``start``: up to the end of the sentence."""
    rest = text[start : start + 600]
    rest = re.sub(r"^[\s:*=]*(?:is\b|was\b|of\b)?[\s:*=]*", "", rest)
    m = _SENTENCE_END.search(rest)
    stated = rest[: m.start()] if m else rest
    clause = _CLAUSE.search(stated)
    if clause:
        stated = stated[: clause.start()]
    stated = stated.strip().strip("*").strip()
    return stated.rstrip(",;:") or stated


def _boxes(text: str) -> list[tuple[int, str]]:
    found = list(_BOX.finditer(text))
    if not found:
        return []
    closing = _closing_braces(text)
    boxes = []
    for m in found:
        if m.group(1) is None:
            boxes.append((m.start(), m.group(2)))
            continue
        start = m.start(1)
        end = closing.get(start)
        # An unclosed group keeps the rest of the text, which will not parse.
        content = text[start + 1 : end] if end is not None else text[start + 1 :]
        boxes.append((m.start(), content[:_MAX_ANSWER]))
    return boxes


def commitments(completion: str, config: MathConfig) -> Commitments:
    """Find the answers ``completion`` commits to under ``config``.

    Example:
        >>> commitments(r"so it is \\boxed{4}. Wait: \\boxed{5}", MathConfig()).answers
        ('4', '5')
    """
    text = completion
    if config.think_end:
        cut = text.rfind(config.think_end)
        if cut >= 0:
            text = text[cut + len(config.think_end) :]
        elif config.think_start and config.think_start in text:
            return Commitments((), "none", "the reasoning was cut off before its closing tag")
    found: list[tuple[int, str, str]] = []
    anchors = list(_anchor_regex(config.anchors).finditer(text))
    n_boxes = len(_BOX.findall(text)) if config.boxed else 0
    if n_boxes + len(anchors) > _MAX_BOXES:
        return Commitments((), "none", f"{n_boxes + len(anchors)} answers", spray=True)
    if config.boxed:
        found += [(pos, content, "boxed") for pos, content in _boxes(text)]
    for m in anchors:
        stated = _statement(text, m.end())
        if not stated or _BOX.search(stated) or _anchor_regex(config.anchors).search(stated):
            continue  # a box there is counted as a box; a nested anchor counts on its own
        found.append((m.start(), stated, "stated"))
    if found:
        found.sort(key=lambda f: f[0])
        source = "boxed" if all(f[2] == "boxed" for f in found) else "stated"
        return Commitments(tuple(f[1] for f in found), source, kinds=tuple(f[2] for f in found))
    bare = text.strip().strip("*").strip()
    if bare and "\n" not in bare and len(bare) <= config.bare_max_chars:
        if not _SENTENCE_END.search(bare.rstrip(".!? ")):  # one sentence at most
            return Commitments((bare,), "bare")
    if config.last_number_fallback and last_number(text) is not None:
        return Commitments((str(last_number(text)),), "last_number")
    if not text.strip():
        return Commitments((), "none", "the completion is empty")
    return Commitments((), "none", "no boxed answer or answer statement was found")


def bare_candidates(text: str) -> list[str]:
    """The math inside one short sentence: its one ``$...$`` segment, else its one number.

    A sentence with several candidates commits to none of them."""
    segments = [next(g for g in m.groups() if g is not None) for m in _MATH_SEGMENT.finditer(text)]
    if segments:
        return segments if len(set(segments)) == 1 else []
    numbers = _NUMBER.findall(text)
    return numbers if len(set(numbers)) == 1 else []


def last_number(text: str) -> str | None:
    """The last number written in ``text`` (the GSM8K-style fallback)."""
    numbers = _NUMBER.findall(text)
    return numbers[-1] if numbers else None


def reduce_gold(gold: str) -> str:
    """A gold stored with its solution (MATH's boxed, GSM8K's ``####``) reduced to the answer."""
    boxes = _boxes(gold)
    if boxes:
        return boxes[-1][1]
    if "####" in gold:
        return gold.rsplit("####", 1)[1].strip()
    return gold
