"""The grammar of final-answer statements: how real models say what their answer is.

Linear-time scanning over the completion; nothing is parsed here. ``$...$`` math is atomic
(a period inside ``$5.$`` ends the sentence, one inside ``$3.5$`` does not) and a dollar
followed by prose (``$18 every day``) is currency, not math.

Preparation (`prepare`): only the final section counts (`verifiers.structure`: after the
thinking section of any known family, before the end of the turn); trailing courtesy
sentences ("I hope it is correct.", "Hope this helps!"), closing self-affirmations ("I think
that's the answer.", "Yes, that seems correct.") and closing markup (a code fence, a rule) are
dropped, never inside an ``<answer>`` tag.

Statements (`statements`), each with the answer that follows it:

- a label line: ``A: 42``, ``Answer: 42``, ``**Answer:** 42``, ``Final answer: 42``,
  ``Answer (in digits): 42.``, ``### Answer: 42``;
- a heading line alone (``**Final Answer**``, ``## Final Answer``, ``Answer:``), the answer
  on the next lines;
- a label followed by display math on its line (``Answer \\[ 9 \\]``): the block;
- an answer phrase in a sentence: "the answer is 42", "the final answer is $5$", "the answer
  (with units) is 42 dollars", "the answer to the question is ...", "answer: ...", ``####``
  (also written inside math: ``\\(#### 42\\)``), and any of `MathConfig.anchors`; not when
  negated ("the answer is not 5") or hypothetical ("if the answer is 5"); one whose answer only
  appraises (`is_appraisal`: "the answer is correct", "this answer is indeed right") is a remark
  about an earlier answer, not an answer, when one came before it;
- the last complete sentence, when nothing else commits (`final_sentence`): it must end the
  text with terminal punctuation (then only courtesy or template residue may follow; a
  cut-off output commits to nothing) and assert its value: "..., so the probability that
  Alice wins is 2/3.", "She has 5 + 2 = 7 marbles.", "the minimum is 0 and the maximum is 4"
  (labelled values, `verifiers.math._labels`), or conclude ("So", "Therefore", "Thus",
  "In total", ...) with exactly one value ("Therefore, Janet makes $18 a day."). Not a
  question, a negation, a hedge or a plan ("maybe", "if", "let's", "we need to").

An answer runs to the end of its sentence (or line), cut before a clause ("because", "since",
"which", ...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from verifiers.math._labels import labelled_sentence
from verifiers.structure import ThinkingFormat, read_completion

__all__ = [
    "Statement",
    "final_sentence",
    "is_appraisal",
    "mask_math",
    "only_value",
    "prepare",
    "statements",
    "value_in_sentence",
]

MAX_STATEMENT = 600

_TRAILING_MARKUP = re.compile(r"(?:\s*(?:```+|~~~+|---+|\*\*\*+|===+|</answer>))+\s*$", re.IGNORECASE)
_ANSWER_CLOSE = re.compile(r"</answer>", re.IGNORECASE)
_COURTESY = re.compile(
    r"(?:^|(?<=[.!?\n$*)\]\s]))[\s*]*(?:"
    r"I\s+hope\s+(?:it|this|that|my\s+\w+)\s+(?:is|was)\s+(?:correct|right|helpful|clear)"
    r"|I\s+hope\s+(?:this|it|that)\s+helps|(?:I\s+)?hope\s+(?:this|it|that)\s+helps"
    r"|let\s+me\s+know\s+if[^.!?\n]{0,120}|feel\s+free\s+to[^.!?\n]{0,120}"
    r"|if\s+you\s+have\s+any\s+(?:other\s+|more\s+|further\s+)?questions[^.!?\n]{0,120}"
    r"|good\s+luck|thank\s+you|thanks|happy\s+to\s+help|is\s+there\s+anything\s+else[^.!?\n]{0,80}"
    r")[\s.!?:;,)(\w'*😊🙂]{0,40}$",
    re.IGNORECASE,
)
# A closing self-affirmation, a sentence of its own: "I think that's the answer.", "Yes, that seems correct."
_AFFIRMATION = re.compile(
    r"(?:^|(?<=[.!?\n]))[\s*]*(?:(?:yes|so|okay|ok|alright)\b[,\s]*)?(?:"
    r"I\s+think\s+(?:that's|that\s+is|this\s+is|it's|it\s+is)\s+(?:the|my|our)\s+(?:final\s+|correct\s+|right\s+)?answer"
    r"|(?:that|this|it)\s+(?:seems|looks|is|sounds)\s+(?:to\s+be\s+)?(?:correct|right|good|consistent|reasonable)"
    r")[\s.!?:;,)(\w'*]{0,40}$",
    re.IGNORECASE,
)
# A sentence ends at a newline or at terminal punctuation (possibly inside closing math or bold)
# followed by whitespace or the end.
_END = re.compile(r"\n|[.!?](?:\$\$|\$|\\\]|\\\)|\*\*|\*|[\"'”’)])*(?=\s|$)")
_CLAUSE = re.compile(
    r"\s+(?:because|since|as|which|so that|for|when|where|given|if|with)\s|,\s*(?:which|since|because|so)\s",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|isn't|aren't|never|no|cannot|can't|won't)\b", re.IGNORECASE)
_IF = re.compile(r"\b(?:if|suppose|supposing|assume|assuming|whether|check|verify)\b", re.IGNORECASE)
_HEDGE = re.compile(
    r"\b(?:if|suppose|assume|assuming|whether|maybe|perhaps|guess|let's|let\s+us|need\s+to|we\s+will)\b",
    re.IGNORECASE,
)

_LABEL = re.compile(
    r"^[ \t>#*_-]*(?:(?:final[ \t]+answer|final[ \t]+result|answer)[ \t]*(?:\([^()\n]{0,40}\))?[ \t*_]*"
    r"(?:[:：][ \t*_]*|$|(?=\\\[|\$\$))|(?:ans\.?|a)[ \t]*[:：][ \t*_]*)",
    re.IGNORECASE | re.MULTILINE,
)
# A display block right after a label ("Answer \[ 9 \]"): the whole block is the answer.
_DISPLAY_AT = re.compile(r"\\\[(?:(?!\\\]).){0,600}?\\\]|\$\$(?:(?!\$\$).){0,600}?\$\$", re.DOTALL)
# GSM8K's marker written inside math (``\(#### 42\)``) is the marker: moved out of the math.
_MARKER_IN_MATH = re.compile(r"(\\\(|\\\[|\$\$|\$)[ \t]*####[ \t]*")
_PHRASE = re.compile(
    r"(?<![A-Za-z])(?:(?:final|correct|right)\s+)?answer(?:\s+to\s+(?:the|this|our)\s+(?:question|problem))?"
    r"\s*(?:\([^()\n]{0,40}\))?\s*(?:is|was|would\s+be|will\s+be|should\s+be|must\s+be|=|:|：)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Statement:
    """An answer statement: where it starts and ends in the text, and the answer it states."""

    start: int
    end: int
    answer: str


# -- preparation ------------------------------------------------------------------------------------
def prepare(text: str, formats: Sequence[ThinkingFormat], opened: str | None = None) -> tuple[str | None, str]:
    """The part of ``text`` that can commit, or (None, why) when it has no final section.

    The final section (`verifiers.structure.read_completion`) without trailing courtesy
    sentences and closing markup; courtesy trimming never reaches inside an ``<answer>`` tag."""
    read = read_completion(text, formats, opened=opened)
    if read.final is None:
        return None, read.note
    text = _MARKER_IN_MATH.sub(r"#### \1", read.final)
    closes = [m.start() for m in _ANSWER_CLOSE.finditer(text, max(0, len(text) - 400))]
    floor = closes[-1] if closes else 0  # the inside of the last <answer> tag is the answer's own
    for _ in range(4):
        text = text[:-200] + _TRAILING_MARKUP.sub("", text[-200:])
        offset = max(0, len(text) - 300, floor)
        c = _COURTESY.search(text, offset) or _AFFIRMATION.search(text, offset)
        if c is None:
            break
        text = text[: c.start()]
    return text.rstrip(), ""


def mask_math(text: str) -> str:
    """``text`` with the inside of each ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``
    replaced by ``M`` (a terminal ``.!?`` at its very end kept), same length: sentence
    punctuation inside math is not a sentence end."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in "([":
            close = "\\)" if text[i + 1] == "(" else "\\]"
            j = text.find(close, i + 2)
            if j < 0:
                i += 2
                continue
            _blank(out, text, i + 2, j)
            i = j + 2
        elif c == "\\":
            i += 2  # an escaped character (``\\$`` is a dollar sign, not math)
        elif c == "$":
            double = text.startswith("$$", i)
            width = 2 if double else 1
            j = _closing_dollar(text, i + width, double)
            if j < 0 or (not double and _is_currency(text, i + 1, j)):
                i += width
                continue
            _blank(out, text, i + width, j)
            i = j + width
        else:
            i += 1
    return "".join(out)


def _closing_dollar(text: str, start: int, double: bool) -> int:
    """The index of the ``$`` (or ``$$``) that closes math opened before ``start``; -1 if none."""
    j = start
    while True:
        j = text.find("$$" if double else "$", j)
        if j <= 0 or text[j - 1] != "\\":
            return j
        j += 1


def _blank(out: list[str], text: str, start: int, end: int) -> None:
    for k in range(start, end):
        if out[k] != "\n":
            out[k] = "M"
    if end > start and text[end - 1] in ".!?":
        out[end - 1] = text[end - 1]


_PROSE_WORD = re.compile(r"\s[A-Za-z]{2,}\b")


def _is_currency(text: str, start: int, end: int) -> bool:
    """``$18 every day. ... $``: a dollar before a number, then prose, is money, not math."""
    inner = text[start:end]
    return inner[:1].isdigit() and "\\" not in inner and ("\n" in inner or bool(_PROSE_WORD.search(inner)))


def sentence_end(masked: str, start: int, limit: int = MAX_STATEMENT) -> int:
    m = _END.search(masked, start, min(len(masked), start + limit))
    return m.start() if m else min(len(masked), start + limit)


# -- statements -------------------------------------------------------------------------------------
@lru_cache(maxsize=32)
def _anchor_regex(anchors: tuple[str, ...]) -> re.Pattern[str]:
    alts = "|".join(re.escape(a) for a in sorted(anchors, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z])(?:{alts})", re.IGNORECASE)


def _answer_after(text: str, masked: str, start: int) -> tuple[str, int]:
    """The answer that follows a statement ending at ``start``, and where it ends. When the
    rest of the line is empty (a heading), the answer is the next paragraph."""
    skip = re.compile(r"[ \t:*=_：]*(?:(?:is|was|of)\b)?[ \t:*=_：]*").match(text, start)
    begin = skip.end() if skip else start
    display = _DISPLAY_AT.match(text, begin)
    if display:
        return _clean(display.group(0)), display.end()
    if text[begin : begin + 1] == "\n" or begin >= len(text):
        following = re.compile(r"\s*").match(text, begin)
        begin = following.end() if following else begin
        para = text.find("\n\n", begin)
        end = min(para if para >= 0 else len(text), begin + MAX_STATEMENT)
        block = text[begin:end]
        first = sentence_end(mask_math(block), 0, MAX_STATEMENT)
        if "\\boxed" not in block and first < len(block.rstrip()) and not block.lstrip().startswith(("\\[", "$$")):
            end = begin + first  # one sentence of a longer paragraph
        return _clean(text[begin:end]), end
    end = sentence_end(masked, begin)
    stated = text[begin:end]
    clause = _CLAUSE.search(stated)
    if clause:
        stated = stated[: clause.start()]
    return _clean(stated), end


def _clean(stated: str) -> str:
    stated = " ".join(stated.split()).strip().strip("*_").strip()
    return stated.rstrip(",;:") or stated


def _sentence_start(masked: str, pos: int) -> int:
    """Where the sentence holding ``pos`` starts: after the previous sentence end (looking back
    at most 400 characters)."""
    low = max(0, pos - 400)
    start = low
    for m in _END.finditer(masked, low, pos):
        start = m.end()
    return start


def statements(text: str, masked: str, anchors: tuple[str, ...], limit: int) -> list[Statement] | None:
    """Every answer statement in ``text`` (``masked`` is `mask_math` of it), in order; None when
    there are more than ``limit`` (spraying, and a bound on the work)."""
    spans: list[tuple[int, int]] = []
    for pattern in (_LABEL, _PHRASE, _anchor_regex(anchors)):
        for m in pattern.finditer(masked):
            if m.end() > m.start():
                spans.append((m.start(), m.end()))
                if len(spans) > 3 * limit:
                    return None
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans):  # overlapping phrasings of one statement count once
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    if len(kept) > limit:
        return None
    found = []
    for start, anchor_end in kept:
        prefix = masked[_sentence_start(masked, start) : start]
        if _IF.search(prefix) or re.search(r"\bnot\s*$", prefix):
            continue
        answer, end = _answer_after(text, masked, anchor_end)
        if not answer or re.match(r"not\b", answer, re.IGNORECASE):
            continue
        found.append(Statement(start, end, answer))
    return found


# A stated "answer" that only says the answer before it is good: a self-check's conclusion. Only
# positive words: "the answer is wrong" retracts and must never let an earlier answer stand.
_APPRAISAL = re.compile(
    r"(?:(?:indeed|also|definitely|clearly|certainly|still|now|then|therefore|thus|so|both|all|fully)\s+)*"
    r"(?:correct|right|verified|confirmed|consistent|accurate|valid|reasonable|plausible|sound|justified|"
    r"double[- ]checked|checked|good)"
    r"(?:\s+(?:and|&)\s+(?:correct|right|verified|confirmed|consistent|accurate|valid|reasonable|complete))?"
    r"[\s.!]*[✓✔✅]?[\s.!]*",
    re.IGNORECASE,
)


def is_appraisal(answer: str) -> bool:
    """Whether a stated answer only appraises the answer before it ("correct", "indeed right").

    Examples:
        >>> is_appraisal("indeed correct"), is_appraisal("correct!"), is_appraisal("wrong"), is_appraisal("42")
        (True, True, False, False)
    """
    return _APPRAISAL.fullmatch(answer.strip()) is not None


# -- the last sentence ------------------------------------------------------------------------------
_ASSERT = re.compile(
    r"\s(?:is|are|was|were|equals|equal\s+to|will\s+be|would\s+be|becomes|comes\s+to|amounts\s+to|totals)\s"
    r"|(?<![<>!=])=(?!=)",
    re.IGNORECASE,
)
_CONCLUSION = re.compile(
    r"^\W*(?:so|therefore|thus|hence|in\s+total|altogether|in\s+all|overall|in\s+conclusion|finally|"
    r"as\s+a\s+result|consequently|this\s+means|that\s+means)\b",
    re.IGNORECASE,
)
_SELF_REFERENCE = re.compile(
    r"(?:the|our|my)\s+(?:final\s+|correct\s+|required\s+|desired\s+)?(?:answer|solution|result)s?\b", re.IGNORECASE
)
_ORDINAL = re.compile(r"\b(?:step|part|case|day|week|round)\s+\d+\b", re.IGNORECASE)
_STRONG_CLAUSE = re.compile(r",\s*(?:which|since|because|so that)\s|\s(?:because|since)\s", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![A-Za-z\d])-?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?")  # not inside a word: H2O, AZ2B
_MATH_SEGMENT = re.compile(
    r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$((?:\\.|[^$\\])+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL
)
_COMPLETE = re.compile(r"[.!](?:\$\$|\$|\\\]|\\\)|\*\*|\*|[\"'”’)])*$")


def final_sentence(text: str) -> str | None:
    """The value the last complete sentence of ``text`` asserts, or None."""
    stripped = text.rstrip()
    if not _COMPLETE.search(stripped[-8:]):
        return None  # cut off: no terminal punctuation
    masked = mask_math(stripped)
    body_end = len(stripped) - len(_COMPLETE.search(stripped[-8:]).group(0))  # type: ignore[union-attr]
    start = _sentence_start(masked, body_end)
    sentence = stripped[start:].strip()
    if len(sentence) > 400 or "?" in masked[start:body_end]:
        return None
    return value_in_sentence(sentence, final=True)


def value_in_sentence(sentence: str, *, final: bool = False) -> str | None:
    """The value an answer sentence asserts: every labelled value when it asserts two or more
    ("the minimum is 0 and the maximum is 4"); else after its last "is"/"="; else its only
    number or math segment. ``final``: the sentence is the completion's last, with no statement before
    it, so a hedge, a plan or a question commits to nothing."""
    if _NEGATION.search(sentence) or (final and _HEDGE.search(sentence)):
        return None
    if not re.search(r"\b[A-Za-z]{3,}\b", re.sub(r"\\[A-Za-z]+", " ", sentence)):
        return None  # a broken formula is not a sentence: it stays unparseable
    body = sentence.rstrip(" .!*")
    strong = _STRONG_CLAUSE.search(body)
    if strong:
        body = body[: strong.start()]
    labelled = labelled_sentence(body, mask_math(body))  # "the minimum is 0 and the maximum is 4"
    if labelled is not None:
        return labelled
    parts = _ASSERT.split(body)
    if len(parts) > 1 and _SELF_REFERENCE.match(parts[-1].strip(" *")):  # "$5$ is the answer"
        return only_value(parts[-2])
    if len(parts) > 1 and parts[-1].strip(" $"):
        tail = parts[-1].strip()
        clause = _CLAUSE.search(" " + tail)
        tail = tail[: max(0, clause.start() - 1)] if clause else tail
        if tail.count("$") % 2 and tail.endswith("$"):  # "$16 - 3 - 4 = 9$": the split fell inside math
            tail = tail[:-1]
        return tail.strip() or None
    if final and not _CONCLUSION.search(sentence):
        return None
    clause = _CLAUSE.search(body)  # "14 bags with 2 in each": the value is before the clause
    return (only_value(body[: clause.start()]) if clause else None) or only_value(body)


def only_value(body: str) -> str | None:
    """The one math segment or number ``body`` names, or None."""
    segments = [next(g for g in m.groups() if g is not None) for m in _MATH_SEGMENT.finditer(body)]
    if segments and not any(_is_currency(s, 0, len(s)) for s in segments):
        return segments[0] if len(set(segments)) == 1 else None
    numbers = _NUMBER.findall(_ORDINAL.sub(" ", body))
    return numbers[0] if len(set(numbers)) == 1 else None
