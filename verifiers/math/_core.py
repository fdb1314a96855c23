"""The whole judgement of one (gold, completion) pair, given a scalar comparator.

Run in-process with the exact-rational `Scalars` (the fast path; raises `NeedSympy` when it
cannot decide) and in a worker process with `SympyScalars`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from verifiers.math._compare import Match, Scalars, compare
from verifiers.math._config import MathConfig
from verifiers.math._extract import (
    MATH_BLOCK,
    Commitments,
    bare_candidates,
    commitments,
    commits_to_stored_gold,
    last_number,
    reduce_gold,
)
from verifiers.math._labels import labelled_values
from verifiers.math._lexer import ParseError
from verifiers.math._nodes import Interval, List, Matrix, Node, Relation, Text, Tup, Union
from verifiers.math._normalize import normalize
from verifiers.math._notation import MARKS
from verifiers.math._parser import parse
from verifiers.math._shapes import signs_expanded
from verifiers.math._statements import value_in_sentence

__all__ = ["Outcome", "compare_texts", "parse_answer", "run_core", "run_equivalent", "verify_core"]

Outcome = tuple[str, str, "str | None"]  # status, reason, extracted
MAX_PARSED = 4000  # longer answers are not read as math (they cannot parse anyway)

_WORDY = re.compile(r"^[A-Za-z][A-Za-z' \-]*[A-Za-z]$")
_MATH_WORDS = {
    "pi",
    "sin",
    "cos",
    "tan",
    "cot",
    "sec",
    "csc",
    "log",
    "ln",
    "exp",
    "sqrt",
    "or",
    "and",
    "either",
    "inf",
    "infinity",
    "oo",
    "arcsin",
    "arccos",
    "arctan",
}
_UNITS_AT_END = re.compile(r"(?:\s+[A-Za-z]+){1,3}[\s.]*$")
_PROSE = re.compile(r"[A-Za-z]{3,}\s+[A-Za-z]{3,}")  # two words: a gold that may be a solution
_BRACKETED_GROUP = re.compile(r"[(\[{][^)\]}]*?\d,\d{3}")  # a d,ddd group after an opening bracket
_GOLD_CHOICE = re.compile(r"^\(?([A-J])\)?$")
_PRED_CHOICES = re.compile(r"\(([A-Ja-j])\)|(?<![A-Za-z\\])([A-J])(?![A-Za-z])")


def _text_node(norm: str, config: MathConfig) -> Node:
    text = " ".join(norm.split()).strip(" .,;:!?")
    return Text(text if config.case_sensitive_text else text.lower())


def _is_text(norm: str) -> bool:
    if not _WORDY.match(norm):
        return False
    words = re.findall(r"[A-Za-z]+", norm)
    if len(words) == 1 and words[0].lower() in ("no", "yes"):
        return True
    return any(len(w) >= 3 and w.lower() not in _MATH_WORDS for w in words)


def _as_written(text: str, config: MathConfig) -> str:
    """An answer's text with formatting and all spacing dropped (``$``, ``\\left``, ``\\text{}``...)."""
    return re.sub(
        r"\s+", "", normalize(text, thousands=config.thousands_separators, decimal_comma=config.decimal_comma)
    ).rstrip(".")


def parse_answer(text: str, config: MathConfig, elements: bool = False) -> Node | None:
    """Parse an extracted answer; a text answer becomes `Text`; None if unreadable (and for an
    answer over `MAX_PARSED` characters: no math answer is that long, and the answer itself is
    still extracted whole for a verifier of another kind). ``elements``: read a bracketed
    ``d,ddd`` with unspaced commas as separate elements (`normalize`)."""
    if len(text) > MAX_PARSED:
        return None
    norm = normalize(text, thousands=config.thousands_separators, decimal_comma=config.decimal_comma, elements=elements)
    if not norm:
        return None
    labelled = labelled_values(norm, lambda value: parse(value, config))
    if labelled is not None:
        return labelled
    if _is_text(norm) or MARKS.fullmatch(norm):  # words; enumerated choice marks (①④)
        return _text_node(norm, config)
    try:
        return parse(norm, config)
    except ParseError:
        if _WORDY.match(norm):
            return _text_node(norm, config)
        return None


def _elements_reading(text: str, config: MathConfig) -> Node | None:
    """The other reading of an answer with a bracketed ``d,ddd`` (``(4,251)``: the pair, not
    4251), or None when it has one reading only."""
    if not _BRACKETED_GROUP.search(text) or not config.thousands_separators or config.decimal_comma:
        return None
    kw = {"thousands": True, "decimal_comma": False}
    if normalize(text, elements=True, **kw) == normalize(text, **kw):
        return None
    return parse_answer(text, config, elements=True)


