"""Exceptions raised by `trainer`.

TrainerError
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

__all__ = ["TrainerError"]


class TrainerError(Exception):
    """Base class of every exception raised by `trainer`."""


def reject_unknown_keys(part: str, keys: Iterable[str], names: Sequence[str]) -> None:
    """A `TrainerError` naming the first of ``keys`` (a ``[part]`` table's) not in ``names``,
    with the closest name and all of them; nothing when every key is known."""
    unknown = sorted(set(keys) - set(names))
    if unknown:
        hint = difflib.get_close_matches(unknown[0], names, n=1)
        guess = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise TrainerError(f"GRPOConfig: {part} has unknown key {unknown[0]!r}{guess}; the keys are {', '.join(names)}")
