"""verl: a ``compute_score`` function and the parquet layout of verl's RL datasets.

Tested against verl 0.9.1's own code (tests/grpo_envs/test_adapters_verl_peer.py, in its own
virtualenv: verl pins ``transformers<5.11`` and needs ray): its config (hydra's ``ppo_trainer``
and ``migrate_legacy_reward_impl``) loads this file's `compute_score`, its ``create_rl_dataset``
reads `write_parquet`'s files, and its reward loop (``RewardLoopWorker`` with the ``naive``
reward manager, ``RewardLoopManager.compute_rm_score``) gives each completion the reward
``env.step`` gives it. Every result has the same keys (verl takes them from the first result)
and a ``pred`` (the extracted answer, which verl's maj@N votes on).

Example (in verl's config: ``reward.custom_reward_function.path`` = this file,
``reward.custom_reward_function.name`` = ``compute_score``):
    >>> from grpo_envs.adapters.verl import compute_score, write_parquet  # doctest: +SKIP
    >>> write_parquet("grpo_envs/Arithmetic-v0", 1000, seed=0, path="train.parquet")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from grpo_envs._task import Task
from grpo_envs.adapters._common import Scorer, reference_text, task_seeds

__all__ = ["compute_score", "rows", "write_parquet"]

_SCORERS: dict[tuple[str, str], Scorer] = {}


def _scorer(env_id: str, env_kwargs: dict[str, Any] | None = None) -> Scorer:
    kwargs = env_kwargs or {}
    key = (env_id, json.dumps(kwargs, sort_keys=True))
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(env_id, **kwargs)
    return _SCORERS[key]


def rows(env_id: str, n: int, seed: int = 0, *, split: str = "train", **env_kwargs: Any) -> list[dict[str, Any]]:
    """verl dataset rows for ``n`` tasks (what `write_parquet` writes)."""
    scorer = _scorer(env_id, env_kwargs)
    env = scorer.env(split)
    out = []
    for index, task_seed in enumerate(task_seeds(seed, n)):
        task = scorer.task(task_seed, split)
        out.append(
            {
                "data_source": env_id,
                "prompt": [{"role": "user", "content": env.prompt_text(task)}],
                "ability": "code" if env.verifier.name == "code" else "reasoning",
                "reward_model": {"style": "rule", "ground_truth": reference_text(task)},
                "extra_info": {
                    "env_id": env_id,
                    "split": split,
                    "task_seed": task_seed,
                    "index": index,
                    "task_id": task.task_id,
                    "env_kwargs": json.dumps(env_kwargs, sort_keys=True),
                },
            }
        )
    return out


def write_parquet(env_id: str, n: int, seed: int, path: str | Path, *, split: str = "train", **env_kwargs: Any) -> Path:
    """Write ``n`` tasks of ``env_id`` in verl's parquet layout; returns the path."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows(env_id, n, seed, split=split, **env_kwargs))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out)
    return out


def compute_score(
    data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """verl's reward function: ``{"score": reward, "correct", "status", "reason", "masked",
    "pred", "reward/<part>"...}``, the same keys for every completion of one env (verl takes the
    keys of its extra reward info from the first result). ``pred`` is the answer extracted from
    the completion ("" when none; verl's maj@N votes on it); ``reward/<part>`` is each part of the
    env's rubric (NaN where a part does not apply: verl averages
    these, and NaN, unlike None, averages without raising). ``masked`` is True when nobody judged the
    completion (a timeout, an error); verl logs the extra keys but does not act on them, so such
    a completion trains with its score of 0.

    With ``extra_info`` from `rows` the exact task is rebuilt (env id, split, task seed) and
    ``ground_truth`` is checked against it; without it, ``data_source`` names the env and the
    completion is judged against ``ground_truth`` alone (for envs whose reference is the answer).
    """
    info = extra_info or {}
    env_id = str(info.get("env_id") or data_source)
    env_kwargs = json.loads(info["env_kwargs"]) if info.get("env_kwargs") else {}
    scorer = _scorer(env_id, env_kwargs)
    text = solution_str if isinstance(solution_str, str) else ""
    split = str(info.get("split", "train"))
    if "task_seed" in info:
        judgement = scorer.score(int(info["task_seed"]), [text], split=split, reference=ground_truth)[0]
    else:
        try:
            answer: Any = json.loads(ground_truth)
        except (TypeError, json.JSONDecodeError):
            answer = ground_truth
        task = Task("verl", "", answer if not isinstance(answer, (int, float)) else ground_truth)
        judgement = scorer.env(split).judgements(task, [text])[0]
    parts = ["correctness", *(term.name for term in scorer.env(split).rubric.terms)]
    return {
        "score": judgement.reward,
        "correct": judgement.correct,
        "status": judgement.status,
        "reason": judgement.reason,
        "masked": not judgement.judged,  # a timeout or error: verl trains on the 0 score regardless
        "pred": judgement.extracted or "",
        **{f"reward/{name}": float(judgement.reward_parts.get(name, math.nan)) for name in parts},
    }
