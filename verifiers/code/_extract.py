"""The program inside a completion: the last fenced code block, else the whole text."""

from __future__ import annotations

import re

__all__ = ["extract_code"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PY_TAGS = {"", "python", "py", "python3", "py3"}


def extract_code(completion: object, *, think_end: str | None = "</think>") -> str | None:
    """The code a completion submits, or None when there is none.

    The last fenced block tagged Python (or untagged) wins; with no fence, the whole text
    (after ``</think>``) is the program.

    Example:
        >>> extract_code("Here:\\n```python\\nprint(1)\\n```\\nDone.")
        'print(1)\\n'
    """
    if not isinstance(completion, str):
        return None
    text = completion
    if think_end and think_end in text:
        text = text.rsplit(think_end, 1)[1]
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(text)]
    python = [body for tag, body in blocks if tag in _PY_TAGS]
    if python:
        code = python[-1]
    elif blocks:
        return None  # only blocks in other languages
    else:
        code = text
    return code if code.strip() else None