def compare_texts(gold_text: str, gold: Node, pred_text: str, pred: Node, scalars: Scalars) -> Match:
    """`compare` with the readings of a bracketed ``d,ddd``: written so on both sides, it is
    compared element by element; on one side, it takes the other side's reading (a number, or
    separate elements)."""
    config = scalars.config
    gold_alt, pred_alt = _elements_reading(gold_text, config), _elements_reading(pred_text, config)
    if gold_alt is not None and pred_alt is not None:
        return compare(gold_alt, pred_alt, scalars)
    match = compare(gold, pred, scalars)
    for g, p in ((gold_alt, pred), (gold, pred_alt)):
        if not match[0] and g is not None and p is not None:
            other = compare(g, p, scalars)
            match = other if other[0] else match
    return match


def _same_answer(a: Node | None, b: Node | None, scalars: Scalars) -> bool:
    if a is None or b is None:
        return a is b
    return a == b or compare(a, b, scalars)[0]


def _read(answer: str, source: str, config: MathConfig) -> tuple[Node | None, str]:
    """Parse one committed answer (a stated sentence falls back to the value it asserts)."""
    node = parse_answer(answer, config)
    if node is None and source == "tagged":  # an <answer> block: what it states, else its last number
        inner_found = commitments(answer, config)
        inner = inner_found.answers[-1] if len(inner_found.answers) == 1 else last_number(answer)
        if inner is not None:
            return _read(inner, inner_found.source if inner_found.answers else "bare", config)
    if node is None and source in ("stated", "sentence"):
        inner = value_in_sentence(answer)  # "The volume of $ABCD$ is 120"
        if inner is not None:
            node = parse_answer(inner, config)
            if node is not None:
                return node, inner
    return node, answer


_NOT_A_COLLECTION = (Tup, Interval, Union, Matrix, Relation)


def _span(answer: str) -> Commitments:
    """An answer span an answer format already found: the committed answer as it is."""
    text = answer.strip()
    return Commitments((text,), "tagged") if text else Commitments((), "none", "the answer is empty")


def verify_core(gold: str, completion: str, config: MathConfig, scalars: Scalars, answer_only: bool = False) -> Outcome:
    """Judge ``completion`` (or, with ``answer_only``, an answer span) against ``gold``;
    returns (status, reason, extracted)."""
    gold_text = gold_answer(gold, config)
    if gold_text.strip() != gold.strip() and commits_to_stored_gold(gold, completion, config, answer_only):
        return "correct", "The answer is the gold answer as stored.", gold_text
    found = _span(completion) if answer_only else commitments(completion, config, whole=True)
    if found.spray:
        return "incorrect", f"Answer spraying: {found.note} were committed to.", None
    if not found.answers:
        return "no_answer", f"No answer: {found.note}.", None
    if found.source == "bare":
        outcome, final, final_text = _bare(found.answers[0], gold_text, config)
    elif found.source == "whole":
        outcome, final, final_text = _whole(found.answers[0], gold_text, config)
    elif len(found.answers) == 1:
        outcome, final, final_text = _stated(found.answers[0], found.source, gold_text, config)
    else:
        outcome, final, final_text = _run_of_boxes(found.answers, gold_text, config, scalars)
    if outcome is not None:
        return outcome
    written = _as_written(final_text, config)
    if written and written == _as_written(gold_text, config):  # reflexivity: the gold itself, however we read it
        return "correct", "The answer is the gold answer as written.", final_text
    if final is None:
        return "unparseable", f"The committed answer {final_text[:80]!r} is not readable math.", final_text
    chosen = _choice(gold_text, final_text)
    if chosen is not None:
        return chosen
    gold_node = parse_answer(gold_text, config) or _text_node(normalize(gold_text), config)
    ok, why = compare_texts(gold_text, gold_node, final_text, final, scalars)
    return ("correct" if ok else "incorrect"), why[0].upper() + why[1:] + ".", final_text


def gold_answer(gold: str, config: MathConfig) -> str:
    """The answer a stored gold states: `reduce_gold`'s (its final run of boxes, its ``####``);
    a gold that does not read as an answer but states one (a whole worked solution ending
    "The final answer is $28\\%$") is that statement's answer."""
    text = reduce_gold(gold)
    if text != gold or len(text) > MAX_PARSED or not _PROSE.search(text) or parse_answer(text, config) is not None:
        return text
    found = commitments(text, config)
    if found.source in ("stated", "sentence", "tagged") and len(found.answers) == 1:
        return found.answers[0]
    return text


Read = tuple[Outcome | None, Node | None, str]


