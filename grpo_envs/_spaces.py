"""`TextSpace`: the observation and action space of every reasoning environment."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium.spaces import Space

__all__ = ["TextSpace"]

_PRINTABLE = np.array(list(string.ascii_letters + string.digits + string.punctuation + " "))


class TextSpace(Space[str]):
    """Any ``str`` of at most ``max_chars`` characters.

    Gymnasium's ``Text`` space rejects ordinary prompts (fixed charset) and costs ~1 s and
    ~160 MB with an all-unicode charset; this one is a length check. ``sample()`` gives short
    printable strings (for smoke tests and ``check_env``).

    Examples:
        >>> space = TextSpace(max_chars=10)
        >>> space.contains("héllo ∑"), space.contains("x" * 11), space.contains(3)
        (True, False, False)
    """

    def __init__(self, max_chars: int = 65_536, seed: int | np.random.Generator | None = None):
        if not isinstance(max_chars, int) or max_chars < 1:
            raise ValueError(f"max_chars must be a positive int, got {max_chars!r}")
        self.max_chars = max_chars
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        length = int(self.np_random.integers(0, min(self.max_chars, 32) + 1))
        return "".join(self.np_random.choice(_PRINTABLE, size=length).tolist())

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_chars

    def __repr__(self) -> str:
        return f"TextSpace(max_chars={self.max_chars})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TextSpace) and other.max_chars == self.max_chars

    def __hash__(self) -> int:
        return hash(("TextSpace", self.max_chars))

    def to_jsonable(self, sample_n: Any) -> list[Any]:
        return list(sample_n)

    def from_jsonable(self, sample_n: list[Any]) -> list[str]:
        return [str(s) for s in sample_n]
