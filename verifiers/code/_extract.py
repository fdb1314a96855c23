"""The program inside a completion: the last fenced code block of its final section, else the
whole final section (`verifiers.structure`: never code written while thinking)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verifiers.result import Status
from verifiers.structure import THINKING_FORMATS, ThinkingFormat, read_completion

__all__ = ["extract_code", "find_code"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PY_TAGS = {"", "python", "py", "python3", "py3"}


def _formats(think_end: str | None) -> Sequence[ThinkingFormat]:
    if not think_end:
        return ()
    if think_end == "</think>":
        return THINKING_FORMATS
    return (ThinkingFormat("custom", (), (think_end,)), *THINKING_FORMATS)


def find_code(completion: str, *, think_end: str | None = "</think>") -> tuple[str | None, Status, str]:
    """(the program, "correct", "") or (None, status, why there is none): "no_answer" when the
    thinking never closed, "unparseable" when the final section holds no Python."""
    read = read_completion(completion, _formats(think_end))
    if read.final is None:
        return None, "no_answer", read.note
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(read.final)]
    python = [body for tag, body in blocks if tag in _PY_TAGS]
    if python:
        code = python[-1]
    elif blocks:
        return None, "unparseable", "the final answer has code blocks only in other languages"
    else:
        code = read.final
    return (code, "correct", "") if code.strip() else (None, "unparseable", "the final answer is empty")


def extract_code(completion: object, *, think_end: str | None = "</think>") -> str | None:
    """The code a completion submits, or None when there is none.

    Only the final section counts (after any known thinking format: `verifiers.structure`; a
    thinking section cut off before it closed submits nothing). Its last fenced block tagged
    Python (or untagged) wins; with no fence, the whole final section is the program.
    ``think_end`` adds a closing delimiter of your own; None reads the whole completion.

    Examples:
        >>> extract_code("Here:\\n```python\\nprint(1)\\n```\\nDone.")
        'print(1)\\n'
        >>> extract_code("<think>```python\\nprint(1)\\n```") is None
        True
    """
    if not isinstance(completion, str):
        return None
    return find_code(completion, think_end=think_end)[0]
