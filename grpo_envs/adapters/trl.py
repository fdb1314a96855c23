"""TRL: our environments as `trl.GRPOTrainer` reward functions, datasets and tool environments.

Single-turn envs: `reward_function` + `dataset`. Multi-turn tool envs (PythonTool, CodeRepair, and
an id registered with `Terminal`): `environment_factory` + ``dataset(..., conversational=True)``.
Judging on a Ray cluster: ``reward_function(env_id, executor="ray")``.

Examples:
    >>> from grpo_envs.adapters import trl as adapter  # doctest: +SKIP
    >>> from trl import GRPOConfig, GRPOTrainer  # doctest: +SKIP
    >>> trainer = GRPOTrainer(  # doctest: +SKIP
    ...     model="Qwen/Qwen2.5-0.5B-Instruct",
    ...     reward_funcs=adapter.reward_function("grpo_envs/Arithmetic-v0"),
    ...     train_dataset=adapter.dataset("grpo_envs/Arithmetic-v0", n=1000, seed=0),
    ...     args=GRPOConfig(output_dir="out"),
    ... )
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from grpo_envs._env import score_tasks
from grpo_envs._judgement import Judgement
from grpo_envs.adapters._common import Scorer, completion_text, named_executor, reference_text, task_seeds
from grpo_envs.adapters._trl_env import environment_factory
from grpo_envs.adapters._trl_terminal import is_terminal, terminal_dataset
from verifiers.errors import VerifierInputError
from verifiers.executors import Executor

__all__ = ["SUPPORTED_TRL", "dataset", "environment_factory", "reward_function"]

SUPPORTED_TRL = ">=1.14,<2"
"""The TRL versions the adapter is tested against (CI runs the real GRPOTrainer)."""


def dataset(
    env_id: str, n: int, seed: int = 0, *, split: str = "train", conversational: bool = False, **env_kwargs: Any
) -> Any:
    """A `datasets.Dataset` of ``n`` tasks: ``prompt`` plus the columns the reward needs.

    Columns: ``prompt`` (text, or ``[{"role": "user", ...}]`` with ``conversational=True``),
    ``task_seed`` and ``split`` (the reward rebuilds the exact task from them), ``reference``
    (checked against the rebuilt task), ``task_id``. For an id registered with `Terminal`: the
    task's instruction, and its reference commands as ``reference`` (`terminal_dataset`).
    """
    import datasets

    if is_terminal(env_id):  # the user's tasks, picked by the reset seed
        return terminal_dataset(env_id, n, seed, split, conversational, **env_kwargs)
    scorer = Scorer(env_id, **env_kwargs)
    rows: dict[str, list[Any]] = defaultdict(list)
    env = scorer.env(split)
    for task_seed in task_seeds(seed, n):
        task = scorer.task(task_seed, split)
        text = env.prompt_text(task)
        rows["prompt"].append([{"role": "user", "content": text}] if conversational else text)
        rows["task_seed"].append(task_seed)
        rows["split"].append(split)
        rows["reference"].append(reference_text(task))
        rows["task_id"].append(task.task_id)
    return datasets.Dataset.from_dict(dict(rows))


def reward_function(
    env_id: str, *, executor: str | Executor = "local", **env_kwargs: Any
) -> Callable[..., list[float | None]]:
    """A TRL reward function: ``f(prompts, completions, completion_ids, **columns) -> rewards``.

    Completions may be text or chat messages (the assistant's content is judged). Every
    task's completions are verified together, one batch per verifier (`score_tasks`). Keyword arguments it does not use
    (``trainer_state``, ``log_extra``, ``log_metric``, ``environments``, other columns) are
    accepted and ignored; ``log_metric``, when given, receives the correct rate.

    ``executor`` is where completions are judged: ``"local"`` (this process),
    ``"ray"`` (a `RayExecutor` on ``RAY_ADDRESS``'s cluster, else a new local one; ``pip install
    'grpo-envs[ray]'``) or an `Executor` instance. The one-line switch:
    ``reward_function(env_id, executor="ray")``; rewards come back in input order. A name is
    checked here but its executor is made at the first call (building the reward function never
    starts Ray), shared by every adapter in this process (verl's too) and closed at exit; a
    verifier made from a function of one item (`Verifier.from_fn`) judges here anyway.
    ``executor`` is this function's own argument, never passed to the env: every other keyword
    argument is (``env_kwargs``).

    A completion nobody could judge (a verifier timeout or error) gets ``None``: TRL turns it
    into NaN and, when every reward function says None, leaves it out of its group's mean and
    std (advantage 0). With several reward functions one None is summed away, and the row still
    counts in the ``dapo`` normaliser; our own trainer leaves it out of the loss entirely.
    """
    scorer = Scorer(env_id, **env_kwargs)
    judges_on = _judges_on(executor)

    def reward(
        prompts: Any = None, completions: Any = None, completion_ids: Any = None, **kwargs: Any
    ) -> list[float | None]:
        texts = [completion_text(c) for c in completions or []]
        tasks = _rows_by_task(env_id, len(texts), kwargs.get("task_seed"), kwargs.get("split"))
        references = kwargs.get("reference") or [None] * len(texts)
        asked = [
            scorer.completions(seed, [texts[k] for k in ks], split=split, reference=references[ks[0]])
            for (seed, split), ks in tasks
        ]
        judgements = _in_row_order(len(texts), tasks, score_tasks(asked, executor=judges_on()))
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and texts:
            log_metric("grpo_envs/correct_rate", sum(j.correct is True for j in judgements) / len(texts))
        return [j.reward if j.judged else None for j in judgements]  # TRL: None is NaN, left out

    reward.__name__ = "grpo_envs_" + env_id.split("/")[-1].replace("-", "_")
    return reward


_TaskRows = tuple[tuple[int, str], list[int]]
"""One task of a batch, ``((task_seed, split), rows)``: the rows holding its completions."""


def _rows_by_task(env_id: str, n: int, seeds: Any, splits: Any) -> list[_TaskRows]:
    """The batch's ``n`` rows grouped by the task their ``task_seed`` and ``split`` columns rebuild
    (no ``split`` column: "train")."""
    if seeds is None:
        raise ValueError(
            f"the dataset lacks the 'task_seed' column: build it with grpo_envs.adapters.trl.dataset({env_id!r}, ...)"
        )
    splits = splits or ["train"] * n
    by_task: dict[tuple[int, str], list[int]] = defaultdict(list)
    for k in range(n):
        by_task[(int(seeds[k]), str(splits[k]))].append(k)
    return list(by_task.items())


def _in_row_order(n: int, tasks: list[_TaskRows], scored: list[list[Judgement]]) -> list[Judgement]:
    """The judgements of ``tasks`` put back in the order of the batch's ``n`` rows."""
    rows: list[Judgement | None] = [None] * n
    for (_, ks), judgements in zip(tasks, scored, strict=True):
        for k, judgement in zip(ks, judgements, strict=True):
            rows[k] = judgement
    assert all(j is not None for j in rows)  # every row belongs to one task
    return [j for j in rows if j is not None]


def _judges_on(choice: str | Executor) -> Callable[[], Executor | None]:
    """Where a reward function judges: the `Executor` given, or the one a name stands for (checked
    now, made at the first call and shared: `named_executor`)."""
    if isinstance(choice, Executor):
        return lambda: choice
    if choice not in ("local", "ray"):
        raise VerifierInputError(f"executor must be 'local' or 'ray', got {choice!r}")
    return lambda: named_executor(choice)
