"""`check_env`: Gymnasium's checker plus the laws of a reasoning environment, into an
`EnvReport`; `check_disjoint`."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import stable_digest
from grpo_envs.errors import EnvCheckError, GrpoEnvsError

__all__ = ["EnvCheckError", "EnvReport", "check_disjoint", "check_env"]

GARBAGE = ["", "   ", "\x00\ufffd" * 10, "}{\\boxed{" * 50, "x" * 100_000, "<answer></answer>"]


def _global_state() -> tuple[Any, Any]:
    return random.getstate(), np.random.get_state()[1].tobytes()  # type: ignore[index]


@dataclass(frozen=True)
class EnvReport:
    """What `check_env` checked on an environment that kept every law (``str()``: one line per law).

    Examples:
        >>> report = check_env(gymnasium.make("grpo_envs/Sorting-v0"), seeds=range(2))
        >>> report.env_id, report.seeds, report.episodes
        ('grpo_envs/Sorting-v0', (0, 1), 14)
    """

    env_id: str
    seeds: tuple[int, ...]
    distinct_prompts: int
    """How many different prompts the seeds gave."""
    episodes: int
    """Episodes stepped: each seed's reference completion, and each garbage completion per seed."""
    fresh_instance: bool
    """Whether a fresh instance (made from the env's spec) was compared too (False for an unregistered env)."""

    @property
    def laws(self) -> tuple[str, ...]:
        n = len(self.seeds)
        fresh = " and in a fresh instance" if self.fresh_instance else ""
        return (
            "Gymnasium's check_env: no error, no warning",
            f"the same seed gives the same prompt, on a second reset{fresh} ({n} seeds)",
            f"different seeds give different tasks ({self.distinct_prompts} prompts from {n} seeds)",
            f"the reference completion is judged correct ({n} tasks)",
            f"{len(GARBAGE)} garbage completions (empty, 100k characters, NUL, unbalanced) never raise, earn "
            f"rewards inside reward_bounds and end within max_turns ({n * len(GARBAGE)} episodes)",
            "the global random and numpy RNG states are unchanged",
        )

    def __str__(self) -> str:
        return f"{self.env_id} keeps every law of check_env:\n" + "\n".join(f"- {law}" for law in self.laws)


def check_env(env: gymnasium.Env[Any, Any], *, seeds: Iterable[int] = range(5)) -> EnvReport:
    """Gymnasium's ``check_env`` plus the laws every reasoning environment must keep; returns an
    `EnvReport` of what was checked.

    Laws: the same seed gives the same prompt (also in a fresh instance); different seeds give
    different tasks; the reference completion is judged correct; garbage, empty and 100k-char
    completions never raise and earn rewards inside ``reward_bounds``; no global ``random`` or
    ``numpy`` state changes; multi-turn episodes end within ``max_turns``.

    Raises:
        EnvCheckError: listing every law broken.

    Examples:
        >>> print(check_env(gymnasium.make("grpo_envs/Arithmetic-v0")))  # doctest: +ELLIPSIS
        grpo_envs/Arithmetic-v0 keeps every law of check_env:
        - Gymnasium's check_env: no error, no warning
        ...
    """
    base = env.unwrapped
    if not isinstance(base, ReasoningEnv):
        raise EnvCheckError(f"not a ReasoningEnv: {type(base).__name__}")
    seeds = list(seeds)
    before = _global_state()
    problems = _gymnasium_problems(base)
    prompts = []
    for seed in seeds:
        prompt, found = _seed_problems(base, seed)
        prompts.append(prompt)
        problems += found + _reference_problems(base, seed)
        for completion in GARBAGE:
            problems += _garbage_problems(base, seed, completion)
    if len(seeds) > 1 and len(set(prompts)) < 2:
        problems.append(f"seeds {seeds} all gave the same prompt")
    if _global_state() != before:
        problems.append("the global random or numpy RNG state changed")
    if problems:
        raise EnvCheckError(f"{base.env_id} broke {len(problems)} law(s):\n- " + "\n- ".join(problems))
    episodes = len(seeds) * (1 + len(GARBAGE))
    return EnvReport(base.env_id, tuple(seeds), len(set(prompts)), episodes, base.spec is not None)


