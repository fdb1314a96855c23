"""Groups: G completions of one task, scored together (the exchange format with trainers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task, stable_digest
from grpo_envs.errors import GrpoEnvsError
from verifiers import VerifyResult

__all__ = ["Group", "GroupScore", "make_group"]


@dataclass(frozen=True)
class GroupScore:
    """Rewards and verdicts of a group's completions, in order."""

    rewards: tuple[float, ...]
    results: tuple[VerifyResult, ...]
    infos: tuple[dict[str, Any], ...]

    @property
    def accuracy(self) -> float:
        """Fraction judged correct (``correct is True``; never ``reward > 0``)."""
        return sum(r.correct is True for r in self.results) / max(1, len(self.results))


@dataclass(frozen=True)
class Group:
    """One task and the ids to score G completions of it.

    Example:
        >>> group = make_group("grpo_envs/Arithmetic-v0", seed=11, size=4)
        >>> score = group.score([group.env.reference_completion(group.task), "no idea"] * 2)
        >>> score.rewards
        (1.0, 0.0, 1.0, 0.0)
    """

    group_id: str
    seed: int
    size: int
    task: Task
    prompt: str
    messages: tuple[dict[str, str], ...]
    env: ReasoningEnv = field(repr=False, compare=False)

    def score(self, completions: Sequence[str]) -> GroupScore:
        """Verify single-turn completions of this task together (in parallel); never raises."""
        if len(completions) != self.size:
            raise GrpoEnvsError(f"the group has size {self.size}, got {len(completions)} completions")
        env = self.env
        texts = [c if isinstance(c, str) else "" for c in completions]
        results = env.judge(self.task, texts)
        rewards, infos = [], []
        for completion, result in zip(texts, results, strict=True):
            reward, parts = env.rubric.score(self.task, completion, result)
            rewards.append(float(reward))
            infos.append({
                "task_id": self.task.task_id, "group_id": self.group_id, "env_id": env.env_id,
                "env_version": env.version, "correct": result.correct, "status": result.status,
                "reason": result.reason, "extracted": result.extracted,
                "components": dict(result.components), "reward_parts": parts,
                "verifier": f"{env.verifier.name}:{env.verifier.digest}",
            })  # fmt: skip
        return GroupScore(tuple(rewards), tuple(results), tuple(infos))

    def make_envs(self) -> list[ReasoningEnv]:
        """G fresh env instances (from ``env.spec``) reset to this task: multi-turn rollouts."""
        spec = self.env.spec
        if spec is None:
            raise GrpoEnvsError("make_envs needs an env made with gymnasium.make (it has a spec)")
        envs = []
        for _ in range(self.size):
            env = gymnasium.make(spec).unwrapped
            assert isinstance(env, ReasoningEnv)
            env.reset(seed=self.seed, options={"group_id": self.group_id})
            envs.append(env)
        return envs


def make_group(env: str | gymnasium.Env[Any, Any], seed: int, size: int, **kwargs: Any) -> Group:
    """The group for task ``seed``: ``size`` completions of the same task.

    ``env`` is an env id (made with ``gymnasium.make(env, **kwargs)``) or an env instance.
    """
    if size < 1:
        raise GrpoEnvsError(f"size must be >= 1, got {size}")
    made = gymnasium.make(env, **kwargs) if isinstance(env, str) else env
    base = made.unwrapped
    if not isinstance(base, ReasoningEnv):
        raise GrpoEnvsError(f"make_group needs a ReasoningEnv, got {type(base).__name__}")
    group_id = stable_digest("group", base.env_id, base.version, base.split, int(seed))[:16]
    _, info = base.reset(seed=int(seed), options={"group_id": group_id})
    assert base.task is not None
    return Group(
        group_id, int(seed), size, base.task, base.prompt_text(base.task),
        tuple(dict(m) for m in info["messages"]), base,
    )  # fmt: skip
