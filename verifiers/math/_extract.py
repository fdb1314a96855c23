"""Which answer a completion commits to: the *final* statement or the *final run* of boxes.

Evidence, in the order it appears in the prepared text (`_statements.prepare`): every
``\\boxed{}`` / ``\\fbox{}``, every ``<answer>...</answer>`` tag (R1 style) and every answer
statement of the grammar in `_statements`. Boxes (and tags)
separated only by punctuation, whitespace, "and", "or", ``\\quad``, ``\\text{ and }`` or
``\\text{ or }`` form a *run*: one answer with several parts (a collection, judged against the
gold as one). Boxes and statements separated by anything else are reasoning, and the last one
stands (self-correction). A line that starts a new question or turn (``Q:``, ``Question:``,
``User:``, ``Human:``) after other text ends the completion (a base model continuing its
few-shot prompt or role-playing the next turn). With no evidence:
the value asserted by the last complete sentence; else the whole completion when it is one
short line; else (optionally) the last number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.math._config import MathConfig
from verifiers.math._statements import final_sentence, is_appraisal, mask_math, only_value, prepare, statements

__all__ = [
    "MATH_BLOCK",
    "Commitments",
    "bare_candidates",
    "commitments",
    "commits_to_stored_gold",
    "last_number",
    "reduce_gold",
]

_BOX = re.compile(r"\\(?:boxed|fbox)\s*(\{)|\\boxed\s+([^\s${}\\]+)")
_SENTENCE_END = re.compile(r"\n|(?<![\d\\])[.!?](?=\s|$)|(?<=\d)[.!?](?=\s+[A-Z(]|\s*$)|\.\s+(?=[A-Z])")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:/\d+)?")
_RUN_GAP = re.compile(
    r"(?:[\s,;.&$~]|\\[,;:! ]|\\q?quad(?![A-Za-z])|\\[()\[\]]|\\\\|\b(?:and|or)\b|\b[A-Za-z](?:_\{?\w+\}?)?\s*="
    r"|\\(?:text|textrm|mbox|mathrm)\s*\{\s*(?:and|or|,)?\s*\})*"
)
# Between a gold's boxes, a short label is allowed too: "\boxed{1} papers and \boxed{2} bins".
_GOLD_GAP = re.compile(r"[^.!?\n]{0,40}?(?:\band\b|,|;)[\s}]*|" + _RUN_GAP.pattern)
_NEGATED = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
# One display-math block (or one math environment) that is the whole completion, over any lines.
MATH_BLOCK = re.compile(
    r"\\\[(?:(?!\\\]).)*\\\]|\$\$(?:(?!\$\$).)*\$\$|\\\((?:(?!\\\)).)*\\\)"
    r"|\\begin\{([a-zA-Z]+\*?)\}(?:(?!\\begin\{|\\end\{\1\}).)*\\end\{\1\}",
    re.DOTALL,
)
_LABELLED_LINE = re.compile(r"[A-Za-z][A-Za-z ]{0,40}[*_]*\s*[:=][*_ \t]*[^\s:][^:]{0,200}")
_NEW_QUESTION = re.compile(r"\n[ \t]*(?:(?:Q|Question)[ \t]*\d*|User|Human)[ \t]*:")


@dataclass(frozen=True)
class Commitments:
    """The final answer a completion commits to, and how it was found.

    ``answers`` has one entry, or one per box of a final run of boxes (a collection answer)."""

    answers: tuple[str, ...]
    source: str  # boxed | tagged | stated | bare | whole | sentence | last_number | none
    note: str = ""
    spray: bool = False  # more answers than anyone commits to: spraying whatever they say
    earlier: int = 0  # answers committed to before the final one (self-corrections)


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


def _boxes(text: str) -> list[tuple[int, int, str]]:
    """Each box: (start, end, content)."""
    found = list(_BOX.finditer(text))
    if not found:
        return []
    closing = _closing_braces(text)
    boxes = []
    for m in found:
        if m.group(1) is None:
            boxes.append((m.start(), m.end(), m.group(2)))
            continue
        start = m.start(1)
        end = closing.get(start)
        # An unclosed group keeps the rest of the text, which will not parse.
        content = text[start + 1 : end] if end is not None else text[start + 1 :]
        boxes.append((m.start(), (end + 1) if end is not None else len(text), content))
    return boxes


def _tags(text: str) -> list[tuple[int, int, str]]:
    """Each ``<answer>...</answer>`` (R1-style) without a box inside: (start, end, content).
    One linear pass: each closing tag closes the nearest opening tag before it."""
    lower = text.lower()
    found = []
    start = lower.find("<answer>")
    while start >= 0:
        close = lower.find("</answer>", start)
        if close < 0:  # the last tag left open (cut off, or its closing tag was markup): to the end
            close = len(text)
        reopen = lower.rfind("<answer>", start, close)  # the innermost opening before this close
        inner = text[reopen + 8 : close]
        if inner.strip() and not _BOX.search(inner):
            found.append((reopen, min(len(text), close + 9), inner.strip()))
        start = lower.find("<answer>", close)
    return found


def _runs(
    text: str, boxes: list[tuple[int, int, str]], joins: re.Pattern[str] = _RUN_GAP
) -> list[tuple[int, int, tuple[str, ...]]]:
    """Boxes (and answer tags) grouped into runs: (start, end, contents); ``joins`` matches
    what may stand between two boxes of one run."""
    runs: list[tuple[int, int, tuple[str, ...]]] = []
    for start, end, content in sorted(boxes):
        if runs:
            r_start, r_end, parts = runs[-1]
            gap = text[r_end:start]
            if start >= r_end and joins.fullmatch(gap):
                same = content.strip() == parts[-1].strip()  # the same answer twice is one answer
                runs[-1] = (r_start, end, parts if same else (*parts, content))
                continue
        runs.append((start, end, (content,)))
    return runs


def commitments(completion: str, config: MathConfig, *, whole: bool = False) -> Commitments:
    """Find the final answer ``completion`` commits to under ``config``. ``whole``: it is a whole
    completion (``config.thought_opened`` applies; a gold or an answer span is not one).

    Examples:
        >>> commitments(r"so it is \\boxed{4}. Wait: \\boxed{5}", MathConfig()).answers
        ('5',)
        >>> commitments(r"The roots are $\\boxed{2}$ and $\\boxed{3}$.", MathConfig()).answers
        ('2', '3')
    """
    text, why = prepare(completion, config.formats(), config.thought_opened if whole else None)
    if text is None:
        return Commitments((), "none", why)
    n_boxes = (len(_BOX.findall(text)) if config.boxed else 0) + text.lower().count("</answer>")
    if n_boxes > _MAX_BOXES:
        return Commitments((), "none", f"{n_boxes} boxed or tagged answers", spray=True)
    events = _marked(text, config, limit=_MAX_BOXES - n_boxes)
    if events is None:
        return Commitments((), "none", f"more than {_MAX_BOXES} answers", spray=True)
    cut = next((m.start() for m in _NEW_QUESTION.finditer(text) if text[: m.start()].strip()), None)
    if cut is not None:  # a new few-shot example: what follows answers another question
        text = text[:cut].rstrip()
        events = [e for e in events if e[0] < cut]
    if events:
        start, _, parts, source = events[-1]
        return Commitments(parts, source, earlier=len(events) - 1)
    return _unmarked(text, config)


def _marked(text: str, config: MathConfig, *, limit: int) -> list[tuple[int, int, tuple[str, ...], str]] | None:
    """The answers ``text`` marks, in order: ``(start, end, parts, source)`` for each run of boxes
    or tags and each answer statement; None when it states more than ``limit``."""
    events: list[tuple[int, int, tuple[str, ...], str]] = []
    masked = mask_math(text)
    boxes = _boxes(text) if config.boxed else []
    tags = _tags(text)
    tag_starts = {t[0] for t in tags}
    for s, e, parts in _runs(text, boxes + tags):
        events.append((s, e, parts, "tagged" if len(parts) == 1 and s in tag_starts else "boxed"))
    said = statements(text, masked, config.anchors, limit=limit)
    if said is None:
        return None
    for k, st in enumerate(said):
        if _BOX.search(st.answer) or (k + 1 < len(said) and said[k + 1].start < st.end):
            continue  # a box there is counted as a box; a nested statement counts on its own
        events.append((st.start, st.end, (st.answer,), "stated"))
    events.sort(key=lambda e: e[0])
    # "\boxed{50}. ... Therefore, the answer is correct.": a remark on the answer before it
    return [e for k, e in enumerate(events) if not (k and e[3] == "stated" and is_appraisal(e[2][0]))]


def _unmarked(text: str, config: MathConfig) -> Commitments:
    """What a completion that marks no answer commits to: its concluding sentence, a short bare
    answer (or labelled lines), all of it when it is one math block, else (if allowed) its last number."""
    value = final_sentence(text)
    if value is not None:
        return Commitments((value,), "sentence")
    bare = text.strip().strip("*").strip()
    lines = [line.replace("**", "").strip(" \t_-") for line in bare.splitlines() if line.strip()]
    if 2 <= len(lines) <= 8 and all(_LABELLED_LINE.fullmatch(line) for line in lines):
        return Commitments((", ".join(lines),), "bare")  # "Minimum: 0" over "Maximum: 4": one answer
    short_line = "\n" not in bare and len(bare) <= config.bare_max_chars
    if bare and not short_line and ("\n" not in bare or MATH_BLOCK.fullmatch(bare)):
        return Commitments((bare,), "whole")  # all of it is the answer, or none of it is
    if bare and short_line and not _NEGATED.search(bare):
        if bare.endswith("?"):
            return Commitments((), "none", "the completion asks a question instead of answering")
        if not _SENTENCE_END.search(bare.rstrip(".!? ")):  # one sentence at most
            return Commitments((bare,), "bare")
    if config.last_number_fallback and last_number(text) is not None:
        return Commitments((str(last_number(text)),), "last_number")
    if not text.strip():
        return Commitments((), "none", "the completion is empty")
    return Commitments((), "none", "no boxed answer, answer statement or concluding sentence was found")


def bare_candidates(text: str) -> list[str]:
    """The math inside one short sentence: its one ``$...$`` segment, else its one number.

    A sentence with several candidates commits to none of them."""
    value = only_value(text)
    return [value] if value is not None else []


def last_number(text: str) -> str | None:
    """The last number written in ``text`` (the GSM8K-style fallback)."""
    numbers = _NUMBER.findall(text)
    return numbers[-1] if numbers else None


def reduce_gold(gold: str) -> str:
    """A gold stored with its solution (MATH's boxed, GSM8K's ``####``) reduced to the answer;
    several boxes side by side (or apart by a short label: ``\\boxed{1} cat and \\boxed{2} dogs``)
    are one list.

    Examples:
        >>> reduce_gold("48 + 24 = 72 clips.\\n#### 72"), reduce_gold(r"So $x = \\boxed{\\frac{1}{2}}$.")
        ('72', '\\\\frac{1}{2}')
    """
    boxes = _boxes(gold)
    if boxes:  # the final run of boxes: ``\boxed{2}, \boxed{5}`` is the list 2, 5
        parts = _runs(gold, boxes, _GOLD_GAP)[-1][2]
        return parts[0] if len(parts) == 1 else ", ".join(p.strip() for p in parts)
    if "####" in gold:
        return gold.rsplit("####", 1)[1].strip()
    return gold


_STAND_IN = "Qstoredgoldq"  # letters only: read as one word wherever the gold stood


def commits_to_stored_gold(gold: str, completion: str, config: MathConfig, answer_only: bool = False) -> bool:
    """Whether ``completion`` commits to ``gold`` exactly as stored: every occurrence of the
    stored gold is replaced by a stand-in word, and the answer found is that word alone.
    Reflexivity for golds stored with more than their answer (``\\boxed{1} papers and
    \\boxed{2} bins``, a whole worked solution), whatever the form that states them.

    Example:
        >>> gold = r"\\boxed{1} cat and \\boxed{2} dogs"
        >>> commits_to_stored_gold(gold, "The answer is " + gold + ".", MathConfig())
        True
        >>> commits_to_stored_gold(gold, gold + " or 3", MathConfig())
        False
    """
    stored = gold.strip()
    if not stored or stored not in completion or _STAND_IN.lower() in completion.lower():
        return False
    swapped = completion.replace(stored, _STAND_IN)
    if answer_only:
        return swapped.strip() == _STAND_IN
    found = commitments(swapped, config, whole=True)
    if len(found.answers) != 1 or found.spray:
        return False
    return re.sub(r"[\s$.]|\\[()\[\]]", "", found.answers[0]) == _STAND_IN
