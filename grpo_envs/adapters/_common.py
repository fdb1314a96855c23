"""What the adapters share: rebuilding a task from its key, and scoring completions of it."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import gymnasium

from grpo_envs._env import ReasoningEnv, TaskCompletions, score_tasks
from grpo_envs._judgement import Judgement
from grpo_envs._judging import JudgeConfig
from grpo_envs._registry import resolve_env_id
from grpo_envs._task import Task, stable_seed, thaw
from grpo_envs.errors import GrpoEnvsError
from verifiers.executors import Executor, executor_named

__all__ = ["Scorer", "completion_text", "named_executor", "reference_text", "task_seeds"]


def task_seeds(seed: int, n: int) -> list[int]:
    """The task seeds of a dataset of ``n`` tasks (stable across processes)."""
    return [stable_seed("adapter-dataset", seed, k) % (2**31) for k in range(n)]


def reference_text(task: Task) -> str:
    """The reference as a string column (JSON for structured references such as tests)."""
    answer = thaw(task.answer)
    return answer if isinstance(answer, str) else json.dumps(answer, sort_keys=True)


def completion_text(completion: Any) -> str:
    """A completion as text: a string, or the assistant content of chat messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, Sequence):
        parts = [str(m.get("content", "")) for m in completion if isinstance(m, dict) and m.get("role") == "assistant"]
        return "\n".join(parts)
    return ""


class Scorer:
    """Rebuilds tasks of one env from (split, seed) and scores completions (thread-safe); with
    ``judge``, the env's verifier is the judge's (`JudgeConfig.apply`, one judge for every split)."""

    def __init__(self, env_id: str, *, judge: JudgeConfig | None = None, **env_kwargs: Any) -> None:
        self.env_id = env_id
        self.env_kwargs = env_kwargs
        self.judge = judge
        self._judge: Any = None
        self._envs: dict[str, ReasoningEnv] = {}
        self._tasks: dict[tuple[str, int], Task] = {}
        self._lock = threading.Lock()

    def env(self, split: str = "train") -> ReasoningEnv:
        with self._lock:
            if split not in self._envs:
                try:
                    made = gymnasium.make(resolve_env_id(self.env_id), split=split, **self.env_kwargs).unwrapped
                except gymnasium.error.Error as exc:
                    raise GrpoEnvsError(
                        f"cannot make env {self.env_id!r}: {exc} `grpo-envs envs list` shows the known ids"
                    ) from None
                if not isinstance(made, ReasoningEnv):
                    raise GrpoEnvsError(f"{self.env_id} is not a ReasoningEnv; the adapters need one")
                if self.judge is not None:
                    self._judge = self._judge or self.judge.judge()
                    self.judge.apply(made, self._judge)
                self._envs[split] = made
            return self._envs[split]

    def task(self, seed: int, split: str = "train") -> Task:
        key = (split, int(seed))
        with self._lock:
            cached = self._tasks.get(key)
        if cached is not None:
            return cached
        env = self.env(split)
        with self._lock:
            env.reset(seed=int(seed))
            assert env.task is not None
            self._tasks[key] = env.task
            return env.task

    def completions(
        self, seed: int, completions: Sequence[str], *, split: str = "train", reference: str | None = None
    ) -> TaskCompletions:
        """Completions of task ``seed`` with the env that judges them (`score_tasks` scores many
        tasks' at once); ``reference``, when given, must be the rebuilt task's."""
        task = self.task(seed, split)
        if reference is not None and reference != reference_text(task):
            raise GrpoEnvsError(
                f"task seed {seed} of {self.env_id} ({split}) rebuilds a task whose reference is "
                f"{reference_text(task)[:80]!r}, not {reference[:80]!r}: the dataset was made with another "
                "env version or arguments"
            )
        return TaskCompletions(self.env(split), task, list(completions))

    def score(
        self,
        seed: int,
        completions: Sequence[str],
        *,
        split: str = "train",
        reference: str | None = None,
        executor: Executor | None = None,
    ) -> list[Judgement]:
        """The verdicts on completions of one task, verified together (on ``executor`` if given)."""
        asked = self.completions(seed, completions, split=split, reference=reference)
        return score_tasks([asked], executor=executor)[0]


_EXECUTORS: dict[str, Executor] = {}
_EXECUTORS_LOCK = threading.Lock()


def named_executor(name: str) -> Executor | None:
    """The executor a config names, one per name for the process's lifetime (every adapter in
    the process shares it); None for "local" (judge here, without an executor)."""
    if name == "local":
        return None
    with _EXECUTORS_LOCK:
        if name not in _EXECUTORS:
            _EXECUTORS[name] = executor_named(name)
        return _EXECUTORS[name]
