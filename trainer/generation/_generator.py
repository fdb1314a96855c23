"""The generation seam, torch-free: a `Generator` turns contexts into sampled continuations.

One call, for every backend: ``generate(contexts, params) -> list[Continuation]``, one
continuation per context, in order. ``params`` is a frozen `SamplingParams`; a `Continuation`
holds the sampled ids, whether they hit the length limit, and (where the backend reports them)
each token's log-probability.

A context is what the model continues: **token ids** (``list[int]``: the prompt after our own
chat template, then every turn so far) for the backends that take ids (transformers, vLLM
colocated or offline, a server's ``/v1/completions``), or **chat messages**
(``list[{"role", "content"}]``) for a backend that lets a server apply its own template
(``/v1/chat/completions``). A backend says which it takes with a class attribute ``takes``
(``"ids"`` or ``"messages"``; none means ``"ids"``, see `takes`); the rollout loop
(``trainer.rollouts._rollout``) builds its contexts accordingly, so every backend runs the same loop.
`TransformersGenerator` (``trainer.generation._transformers``) is the default; scripted fakes in tests
implement the same Protocol.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from trainer.errors import TrainerError

__all__ = [
    "Context",
    "Continuation",
    "Generator",
    "Message",
    "SamplingParams",
    "Timed",
    "Transcript",
    "check_count",
    "cut_at_eos",
    "takes",
    "timed",
]

Message = dict[str, str]
"""One chat message: ``{"role": ..., "content": ...}``."""
Context = list[int] | list[Message]
"""What a generator continues: token ids, or chat messages for a backend with ``takes = "messages"``."""
Takes = Literal["ids", "messages"]


class Transcript(list):  # type: ignore[type-arg]
    """Chat messages to continue (a list of them, as any message context) with what a tool-using
    env offers: ``tools`` (its schemas, OpenAI's ``tools=``; None: none) and ``tool_format`` (the
    name of the `grpo_envs.tools` format its ``step`` parses; None: it parses no tool calls).

    Examples:
        >>> t = Transcript([{"role": "user", "content": "hi"}], tools=[{"type": "function"}], tool_format="qwen")
        >>> len(t), t.tool_format
        (1, 'qwen')
    """

    def __init__(self, messages: Any = (), *, tools: Any = None, tool_format: str | None = None) -> None:
        super().__init__(messages)
        self.tools, self.tool_format = tools, tool_format


@dataclass(frozen=True)
class SamplingParams:
    """How to sample, the same for every backend.

    ``min_new_tokens`` forbids EOS before that many tokens (``min_new_tokens == max_new_tokens``
    gives fixed-length continuations, for benchmarks). ``seeds``, when given, holds one seed per
    context (the rollout derives one per task, sample and turn); a backend that can seed each
    request (vLLM, a server) uses them, one that samples a batch from one stream (transformers)
    ignores them.

    Examples:
        >>> SamplingParams(max_new_tokens=4, temperature=0.7).top_p
        1.0
    """

    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    min_new_tokens: int = 0
    seeds: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Continuation:
    """One sampled continuation of a context.

    ``ids``: the sampled token ids up to and including the first EOS (empty from a backend that
    answers text only, the chat server); ``truncated``: True when it hit ``max_new_tokens``
    without an EOS; ``logps``: each of ``ids``' log-probability under the distribution it was
    sampled from (vLLM's, after temperature), or None where the backend does not report them;
    ``text``: the backend's own text, where it answers text (else the rollout decodes ``ids``);
    ``num_tokens``: the backend's count of its tokens when it answers text (the server's usage);
    ``tool_calls``: the `grpo_envs.tools.ToolCall` values a server's tool parser read out of the
    turn (OpenAI's ``tool_calls``, their ids the server's), not part of ``text``.

    Examples:
        >>> c = Continuation((5, 1), truncated=False)
        >>> c.length, c.logps
        (2, None)
    """

    ids: tuple[int, ...]
    truncated: bool
    logps: tuple[float, ...] | None = None
    text: str | None = None
    num_tokens: int | None = None
    tool_calls: tuple[Any, ...] = ()

    @property
    def length(self) -> int:
        """The tokens sampled: ``len(ids)``, or the backend's count where it answers text."""
        return len(self.ids) if self.num_tokens is None else self.num_tokens


@runtime_checkable
class Generator(Protocol):
    """Samples one continuation per context; results are in the order of ``contexts``.

    A generator that takes chat messages rather than token ids sets ``takes = "messages"``
    (`takes`). A backend that knows each sampled token's log-probability (vLLM) puts them in
    `Continuation.logps`: the rollout keeps them (`Rollout.sampler_logps`) and the trainer weighs
    its loss by importance sampling against them.
    """

    def generate(self, contexts: Sequence[Any], params: SamplingParams) -> list[Continuation]: ...


def takes(generator: Any) -> Takes:
    """What ``generator`` continues: ``"ids"`` (the default) or ``"messages"``.

    Examples:
        >>> class Chat:
        ...     takes = "messages"
        >>> takes(Chat()), takes(object())
        ('messages', 'ids')
    """
    kind = getattr(generator, "takes", "ids")
    if kind == "ids" or kind == "messages":
        return "ids" if kind == "ids" else "messages"
    raise TrainerError(f"{type(generator).__name__}.takes must be 'ids' or 'messages', got {kind!r}")


def cut_at_eos(row: Sequence[int], eos: frozenset[int]) -> Continuation:
    """``row`` up to and including its first EOS (not truncated), or all of it (truncated).

    Examples:
        >>> cut_at_eos([5, 1, 0, 0], frozenset({1})).ids, cut_at_eos([5, 6], frozenset({1})).truncated
        ((5, 1), True)
    """
    for k, token in enumerate(row):
        if token in eos:
            return Continuation(tuple(row[: k + 1]), False)
    return Continuation(tuple(row), True)


def check_count(generator: Any, out: Sequence[Continuation], contexts: Sequence[Any]) -> list[Continuation]:
    """``out`` as a list, or a `TrainerError` when it does not hold one continuation per context."""
    if len(out) != len(contexts):
        name = type(generator).__name__
        raise TrainerError(f"{name}.generate returned {len(out)} samples for {len(contexts)} contexts")
    return list(out)


class Timed:
    """A `Generator` that counts the seconds its ``inner`` one spends generating (``seconds``);
    it takes what ``inner`` takes."""

    def __init__(self, inner: Generator) -> None:
        self.inner, self.seconds, self.takes = inner, 0.0, takes(inner)

    def generate(self, contexts: Sequence[Any], params: SamplingParams) -> list[Continuation]:
        started = time.perf_counter()
        try:
            return self.inner.generate(contexts, params)
        finally:
            self.seconds += time.perf_counter() - started


def timed(inner: Generator) -> Timed:
    """``inner`` behind a `Timed`.

    Examples:
        >>> class Echo:
        ...     def generate(self, contexts, params):
        ...         return [Continuation(tuple(c[-1:]), False) for c in contexts]
        >>> gen = timed(Echo())
        >>> gen.generate([[1, 2]], SamplingParams(max_new_tokens=1))[0].ids, gen.seconds >= 0
        ((2,), True)
    """
    return Timed(inner)
