"""Reading a completion's structure: the template header, the thinking section, the final
section and the end-of-turn residue. Linear scans with ``str.find`` (`_Marks`); no regular
expressions over model text."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from verifiers.errors import VerifierInputError
from verifiers.structure._families import END_OF_TURN, LEADING, THINKING_FORMATS, ThinkingFormat

__all__ = ["Completion", "read_completion"]


@dataclass(frozen=True)
class Completion:
    """A completion in its parts. ``final`` is the only part that may hold the answer.

    ``final`` is None when there is no final section: the thinking section never closed (the
    output was cut off, or the turn ended inside it); ``note`` then says why. ``thinking`` is
    None when no thinking format was found, ``format`` names the one that was.
    ``residue`` is what followed the end of the turn (or of the final section): never read.

    Examples:
        >>> c = read_completion("<think>maybe 3</think>The answer is 4.<|im_end|>")
        >>> c.format, c.thinking, c.final, c.residue
        ('think', 'maybe 3', 'The answer is 4.', '<|im_end|>')
    """

    text: str
    final: str | None
    thinking: str | None = None
    format: str | None = None
    residue: str = ""
    note: str = ""


@dataclass(frozen=True)
class _Table:
    """The delimiters of some formats and end-of-turn tokens, arranged for one scan of a text."""

    by_prefix: dict[str, tuple[str, ...]]  # first two characters -> needles, longest first
    firsts: tuple[str, ...]  # the first characters to scan for (not letters or digits)
    words: tuple[str, ...]  # needles that begin with a letter or digit: searched directly
    owners: dict[str, tuple[int, ...]]  # a start (not at_start) or end needle -> the ranks of its formats
    at_start: tuple[int, ...]  # the ranks of the formats whose start counts only at the beginning


_TABLES: dict[tuple[int, int], tuple[object, object, _Table]] = {}


def _table(formats: tuple[ThinkingFormat, ...], end_of_turn: tuple[str, ...]) -> _Table:
    """`_Table` of ``formats`` and ``end_of_turn``, made once per pair of tuples."""
    key = (id(formats), id(end_of_turn))
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is formats and hit[1] is end_of_turn:
        return hit[2]
    owners: dict[str, list[int]] = {}
    for rank, fmt in enumerate(formats):
        for needle in (*(() if fmt.at_start else fmt.start), *fmt.end):
            owners.setdefault(needle, []).append(rank)
    needles = set(owners) | {d for f in formats for d in (*f.final_start, *f.final_end)} | set(end_of_turn)
    by_prefix: dict[str, list[str]] = {}
    for needle in sorted(needles, key=len, reverse=True):
        if not needle[0].isalnum():
            by_prefix.setdefault(needle[:2], []).append(needle)
    table = _Table(
        {prefix: tuple(group) for prefix, group in by_prefix.items()},
        tuple(sorted({prefix[0] for prefix in by_prefix})),
        tuple(n for n in needles if n[0].isalnum()),
        {needle: tuple(ranks) for needle, ranks in owners.items()},
        tuple(rank for rank, fmt in enumerate(formats) if fmt.at_start),
    )
    if len(_TABLES) > 64:
        _TABLES.clear()
    _TABLES[key] = (formats, end_of_turn, table)
    return table


class _Marks:
    """Where each delimiter occurs in a text: one scan per first character (``<``, ``[``, ...),
    not one search per delimiter; delimiters that begin with a letter are searched directly."""

    def __init__(self, text: str, table: _Table) -> None:
        self.at: dict[str, list[int]] = {}
        for needle in table.words:
            k = text.find(needle)
            while k >= 0:
                self.at.setdefault(needle, []).append(k)
                k = text.find(needle, k + 1)
        for first in table.firsts:
            k = text.find(first)
            while k >= 0:
                for needle in table.by_prefix.get(text[k : k + 2], ()):  # longest first
                    if text.startswith(needle, k):
                        self.at.setdefault(needle, []).append(k)
                        break
                k = text.find(first, k + 1)

    def first(self, needles: Sequence[str], start: int = 0, stop: int | None = None) -> tuple[int, str]:
        """The first occurrence of any of ``needles`` in [start, stop): (index, needle), or (-1, "")."""
        best, which = -1, ""
        for needle in needles:
            at = self.at.get(needle)
            if not at:
                continue
            j = bisect.bisect_left(at, start)
            if j < len(at) and (stop is None or at[j] < stop) and (best < 0 or at[j] < best):
                best, which = at[j], needle
        return best, which

    def last(self, needles: Sequence[str], stop: int | None = None) -> tuple[int, str]:
        """The last occurrence of any of ``needles`` before ``stop``: (index, needle), or (-1, "")."""
        best, which = -1, ""
        for needle in needles:
            at = self.at.get(needle)
            if not at:
                continue
            j = len(at) if stop is None else bisect.bisect_left(at, stop)
            if j and at[j - 1] > best:
                best, which = at[j - 1], needle
        return best, which


def _strip_leading(text: str) -> str:
    """``text`` without the template tokens that open an assistant turn."""
    while True:
        stripped = text.lstrip()
        for token in LEADING:
            if stripped.startswith(token):
                text = stripped[len(token) :]
                break
        else:
            return text


def _opening(fmt: ThinkingFormat, text: str, marks: _Marks, stop: int | None = None) -> tuple[int, str]:
    """Where ``fmt``'s thinking section opens in ``text``: (index, delimiter) or (-1, "")."""
    if not fmt.at_start:
        return marks.first(fmt.start, 0, stop)
    body = text.lstrip()
    offset = len(text) - len(body)
    for delim in fmt.start:
        if body.startswith(delim):
            rest = body[len(delim) : len(delim) + 1]
            if delim.isalpha() and not (rest.isalpha() and rest.isupper()):
                continue  # a bare word must be glued to the next one: 'analysisWe', not 'analysis of'
            return offset, delim
    return -1, ""


def _detect(
    text: str, formats: Sequence[ThinkingFormat], table: _Table, marks: _Marks, stop: int | None
) -> ThinkingFormat | None:
    """The format whose first delimiter comes first in ``text[:stop]`` (table order breaks ties)."""
    best: tuple[int, int] | None = None
    for needle, at in marks.at.items():
        if at[0] < (len(text) if stop is None else stop):
            for rank in table.owners.get(needle, ()):
                if best is None or (at[0], rank) < best:
                    best = (at[0], rank)
    for rank in table.at_start:
        k, _ = _opening(formats[rank], text, marks, stop)
        if k >= 0 and (best is None or (k, rank) < best):
            best = (k, rank)
    return None if best is None else formats[best[1]]


def _turn_end(fmt: ThinkingFormat | None, end_of_turn: Sequence[str], marks: _Marks) -> int:
    """Where the turn ends: the first end-of-turn token that is not one of ``fmt``'s separators."""
    return marks.first([t for t in end_of_turn if fmt is None or t not in fmt.turn_tokens])[0]


def _final_section(fmt: ThinkingFormat, body: str, start: int, marks: _Marks) -> tuple[str, str]:
    """The final section ``body[start:]`` without its opening delimiter, cut at its closing one:
    (final, residue)."""
    rest = body[start:]
    skipped = len(rest) - len(rest.lstrip())
    for delim in fmt.final_start:
        if rest.startswith(delim, skipped):
            start += skipped + len(delim)
            break
    k, _ = marks.first(fmt.final_end, start, len(body))
    return (body[start:k], body[k:]) if k >= 0 else (body[start:], "")


def _unclosed(fmt: ThinkingFormat, body: str, k_close: int, opener: str, marks: _Marks) -> str:
    """Why a completion whose thinking never closed has no final section."""
    if k_close < 0 and marks.first(fmt.turn_tokens, 0, len(body))[0] >= 0:
        return f"the completion never reached its final section ({fmt.end[0]})"
    reopened, again = marks.first(fmt.start, max(k_close, 0), len(body))
    delim = again if k_close >= 0 and reopened >= 0 else opener or fmt.start[0] if fmt.start else fmt.end[0]
    return f"the thinking section ({delim}) was never closed: there is no final answer"


def _open(name: str, formats: tuple[ThinkingFormat, ...]) -> str:
    """The opening delimiter of the format called ``name`` (the one a chat template opened)."""
    for fmt in formats:
        if fmt.name == name and fmt.start:
            return fmt.start[0]
    known = ", ".join(repr(f.name) for f in formats if f.start) or "none"
    raise VerifierInputError(
        f"opened={name!r} names no thinking format with an opening delimiter (known: {known}); "
        "pass the name opened_thought(tokenizer) returns, or None"
    )


def read_completion(
    text: str,
    formats: Sequence[ThinkingFormat] = THINKING_FORMATS,
    *,
    end_of_turn: Sequence[str] = END_OF_TURN,
    opened: str | None = None,
) -> Completion:
    """Split ``text`` into thinking, final section and residue under the known ``formats``.

    Rules: the thinking format is detected (the first delimiter of any format in ``formats``);
    only text after its last closing delimiter is the final section; a thinking section opened
    and never closed (or opened again after the last close) leaves no final section; the turn
    ends at the first end-of-turn token (`END_OF_TURN`, less the format's own section
    separators), and a format's closing delimiter of the final section ends it too. Section
    delimiters never end a completion. ``formats=()`` switches thinking detection off.

    ``opened`` names the format (in ``formats``) whose thinking section the chat template opened
    in the prompt (`opened_thought` finds it): the completion starts inside a thought, so text
    before the format's closing delimiter is thinking, and a completion with no closing
    delimiter is a thought cut off (no final section). Without it, such a completion, carrying
    no delimiter at all, reads as a plain answer.

    Examples:
        >>> read_completion("<|begin_of_thought|>11?<|end_of_thought|><|begin_of_solution|>12<|end_of_solution|>").final
        '12'
        >>> read_completion("◁think▷So the answer is 11. Wait").note
        'the thinking section (◁think▷) was never closed: there is no final answer'
        >>> read_completion("So it is \\boxed{11}. Wait", opened="think").final is None
        True
    """
    body = _strip_leading(text)
    formats, end_of_turn = tuple(formats), tuple(end_of_turn)
    if opened is not None:
        read = read_completion(_open(opened, formats) + body, formats, end_of_turn=end_of_turn)
        note = read.note and f"{read.note} (the chat template opened it)"
        return Completion(text, read.final, read.thinking, read.format, read.residue, note)
    table = _table(formats, end_of_turn)
    marks = _Marks(body, table)
    fmt = _detect(body, formats, table, marks, None)
    cut = _turn_end(fmt, end_of_turn, marks)
    if cut >= 0 and (before := _detect(body, formats, table, marks, cut)) is not fmt:
        fmt = before  # the format is what precedes the turn's end; the end depends on the format
        cut = _turn_end(fmt, end_of_turn, marks)
    residue = ""
    if cut >= 0:
        body, residue = body[:cut], body[cut:]
    if fmt is None:
        return Completion(text, body, residue=residue)
    k_open, opener = _opening(fmt, body, marks, len(body))
    k_close, closer = marks.last(fmt.end, len(body))
    if k_close < 0 or (not fmt.at_start and marks.first(fmt.start, k_close + len(closer), len(body))[0] >= 0):
        return Completion(text, None, body, fmt.name, residue, _unclosed(fmt, body, k_close, opener, marks))
    thinking = body[k_open + len(opener) : k_close] if 0 <= k_open < k_close else body[:k_close]
    final, tail = _final_section(fmt, body, k_close + len(closer), marks)
    return Completion(text, final, thinking.strip(), fmt.name, tail + residue)
