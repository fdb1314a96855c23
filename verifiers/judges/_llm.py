"""`LLMJudge`: a language model behind any OpenAI-compatible server, asked whether an answer is
equivalent to the reference; its reply read strictly; a failure is a masked verdict, never a 0."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from verifiers._http import Client
from verifiers._workload import Needs, Workload
from verifiers.errors import ServerError, VerifierInputError
from verifiers.judges._cache import ReplyCache, key_of
from verifiers.judges._template import DEFAULT_TEMPLATE, Template
from verifiers.result import Status, VerifyResult
from verifiers.structure import read_completion

if TYPE_CHECKING:
    from verifiers._workload import Executor

__all__ = ["WORKLOAD", "LLMJudge", "Usage"]

log = logging.getLogger("verifiers.judges")
MAX_ANSWER_CHARS = 4000


@dataclass
class Usage:
    """What a judge has spent so far (since it was made, in this process)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class LLMJudge:
    """Judge answers with a model served at ``base_url`` (``/v1/chat/completions``).

    The judge sees the question (the task's ``prompt``), the reference and the completion's
    final section (never its thinking), quoted into ``template``'s answer slot. A server that
    cannot be reached, a timeout (``timeout_s`` per call; transient faults retried
    ``retries`` times with backoff from ``backoff_s``, none started after ``deadline_s``) or a reply
    that is not a verdict gives status "timeout" or "error" with ``correct`` None (masked in
    training, never a 0). ``concurrency`` bounds requests in flight. ``cache_dir``: replies kept
    on disk by (template, model, inputs), so a re-run pays once (only replies that are verdicts
    are kept). Tokens per call are logged at DEBUG and summed in `usage` (with ``cost`` when
    ``price_per_million`` gives the (prompt, completion) price of a million tokens).

    Examples:
        >>> judge = LLMJudge(base_url="http://127.0.0.1:9/v1", model="judge", retries=0)
        >>> r = judge.verify("12", "The answer is 12.", prompt="What is 3 * 4?")
        >>> r.status, r.correct
        ('error', None)
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        template: Template = DEFAULT_TEMPLATE,
        api_key: str | None = None,
        concurrency: int = 16,
        timeout_s: float = 60.0,
        retries: int = 4,
        backoff_s: float = 0.5,
        deadline_s: float = 120.0,
        max_tokens: int = 512,
        temperature: float = 0.0,
        cache_dir: str | os.PathLike[str] | None = None,
        price_per_million: tuple[float, float] | None = None,
    ) -> None:
        if not isinstance(template, Template):
            raise VerifierInputError(f"template must be a verifiers.judges.Template, got {type(template).__name__}")
        if not isinstance(model, str) or not model:
            raise VerifierInputError(f"model must be the served model's name, got {model!r}")
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise VerifierInputError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
        self.settings: dict[str, Any] = dict(
            base_url=base_url, model=model, template=template, api_key=api_key, concurrency=concurrency,
            timeout_s=timeout_s, retries=retries, backoff_s=backoff_s, deadline_s=deadline_s, max_tokens=max_tokens,
            temperature=temperature, cache_dir=None if cache_dir is None else os.fspath(cache_dir),
            price_per_million=None if price_per_million is None else tuple(price_per_million),
        )  # fmt: skip
        self.template, self.model, self.usage = template, model, Usage()
        try:
            self._client = Client(
                base_url, model=model, api_key=api_key, concurrency=concurrency, timeout=timeout_s,
                retries=retries, backoff=backoff_s, deadline=deadline_s,
            )  # fmt: skip
        except ServerError as exc:
            raise VerifierInputError(str(exc)) from None
        self._cache = None if cache_dir is None else ReplyCache(cache_dir)
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the settings (a client holds locks and sockets): judges travel to workers."""
        return (_made, (self.settings,))

    def __repr__(self) -> str:
        return f"LLMJudge(base_url={self.settings['base_url']!r}, model={self.model!r})"

    def verify(
        self, reference: Any, completion: Any, *, prompt: str | None = None, answer_only: bool = False
    ) -> VerifyResult:
        """Judge one completion; ``answer_only``: ``completion`` is an answer already extracted."""
        return self.verify_many([reference], [completion], prompts=[prompt], answer_only=answer_only)[0]

    def verify_many(
        self,
        references: Sequence[Any],
        completions: Sequence[Any],
        *,
        prompts: Sequence[str | None] | None = None,
        executor: Executor | None = None,
        answer_only: bool = False,
    ) -> list[VerifyResult]:
        """`verify` over pairs, ``concurrency`` at a time (on ``executor`` when given), in order."""
        if len(references) != len(completions) or (prompts is not None and len(prompts) != len(completions)):
            raise VerifierInputError(
                f"references, completions and prompts must have the same length, got {len(references)}, "
                f"{len(completions)} and {'-' if prompts is None else len(prompts)}"
            )
        asked = list(prompts) if prompts is not None else [None] * len(completions)
        if executor is not None:
            work = WORKLOAD.with_settings(**self.settings)
            items = list(zip(references, asked, strict=True))
            return executor.map(work, items, list(completions), {"answer_only": answer_only})
        start, before = time.monotonic(), (self.usage.calls, self.usage.prompt_tokens, self.usage.completion_tokens)
        results = self._client.map(
            lambda k: self._one(references[k], completions[k], asked[k], answer_only), range(len(completions))
        )
        if len(completions) > 1:
            calls, tokens = self.usage.calls - before[0], self.usage.prompt_tokens - before[1]
            log.info(
                "judged %d answers in %.2f s: %d calls, %d prompt + %d completion tokens",
                len(completions), time.monotonic() - start, calls, tokens, self.usage.completion_tokens - before[2],
            )  # fmt: skip
        return results

    def _one(self, reference: Any, completion: Any, question: str | None, answer_only: bool) -> VerifyResult:
        if not isinstance(completion, str):
            return VerifyResult.judged("no_answer", f"No answer: the completion is a {type(completion).__name__}.")
        answer = completion if answer_only else read_completion(completion).final
        if answer is None or not answer.strip():
            return VerifyResult.judged("no_answer", "No answer: the completion has no final section to judge.")
        answer = answer.strip()[:MAX_ANSWER_CHARS]
        messages = self.template.messages(question or "", str(reference), answer)
        s = self.settings
        body = {"messages": messages, "max_tokens": s["max_tokens"], "temperature": s["temperature"]}
        key = (
            ""
            if self._cache is None
            else key_of(self.model, s["max_tokens"], s["temperature"], self.template.reply, messages)
        )
        reply = self._cached(key)
        fresh = reply is None
        if reply is None:
            try:
                reply = self._ask(body)
            except ServerError as exc:
                self._count(failed=1)
                return VerifyResult.judged("timeout" if exc.timed_out else "error", f"The judge failed: {exc}.")
        reading = self.template.read(reply, answer=answer)
        if reading.score is None:
            self._count(failed=1)
            return VerifyResult.judged("error", f"The judge's reply is not a verdict: {reading.problem}.")
        if self._cache is not None and fresh:
            self._cache.put(key, {"reply": reply})
        correct = reading.score >= self.template.threshold
        status: Status = "correct" if correct else "incorrect"
        reason = f"The judge {self.model} said {reply.strip().splitlines()[-1].strip()[:60]!r}."
        parts = {"correct": float(correct), "judge": reading.score}
        return VerifyResult.judged(status, reason, extracted=answer[:200], reward=reading.score, components=parts)

    def _cached(self, key: str) -> str | None:
        found = None if self._cache is None else self._cache.get(key)
        if found is None or not isinstance(found.get("reply"), str):
            return None
        self._count(cached=1)
        return str(found["reply"])

    def _ask(self, body: dict[str, Any]) -> str:
        answer = self._client.post("/chat/completions", body)
        first = answer["choices"][0]
        text = (first.get("message") or {}).get("content") if isinstance(first, dict) else None
        if not isinstance(text, str):
            raise ServerError(f"the judge's server answered a choice without text: {str(first)[:200]}")
        usage = answer.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        p, c = (int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens"))
        self._count(calls=1, prompt_tokens=p, completion_tokens=c)
        log.debug("judge %s: %d prompt + %d completion tokens", self.model, p, c)
        return text

    def _count(self, **add: int) -> None:
        price = self.settings["price_per_million"]
        with self._lock:
            for name, n in add.items():
                setattr(self.usage, name, getattr(self.usage, name) + n)
            if price is not None:
                spent = add.get("prompt_tokens", 0) * price[0] + add.get("completion_tokens", 0) * price[1]
                self.usage.cost += spent / 1e6


def _made(settings: dict[str, Any]) -> LLMJudge:
    return LLMJudge(**settings)


def _open(cpus: int, **settings: Any) -> LLMJudge:
    """A worker's state: its own judge (one client, one connection pool) from the settings."""
    return LLMJudge(**settings)


def _batch(
    judge: LLMJudge | None, items: list[Any], completions: list[Any], options: dict[str, Any]
) -> list[VerifyResult]:
    if judge is None:  # not text: judged without a state, as `LLMJudge._one` judges it
        return [
            VerifyResult.judged("no_answer", f"No answer: the completion is a {type(c).__name__}.") for c in completions
        ]
    references, prompts = [r for r, _ in items], [p for _, p in items]
    return judge.verify_many(references, completions, prompts=prompts, answer_only=options.get("answer_only", False))


WORKLOAD = Workload("llm_judge", _batch, open=_open, needs=Needs(cpu=0, network=True), concurrent=True)
"""LLM judging as a `verifiers.Workload`: no CPU to speak of, the network, many batches at once
per worker; settings: the `LLMJudge`'s own (its constructor's keywords)."""