def _gymnasium_problems(base: ReasoningEnv) -> list[str]:
    """Gymnasium's own checker: what it raises, and what it warns (its warnings count)."""
    problems: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            gymnasium_check_env(base, skip_render_check=base.spec is None)
        except Exception as exc:
            problems.append(f"gymnasium's check_env: {type(exc).__name__}: {exc}")
    return problems + [f"gymnasium's check_env warned: {w.message}" for w in caught]


def _seed_problems(base: ReasoningEnv, seed: int) -> tuple[Any, list[str]]:
    """The prompt of ``seed``, and whether a second reset and a fresh instance give it again."""
    problems: list[str] = []
    prompt, _ = base.reset(seed=seed)
    again, _ = base.reset(seed=seed)
    if prompt != again:
        problems.append(f"seed {seed}: two resets gave different prompts")
    if base.spec is not None:
        fresh = gymnasium.make(base.spec).unwrapped
        if fresh.reset(seed=seed)[0] != prompt:
            problems.append(f"seed {seed}: a fresh instance gave a different prompt")
        fresh.close()
    return prompt, problems


def _reference_problems(base: ReasoningEnv, seed: int) -> list[str]:
    """The task's reference completion (the env was just reset with ``seed``) must be judged correct."""
    task = base.task
    assert task is not None
    info = base.step(base.reference_completion(task))[4]
    if info.get("correct") is True:
        return []
    return [f"seed {seed}: the reference completion was judged {info.get('status')}: {info.get('reason')}"]


def _garbage_problems(base: ReasoningEnv, seed: int, completion: str) -> list[str]:
    """One episode of ``completion`` at every turn: no exception, rewards in bounds, at most max_turns."""
    low, high = base.reward_bounds
    base.reset(seed=seed)
    problems: list[str] = []
    steps, done = 0, False
    while not done:
        try:
            _, reward, terminated, truncated, _ = base.step(completion)
        except Exception as exc:
            return [*problems, f"seed {seed}: step({completion[:20]!r}...) raised {type(exc).__name__}: {exc}"]
        steps += 1
        done = terminated or truncated
        if not low <= float(reward) <= high:
            problems.append(f"seed {seed}: reward {reward} outside {base.reward_bounds}")
        if steps > base.max_turns:
            return [*problems, f"seed {seed}: the episode ran past max_turns={base.max_turns}"]
    return problems


def check_disjoint(
    env: str | gymnasium.Env[Any, Any],
    train_seeds: Iterable[int],
    eval_seeds: Iterable[int],
    **kwargs: Any,
) -> list[str]:
    """Task ids whose task (prompt and answer) occurs in both the train and the eval stream.

    A small task space repeats whatever the seeds; this reports how much.

    Examples:
        >>> check_disjoint("grpo_envs/Sorting-v0", range(50), range(50))
        []
    """

    def contents(split: str, seeds: Iterable[int]) -> dict[str, str]:
        made = gymnasium.make(env, split=split, **kwargs) if isinstance(env, str) else env
        base = made.unwrapped
        if not isinstance(base, ReasoningEnv):
            raise GrpoEnvsError(f"check_disjoint needs a ReasoningEnv, got {type(base).__name__}")
        if not isinstance(env, str):
            base.split = split
        out = {}
        for seed in seeds:
            base.reset(seed=seed)
            assert base.task is not None
            out[stable_digest(base.task.prompt, repr(base.task.answer))] = base.task.task_id
        return out

    train = contents("train", train_seeds)
    evals = contents("eval", eval_seeds)
    return sorted(evals[key] for key in set(train) & set(evals))
