"""The generation seam, torch-free: a `Generator` turns token-id contexts into sampled
continuations. `TransformersGenerator` (``trainer._generation``) is the default; the eval's vLLM
and OpenAI-compatible backends (``trainer.eval``) and scripted fakes in tests implement the same
Protocol, so the trainer's rollouts and the eval run every backend the same way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["Generator", "LoggedGenerator", "Sample", "Timed", "cut_at_eos", "timed"]

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


@runtime_checkable
class LoggedGenerator(Generator, Protocol):
    """A `Generator` that also returns each sampled token's log-probability under the distribution
    it sampled from (vLLM's, after temperature): ``(samples, logps)`` with ``logps[k]`` as long as
    ``samples[k]``'s ids. `rollout` stores them on each `Rollout` (``sampler_logps``), and the
    trainer weighs its loss by truncated importance sampling against them."""

    def generate_with_logps(
        self,
        contexts: list[list[int]],
        *,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        min_new_tokens: int = 0,
        seeds: Sequence[int] | None = None,
    ) -> tuple[list[Sample], list[list[float]]]: ...


def cut_at_eos(row: Sequence[int], eos: frozenset[int]) -> Sample:
    """``row`` up to and including its first EOS (not truncated), or all of it (truncated).

    Examples:
        >>> cut_at_eos([5, 1, 0, 0], frozenset({1})), cut_at_eos([5, 6], frozenset({1}))
        (([5, 1], False), ([5, 6], True))
    """
    for k, token in enumerate(row):
        if token in eos:
            return list(row[: k + 1]), False
    return list(row), True


class Timed:
    """A `Generator` that counts the seconds its ``inner`` one spends generating (``seconds``)."""

    def __init__(self, inner: Generator) -> None:
        self.inner, self.seconds = inner, 0.0

    def generate(self, contexts: list[list[int]], **sampling: Any) -> list[Sample]:
        started = time.perf_counter()
        try:
            return self.inner.generate(contexts, **sampling)
        finally:
            self.seconds += time.perf_counter() - started


class _TimedLogged(Timed):
    def generate_with_logps(self, contexts: list[list[int]], **sampling: Any) -> tuple[list[Sample], list[list[float]]]:
        assert isinstance(self.inner, LoggedGenerator)
        started = time.perf_counter()
        try:
            return self.inner.generate_with_logps(contexts, **sampling)
        finally:
            self.seconds += time.perf_counter() - started


def timed(inner: Generator) -> Timed:
    """``inner`` behind a `Timed` (a `LoggedGenerator` stays one).

    Examples:
        >>> class Echo:
        ...     def generate(self, contexts, **sampling):
        ...         return [(c[-1:], False) for c in contexts]
        >>> gen = timed(Echo())
        >>> gen.generate([[1, 2]], max_new_tokens=1, temperature=1.0, top_p=1.0), gen.seconds >= 0
        ([([2], False)], True)
    """
    return _TimedLogged(inner) if isinstance(inner, LoggedGenerator) else Timed(inner)
