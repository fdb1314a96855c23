"""Answer formats: the instruction, the parser and the format check, declared once."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ANSWER_TAGS", "BOXED", "CODE", "THINK_ANSWER", "AnswerFormat"]


@dataclass(frozen=True)
class AnswerFormat:
    """How the model is asked to answer, how the answer is found, and whether it obeyed.

    ``extract(completion)`` returns the span the verifier judges (None: the format was not
    followed, which is a "no_answer"); ``well_formed(completion)`` feeds the format reward.

    Example:
        >>> ANSWER_TAGS.extract("I think... <answer>42</answer>")
        '42'
        >>> BOXED.well_formed("so \\\\boxed{7}"), BOXED.well_formed("7")
        (True, False)
    """

    name: str
    instruction: str
    extract: Callable[[str], str | None]
    well_formed: Callable[[str], bool]


_TAG = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_THINK = re.compile(r"\A\s*<think>.*?</think>(.*)\Z", re.DOTALL)


def _last_tag(text: str) -> str | None:
    found = _TAG.findall(text)
    return found[-1].strip() if found else None


def _after_think(text: str) -> str | None:
    m = _THINK.match(text)
    return m.group(1).strip() if m and m.group(1).strip() else None


BOXED = AnswerFormat(
    name="boxed",
    instruction="Reason step by step, then put your final answer within \\boxed{}.",
    extract=lambda text: text,  # the math verifier finds the last \boxed{} (and spraying)
    well_formed=lambda text: "\\boxed{" in text,
)
ANSWER_TAGS = AnswerFormat(
    name="answer_tags",
    instruction="Reason step by step, then give only the final answer inside <answer></answer>.",
    extract=_last_tag,
    well_formed=lambda text: _last_tag(text) is not None,
)
THINK_ANSWER = AnswerFormat(
    name="think_answer",
    instruction=("First think inside <think></think>, then write only the final answer after </think>."),
    extract=_after_think,
    well_formed=lambda text: _after_think(text) is not None,
)
CODE = AnswerFormat(
    name="code",
    instruction="Write your solution in Python inside one ```python code block.",
    extract=lambda text: text,  # the code verifier takes the last fenced Python block
    well_formed=lambda text: bool(re.search(r"```(?:python|py)\b", text)),
)
