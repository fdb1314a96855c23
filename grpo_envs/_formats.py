"""Answer formats: the instruction, the parser and the format check, declared once."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from verifiers.structure import read_completion

__all__ = ["ANSWER_TAGS", "BOXED", "CODE", "THINK_ANSWER", "AnswerFormat"]


@dataclass(frozen=True)
class AnswerFormat:
    """How the model is asked to answer, how the answer is found, and whether it obeyed.

    ``extract(completion)`` returns the span the verifier judges (None: the format was not
    followed, which is a "no_answer"); ``well_formed(completion)`` feeds the format reward.

    Examples:
        >>> ANSWER_TAGS.extract("I think... <answer>42</answer>")
        '42'
        >>> BOXED.well_formed("so \\\\boxed{7}"), BOXED.well_formed("7")
        (True, False)
    """

    name: str
    instruction: str
    extract: Callable[[str], str | None]
    well_formed: Callable[[str], bool]
    span: bool = False
    """``extract`` returns the answer itself (a tag's content, the text after the thinking):
    the verifier judges it as it is and never looks for an answer inside it again. False: it
    returns the text the verifier searches (``\\boxed{}``, a code block)."""


# the innermost tag: a family's own <answer> section may wrap the one the prompt asked for
_TAG = re.compile(r"<answer>((?:(?!<answer>).)*?)</answer>", re.DOTALL | re.IGNORECASE)
_WRAPPED = re.compile(r"<answer>((?:(?!</?answer>).)*)</answer>", re.DOTALL | re.IGNORECASE)


def _final(text: str) -> str:
    """The final section (`verifiers.structure`), "" when the thinking never closed."""
    return read_completion(text).final or ""


def _last_tag(text: str) -> str | None:
    """The last ``<answer>`` tag's content in the final section (never one written while thinking)."""
    found = _TAG.findall(_final(text))
    return found[-1].strip() if found and found[-1].strip() else None


def _after_think(text: str) -> str | None:
    """The final section after a closed thinking section (any known family's format)."""
    read = read_completion(text)
    if read.format is None or read.final is None or read.thinking is None:
        return None
    final = read.final.strip()
    wrapped = _WRAPPED.fullmatch(final)  # Hunyuan, GLM-4.1V: the final section is an <answer> tag
    return (wrapped.group(1).strip() if wrapped else final) or None


BOXED = AnswerFormat(
    name="boxed",
    instruction="Reason step by step, then put your final answer within \\boxed{}.",
    extract=lambda text: text,  # the math verifier finds the last \boxed{} (and spraying)
    well_formed=lambda text: "\\boxed{" in _final(text),
)
ANSWER_TAGS = AnswerFormat(
    name="answer_tags",
    instruction="Reason step by step, then give only the final answer inside <answer></answer>.",
    extract=_last_tag,
    well_formed=lambda text: _last_tag(text) is not None,
    span=True,
)
THINK_ANSWER = AnswerFormat(
    name="think_answer",
    instruction=("First think inside <think></think>, then write only the final answer after </think>."),
    extract=_after_think,
    well_formed=lambda text: _after_think(text) is not None,
    span=True,
)
CODE = AnswerFormat(
    name="code",
    instruction="Write your solution in Python inside one ```python code block.",
    extract=lambda text: text,  # the code verifier takes the last fenced Python block
    well_formed=lambda text: bool(re.search(r"```(?:python|py)\b", _final(text))),
)
