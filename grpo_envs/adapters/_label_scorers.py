"""What `RewardServer` does with one request's labels: task keys of an env (`EnvScorer`), or gold
answers judged by a verifier alone (`GoldScorer`: ``--verifier math`` golds, ``--verifier code``
JSON test suites), for a user's own dataset with no env behind it."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from typing import Any

from grpo_envs._env import score_tasks
from grpo_envs._judgement import Judgement
from grpo_envs._judging import JudgeConfig
from grpo_envs.adapters._common import Scorer
from verifiers.errors import VerifierInputError
from verifiers.executors import Executor

__all__ = ["GOLD_VERIFIERS", "BadLabel", "EnvScorer", "GoldScorer"]

GOLD_VERIFIERS = ("math", "code")
"""``RewardServer(verifier=...)``: what a label is then (a gold answer; a JSON test suite)."""


class BadLabel(Exception):
    """A label this server cannot read (the request gets a 400 with this message)."""


class EnvScorer:
    """Labels are task keys (`task_key`) of ``env_id``; completions are judged by that env (on
    ``executor``, e.g. a `RayExecutor`, when given; with ``judge``, by its verifier and that LLM
    judge, `grpo_envs.JudgeConfig.apply`)."""

    def __init__(
        self,
        env_id: str,
        *,
        allow_any_env: bool = False,
        env_kwargs: dict[str, Any] | None = None,
        executor: Executor | None = None,
        judge: JudgeConfig | None = None,
    ) -> None:
        self.name = env_id
        self.settings = judge
        self.executor = executor
        self.allow_any_env = allow_any_env
        self.env_kwargs = env_kwargs or {}
        self._scorers: dict[str, Scorer] = {env_id: Scorer(env_id, judge=judge, **self.env_kwargs)}
        self._scorers[env_id].env("train")  # an unknown id or bad env_kwargs fail here, not on the first request
        self._lock = threading.Lock()

    def _scorer(self, env_id: str) -> Scorer:
        if env_id != self.name and not self.allow_any_env:
            raise BadLabel(f"label names env {env_id!r} but this server scores {self.name!r}")
        with self._lock:
            if env_id not in self._scorers:
                self._scorers[env_id] = Scorer(env_id, judge=self.settings)
            return self._scorers[env_id]

    def score(
        self, responses: Sequence[str], labels: Sequence[str], prompts: Sequence[str] | None = None
    ) -> list[Judgement]:
        """The verdicts, every task's responses verified at once; the env judges with its own
        tasks' prompts (``prompts`` is not read)."""
        groups: dict[tuple[str, str, int], list[int]] = {}
        for k, label in enumerate(labels):
            try:
                key = json.loads(label)
                groups.setdefault((str(key["env_id"]), str(key.get("split", "train")), int(key["seed"])), []).append(k)
            except (ValueError, KeyError, TypeError):
                raise BadLabel(
                    f"item {k}: label {label[:80]!r} is not a task key from write_dataset (to judge gold answers "
                    "instead, run the server with --verifier math or --verifier code)"
                ) from None
        asked = [
            self._scorer(env_id).completions(seed, [responses[k] for k in ks], split=split)
            for (env_id, split, seed), ks in groups.items()
        ]
        out: list[Judgement | None] = [None] * len(responses)
        for ks, scored in zip(groups.values(), score_tasks(asked, executor=self.executor), strict=True):
            for k, judgement in zip(ks, scored, strict=True):
                out[k] = judgement
        return [v for v in out if v is not None]


class GoldScorer:
    """Labels are golds: a math answer (``"72"``, ``"\\frac{1}{2}"``, a GSM8K ``... #### 72``
    solution) for ``"math"``, a JSON test suite (what `verifiers.code.verify` takes, e.g.
    ``{"fn_name": "f", "inputs": [[1]], "outputs": [2]}``) for ``"code"``; judged on ``executor``
    (e.g. a `RayExecutor`) when given. ``judge`` (a `verifiers.judges` judge, math only): the
    rule first, the judge on its rejections (`verifiers.judges.with_judge`), shown the prompts."""

    def __init__(
        self, verifier: str, *, timeout_s: float = 5.0, executor: Executor | None = None, judge: Any = None
    ) -> None:
        if verifier not in GOLD_VERIFIERS:
            raise ValueError(f"verifier must be one of {GOLD_VERIFIERS}, got {verifier!r}")
        if judge is not None and verifier != "math":
            raise ValueError("a judge backs the math verifier only (a rule first, the judge on its rejections)")
        self.hybrid = None
        if judge is not None:
            from verifiers.judges import with_judge
            from verifiers.math import verify, verify_many

            rule, rule_many = (
                functools.partial(verify, timeout_s=timeout_s),
                functools.partial(verify_many, timeout_s=timeout_s),
            )
            self.hybrid = with_judge(rule, judge, rule_many=rule_many)
        self.name = f"verifier:{verifier}" + ("+judge" if judge is not None else "")
        self.verifier = verifier
        self.timeout_s = timeout_s
        self.executor = executor

    def score(
        self, responses: Sequence[str], labels: Sequence[str], prompts: Sequence[str] | None = None
    ) -> list[Judgement]:
        """The verdicts on ``responses`` against their gold ``labels``, as one batch."""
        for k, label in enumerate(labels):
            if not label.strip():
                raise BadLabel(f"item {k}: the label is empty; it must be the gold answer")
        try:
            if self.hybrid is not None:
                results = self.hybrid.verify_many(
                    list(labels), list(responses), prompts=prompts, executor=self.executor
                )
            elif self.verifier == "math":
                from verifiers.math import verify_many as math_many

                results = math_many(list(labels), list(responses), timeout_s=self.timeout_s, executor=self.executor)
            else:
                from verifiers.code import verify_many as code_many

                results = code_many(_suites(labels), list(responses), timeout_s=self.timeout_s, executor=self.executor)
        except VerifierInputError as exc:
            raise BadLabel(f"a label is not a valid gold for the {self.verifier} verifier: {exc}") from None
        return [Judgement(r.reward, r, {"correctness": r.reward}, "", self.name, 0, self.name) for r in results]


def _suites(labels: Sequence[str]) -> list[dict[str, Any]]:
    suites = []
    for k, label in enumerate(labels):
        try:
            suite = json.loads(label)
        except json.JSONDecodeError as exc:
            raise BadLabel(
                f"item {k}: the label is not JSON ({exc}); --verifier code takes a JSON test suite"
            ) from None
        if not isinstance(suite, dict):
            raise BadLabel(f"item {k}: the label is a JSON {type(suite).__name__}; a test suite is a JSON object")
        suites.append(suite)
    return suites
