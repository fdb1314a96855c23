"""Groups: G completions of one task, scored together (the exchange format with trainers)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from grpo_envs._env import ReasoningEnv, TaskCompletions, score_tasks
from grpo_envs._judgement import Judgement
from grpo_envs._task import Task, stable_digest
from grpo_envs.errors import GrpoEnvsError
from verifiers import VerifyResult
from verifiers.executors import Executor

__all__ = ["Group", "GroupScore", "make_group", "score_groups"]


@dataclass(frozen=True)
class GroupScore:
    """The verdicts on a group's completions, in order (`Judgement`: reward, verifier result,
    rubric parts, provenance)."""

    judgements: tuple[Judgement, ...]

    @property
    def rewards(self) -> tuple[float, ...]:
        return tuple(j.reward for j in self.judgements)

    @property
    def results(self) -> tuple[VerifyResult, ...]:
        return tuple(j.result for j in self.judgements)

    @property
    def infos(self) -> tuple[dict[str, Any], ...]:
        """Each verdict as Gymnasium ``info`` keys (what ``env.step`` returns)."""
        return tuple(j.info() for j in self.judgements)

    @property
    def accuracy(self) -> float:
        """Fraction judged correct (``correct is True``; never ``reward > 0``)."""
        return sum(j.correct is True for j in self.judgements) / max(1, len(self.judgements))


@dataclass(frozen=True)
class Group:
    """One task and the ids to score G completions of it.

    Examples:
        >>> group = make_group("grpo_envs/Arithmetic-v0", seed=11, num_generations=4)
        >>> score = group.score([group.env.reference_completion(group.task), "no idea"] * 2)
        >>> score.rewards
        (1.0, 0.0, 1.0, 0.0)
    """

    group_id: str
    seed: int
    num_generations: int
    task: Task
    prompt: str
    messages: tuple[dict[str, str], ...]
    env: ReasoningEnv = field(repr=False, compare=False)

    def score(self, completions: Sequence[str], *, executor: Executor | None = None) -> GroupScore:
        """Verify single-turn completions of this task together (in parallel); never raises.

        ``executor`` (`verifiers.executors`: e.g. ``RayExecutor()``) judges them elsewhere; an
        env whose verifier cannot run there judges them here.
        """
        return score_groups([self], [completions], executor=executor)[0]

    def _completions(self, completions: Sequence[str]) -> TaskCompletions:
        if isinstance(completions, str):
            raise GrpoEnvsError("score takes the group's completions as a list of strings, got one string")
        if len(completions) != self.num_generations:
            n = self.num_generations
            raise GrpoEnvsError(f"the group has size {n} (num_generations), got {len(completions)} completions")
        return TaskCompletions(self.env, self.task, list(completions), self.group_id)

    def make_envs(self) -> list[ReasoningEnv]:
        """G fresh env instances (from ``env.spec``) reset to this task: multi-turn rollouts."""
        spec = self.env.spec
        if spec is None:
            raise GrpoEnvsError("make_envs needs an env made with gymnasium.make (it has a spec)")
        envs = []
        for _ in range(self.num_generations):
            env = gymnasium.make(spec).unwrapped
            assert isinstance(env, ReasoningEnv)
            env.reset(seed=self.seed, options={"group_id": self.group_id})
            envs.append(env)
        return envs


def score_groups(
    groups: Sequence[Group], completions: Sequence[Sequence[str]], *, executor: Executor | None = None
) -> list[GroupScore]:
    """Each group's score, all groups verified at once: one batch per verifier over every
    group's answers (on ``executor``, e.g. a `RayExecutor`, when given); never raises on a completion.

    Examples:
        >>> groups = [make_group("grpo_envs/Arithmetic-v0", seed=s, num_generations=2) for s in (1, 2)]
        >>> scores = score_groups(groups, [[g.env.reference_completion(g.task), "no idea"] for g in groups])
        >>> [s.rewards for s in scores]
        [(1.0, 0.0), (1.0, 0.0)]
    """
    asked = [group._completions(texts) for group, texts in zip(groups, completions, strict=True)]
    return [GroupScore(tuple(judged)) for judged in score_tasks(asked, executor=executor)]


def make_group(
    env: str | gymnasium.Env[Any, Any], seed: int, num_generations: int | None = None, **kwargs: Any
) -> Group:
    """The group for task ``seed``: ``num_generations`` (G) completions of the same task.

    ``env`` is an env id (made with ``gymnasium.make(env, **kwargs)``) or an env instance.
    """
    if num_generations is None:
        raise GrpoEnvsError("make_group needs num_generations, the number of completions in the group (G)")
    if not _is_int(num_generations) or num_generations < 1:
        raise GrpoEnvsError(f"num_generations must be an int >= 1, got {num_generations!r}")
    if not _is_int(seed):
        raise GrpoEnvsError(f"seed must be an int (the task's seed), got {seed!r}")
    made = gymnasium.make(env, **kwargs) if isinstance(env, str) else env
    base = made.unwrapped
    if not isinstance(base, ReasoningEnv):
        raise GrpoEnvsError(f"make_group needs a ReasoningEnv, got {type(base).__name__}")
    group_id = stable_digest("group", base.env_id, base.version, base.split, int(seed))[:16]
    _, info = base.reset(seed=int(seed), options={"group_id": group_id})
    assert base.task is not None
    return Group(
        group_id,
        int(seed),
        int(num_generations),
        base.task,
        base.prompt_text(base.task),
        tuple(dict(m) for m in info["messages"]),
        base,
    )


def _is_int(value: object) -> bool:
    """An integer (Python's or numpy's), not a bool or a float."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
