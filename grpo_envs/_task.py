"""`Task`: the frozen record of one task; `stable_seed`: seeds that are the same in every process."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["Task", "stable_digest", "stable_seed", "thaw"]


def stable_digest(*parts: Any) -> str:
    """A hex digest of the canonical JSON of ``parts``: equal in every process and platform.

    (Python's ``hash()`` of a str changes per process; never use it for seeds.)

    Examples:
        >>> stable_digest("grpo_envs/Arithmetic-v0", "train", 7) == stable_digest(
        ...     "grpo_envs/Arithmetic-v0", "train", 7)
        True
    """
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def stable_seed(*parts: Any) -> int:
    """A 64-bit seed derived from ``parts`` with `stable_digest`."""
    return int(stable_digest(*parts)[:16], 16)


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Plain dicts and lists again from a frozen value (for verifiers and JSON)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Task:
    """One task. The policy sees ``prompt``; trainers and checkers may read the rest.

    ``answer`` is the reference: an answer string for math-like tasks, a tests dict for code.
    ``solution`` is an optional reference completion (used by `check_env` and examples).

    Examples:
        >>> Task("arith-1", "What is 2 + 3?", "5").answer
        '5'
    """

    task_id: str
    prompt: str
    answer: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)
    solution: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", _freeze(dict(self.metadata)))
        if isinstance(self.answer, (dict, list)):
            object.__setattr__(self, "answer", _freeze(self.answer))

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-friendly copy (mappings and tuples unfrozen)."""
        return {
            "task_id": self.task_id,
            "prompt": self.prompt,
            "answer": thaw(self.answer),
            "metadata": thaw(self.metadata),
            "solution": self.solution,
        }
