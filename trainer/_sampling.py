"""The generation seam, torch-free: a `Generator` turns token-id contexts into sampled
continuations. `TransformersGenerator` (``trainer._generation``) is the default; the eval's vLLM
and OpenAI-compatible backends (``trainer.eval``) and scripted fakes in tests implement the same
Protocol, so the trainer's rollouts and the eval run every backend the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Generator", "Sample", "cut_at_eos"]

Sample = tuple[list[int], bool]
"""One continuation: (token ids up to and including the first EOS, truncated?). ``truncated`` is
True when the continuation hit ``max_new_tokens`` without an EOS."""


@runtime_checkable
class Generator(Protocol):
    """Samples one continuation per context; results are in the order of ``contexts``.

    ``min_new_tokens`` forbids EOS before that many tokens (``min_new_tokens == max_new_tokens``
    gives fixed-length continuations, for benchmarks). ``seeds``, when the caller passes them,
    holds one seed per context (the eval derives one per task, sample and turn); a backend that
    can seed each request (vLLM, a server) uses them, one that samples a batch from one stream
    (transformers) may ignore them. Callers pass ``seeds`` only when they have them.
    """

    def generate(
        self,
        contexts: list[list[int]],
        *,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        min_new_tokens: int = 0,
        seeds: Sequence[int] | None = None,
    ) -> list[Sample]: ...


def cut_at_eos(row: Sequence[int], eos: frozenset[int]) -> Sample:
    """``row`` up to and including its first EOS (not truncated), or all of it (truncated).

    Example:
        >>> cut_at_eos([5, 1, 0, 0], frozenset({1})), cut_at_eos([5, 6], frozenset({1}))
        (([5, 1], False), ([5, 6], True))
    """
    for k, token in enumerate(row):
        if token in eos:
            return list(row[: k + 1]), False
    return list(row), True