def _bare(answer: str, gold_text: str, config: MathConfig) -> Read:
    """A whole short completion: what it says, else its last value (or number, GSM8K style)."""
    node, final_text = _read(answer, "bare", config)
    if node is not None:
        return None, node, final_text
    candidates = bare_candidates(final_text)
    fallback = last_number(final_text) if config.last_number_fallback else None
    if not candidates and fallback is not None:
        candidates = [fallback]
    if candidates:
        final_text = candidates[-1]
        node = parse_answer(final_text, config)
    if node is None and _as_written(answer, config) != _as_written(gold_text, config):
        return ("no_answer", "No answer: the completion states no answer we can read.", None), None, answer
    return None, node, final_text if node is not None else answer


def _whole(answer: str, gold_text: str, config: MathConfig) -> Read:
    """A completion that is one display-math block, or one line longer than `bare_max_chars`:
    the answer when all of it reads as math, else no answer (no value is picked out of it)."""
    math = _UNITS_AT_END.sub("", re.sub(r"\\[A-Za-z]+", " ", answer))  # "... + 4\pi square centimeters"
    words = [] if MATH_BLOCK.fullmatch(answer) else re.findall(r"[A-Za-z]{3,}", math)
    prose = any(w.lower() not in _MATH_WORDS for w in words)  # a line outside math delimiters: no prose
    node = None if prose else parse_answer(answer, config)
    if (node is None or isinstance(node, Text)) and _as_written(answer, config) != _as_written(gold_text, config):
        why = "No answer: the completion is neither one answer nor a statement of one."
        return ("no_answer", why, None), None, answer
    return None, node, answer


def _stated(answer: str, source: str, gold_text: str, config: MathConfig) -> Read:
    """One committed answer (boxed, tagged, stated); a last sentence must state a value."""
    node, final_text = _read(answer, source, config)
    unread = node is None or (isinstance(node, Text) and len(node.text.split()) > 2)
    if source == "sentence" and unread and _as_written(final_text, config) != _as_written(gold_text, config):
        return ("no_answer", "No answer: the last sentence states no value we can read.", None), None, final_text
    return None, node, final_text


def _run_of_boxes(answers: Sequence[str], gold_text: str, config: MathConfig, scalars: Scalars) -> Read:
    """A final run of boxes: one collection answer (repeats are one value)."""
    final_text = ", ".join(a.strip() for a in answers)
    parts = [parse_answer(a, config) for a in answers]
    unread = [a for a, n in zip(answers, parts, strict=True) if n is None]
    if unread:
        return ("unparseable", f"The boxed answer {unread[0][:80]!r} is not readable math.", final_text), None, ""
    distinct: list[Node] = []
    for part in parts:
        assert part is not None
        if not any(_same_answer(part, d, scalars) for d in distinct):
            distinct.append(part)
    if len(distinct) > 1:
        gold_node = parse_answer(gold_text, config)
        gold_node = signs_expanded(gold_node, config) if gold_node is not None else None  # (\pm 1, 2): two tuples
        if isinstance(gold_node, _NOT_A_COLLECTION):
            why = f"{len(answers)} separate boxed answers are a collection, not the one {gold_node.noun} the gold is."
            return ("incorrect", why, final_text), None, final_text
    return None, distinct[0] if len(distinct) == 1 else List(tuple(distinct)), final_text


def _choice(gold_text: str, final_text: str) -> Outcome | None:
    """A multiple-choice gold (``B``, ``(B)``): the letters the answer names."""
    choice = _GOLD_CHOICE.match(normalize(gold_text))
    if not choice:
        return None
    alone = _GOLD_CHOICE.match(normalize(final_text).upper())
    letters = {alone.group(1)} if alone else set()
    letters |= {(a or b).upper() for a, b in _PRED_CHOICES.findall(normalize(final_text))}
    if not letters:
        return None
    if len(letters) > 1:
        return "incorrect", f"{len(letters)} choices were given where one is expected.", final_text
    ok = letters == {choice.group(1)}
    why = "the gold choice." if ok else f"not the gold choice {choice.group(1)}."
    return ("correct" if ok else "incorrect"), f"Choice {sorted(letters)[0]} is {why}", final_text


def run_core(gold: str, completion: str, config: MathConfig, answer_only: bool = False) -> Any:
    """Worker entry point: the sympy comparison."""
    from verifiers.math._symbolic import SympyScalars

    return verify_core(gold, completion, config, SympyScalars(config), answer_only)


def run_equivalent(a: str, b: str, config: MathConfig) -> bool:
    """Worker entry point for `equivalent`."""
    from verifiers.math._symbolic import SympyScalars

    na, nb = parse_answer(a, config), parse_answer(b, config)
    if na is None or nb is None:
        return False
    return compare_texts(a, na, b, nb, SympyScalars(config))[0]
