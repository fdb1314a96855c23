"""verl: a ``compute_score`` function and the parquet layout of verl's RL datasets.

Tested against verl 0.9.1's own code (tests/grpo_envs/test_adapters_verl_peer.py, in its own
virtualenv: verl pins ``transformers<5.11`` and needs ray): its config (hydra's ``ppo_trainer``
and ``migrate_legacy_reward_impl``) loads this file's `compute_score`, its ``create_rl_dataset``
reads `write_parquet`'s files, and its reward loop (``RewardLoopWorker`` with the ``naive``
reward manager, ``RewardLoopManager.compute_rm_score``) gives each completion the reward
``env.step`` gives it. Every result has the same keys (verl takes them from the first result)
and a ``pred`` (the extracted answer, which verl's maj@N votes on).

The batch forms judge many rows in one call, so that with ``reward_kwargs``
``{"verifier_executor": "ray"}`` a whole batch goes to a `RayExecutor` at once:
`compute_score_async` for verl 0.9's reward loop (``custom_reward_function.name=compute_score_async``:
the rows its reward worker awaits together are judged together), and `compute_score_batch`
(``data_sources, solution_strs, ground_truths, extra_infos``) for verl's older ``batch`` manager.

Example (in verl's config: ``reward.custom_reward_function.path`` = this file,
``reward.custom_reward_function.name`` = ``compute_score``):
    >>> from grpo_envs.adapters.verl import compute_score, write_parquet  # doctest: +SKIP
    >>> write_parquet("grpo_envs/Arithmetic-v0", 1000, seed=0, path="train.parquet")  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from grpo_envs._env import TaskCompletions, score_tasks
from grpo_envs._judgement import Judgement
from grpo_envs._judging import JudgeConfig
from grpo_envs._task import Task
from grpo_envs.adapters._common import Scorer, named_executor, reference_text, task_seeds

__all__ = ["compute_score", "compute_score_async", "compute_score_batch", "rows", "write_parquet"]

_SCORERS: dict[tuple[str, str, str], Scorer] = {}


def _scorer(env_id: str, env_kwargs: dict[str, Any] | None = None, judge: str = "") -> Scorer:
    """The scorer of ``env_id`` with ``env_kwargs``, judged by the judge table ``judge`` (JSON; "": none)."""
    kwargs = env_kwargs or {}
    key = (env_id, json.dumps(kwargs, sort_keys=True), judge)
    if key not in _SCORERS:
        settings = JudgeConfig.from_dict(json.loads(judge)) if judge else None
        _SCORERS[key] = Scorer(env_id, judge=settings, **kwargs)
    return _SCORERS[key]


def _judge_json(judge: Any) -> str:
    """``reward_kwargs``' judge table as JSON ("" without one); hydra's DictConfig as plain values."""
    if not judge:
        return ""

    def plain(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, Sequence) and not isinstance(value, str):
            return [plain(v) for v in value]
        return value

    return json.dumps(plain(judge), sort_keys=True)


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
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict[str, Any] | None = None,
    *,
    judge: Mapping[str, Any] | None = None,
    **kwargs: Any,
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

    ``judge`` (``reward_kwargs: {judge: {url: ..., model: ...}}`` in verl's config): an LLM judge
    in the env's verifier, the settings of `grpo_envs.JudgeConfig` (default mode "hybrid": the
    env's verifier first, the judge on its rejections); a completion it could not judge is
    ``masked``, and verl trains it with the score 0.
    """
    text = solution_str if isinstance(solution_str, str) else ""
    key = _key(data_source, ground_truth, extra_info, _judge_json(judge))
    (judgement,) = score_tasks([_completions(key, [text])])[0]
    return _result(_scorer(key.env_id, key.kwargs(), key.judge), key.split, judgement)


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    *,
    verifier_executor: str = "local",
    judge: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """`compute_score` for a whole batch (verl's ``batch`` reward manager calls it so), one
    result per completion, in order. Every task's completions are judged together, one batch
    per verifier (`score_tasks`), with ``verifier_executor="ray"`` (``reward_kwargs`` in verl's
    config) on a `RayExecutor` (verl's own Ray cluster when it runs inside one). ``judge``: as
    `compute_score` takes it.
    """
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not len(data_sources) == len(solution_strs) == len(ground_truths) == len(infos):
        raise ValueError(
            f"compute_score_batch: {len(data_sources)} data_sources, {len(solution_strs)} solution_strs, "
            f"{len(ground_truths)} ground_truths and {len(infos)} extra_infos; pass one of each per completion"
        )
    executor = named_executor(verifier_executor)
    groups: dict[_Key, list[int]] = {}
    table = _judge_json(judge)
    for k, (source, truth, info) in enumerate(zip(data_sources, ground_truths, infos, strict=True)):
        groups.setdefault(_key(source, truth, info, table), []).append(k)
    texts = [s if isinstance(s, str) else "" for s in solution_strs]
    asked = [_completions(key, [texts[k] for k in ks]) for key, ks in groups.items()]
    out: list[dict[str, Any] | None] = [None] * len(texts)
    for (key, ks), judgements in zip(groups.items(), score_tasks(asked, executor=executor), strict=True):
        scorer = _scorer(key.env_id, key.kwargs(), key.judge)
        for k, judgement in zip(ks, judgements, strict=True):
            out[k] = _result(scorer, key.split, judgement)
    return [r for r in out if r is not None]


async def compute_score_async(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict[str, Any] | None = None,
    *,
    verifier_executor: str = "local",
    judge: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """`compute_score` as verl 0.9's reward loop awaits it: its reward worker scores a batch
    row by row, all rows at once on one event loop, so the calls that arrive within
    ``BATCH_WINDOW_S`` of each other are judged together by one `compute_score_batch` (on a
    `RayExecutor` with ``reward_kwargs`` ``{"verifier_executor": "ray"}``); ``judge`` as there."""
    loop = asyncio.get_running_loop()
    table = _judge_json(judge)
    batcher = _BATCHERS.setdefault((id(loop), verifier_executor, table), _Batcher(verifier_executor, table))
    return await batcher.score(loop, (data_source, solution_str, ground_truth, extra_info))


BATCH_WINDOW_S = 0.02
"""How long `compute_score_async` waits for more rows before judging the ones it has."""


class _Batcher:
    """Rows of one event loop waiting to be judged together, and their futures."""

    def __init__(self, executor: str, judge: str = "") -> None:
        self.executor, self.judge = executor, judge
        self.pending: list[tuple[tuple[Any, ...], asyncio.Future[dict[str, Any]]]] = []
        self.flushing: asyncio.Task[None] | None = None

    async def score(self, loop: asyncio.AbstractEventLoop, row: tuple[Any, ...]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self.pending.append((row, future))
        if self.flushing is None or self.flushing.done():
            self.flushing = loop.create_task(self._flush(loop))
        return await future

    async def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        while self.pending:
            await asyncio.sleep(BATCH_WINDOW_S)  # the rest of the batch is being decoded
            taken, self.pending = self.pending, []
            columns = [list(c) for c in zip(*(row for row, _ in taken), strict=True)]
            try:
                table = json.loads(self.judge) if self.judge else None
                judge = functools.partial(compute_score_batch, *columns, verifier_executor=self.executor, judge=table)
                results = await loop.run_in_executor(None, judge)
            except Exception as exc:  # every waiting row gets the error, not a hang
                for _, future in taken:
                    future.set_exception(exc)
                continue
            for (_, future), result in zip(taken, results, strict=True):
                future.set_result(result)


_BATCHERS: dict[tuple[int, str, str], _Batcher] = {}


class _Key(NamedTuple):
    """Which task a verl row's completion answers (rows with equal keys are judged together).
    Not a dataclass: verl loads this file by path, outside ``sys.modules``, where dataclasses fail."""

    env_id: str
    env_kwargs: str  # JSON
    split: str
    task_seed: int | None
    ground_truth: str
    judge: str = ""  # the judge table, JSON ("": the env's verifier alone)

    def kwargs(self) -> dict[str, Any]:
        return dict(json.loads(self.env_kwargs)) if self.env_kwargs else {}


def _key(data_source: str, ground_truth: str, extra_info: dict[str, Any] | None, judge: str = "") -> _Key:
    info = extra_info or {}
    seed = int(info["task_seed"]) if "task_seed" in info else None
    env_id = str(info.get("env_id") or data_source)
    return _Key(env_id, str(info.get("env_kwargs") or ""), str(info.get("split", "train")), seed, ground_truth, judge)


def _completions(key: _Key, texts: list[str]) -> TaskCompletions:
    """Completions of the task ``key`` names, with the env that judges them."""
    scorer = _scorer(key.env_id, key.kwargs(), key.judge)
    if key.task_seed is not None:
        return scorer.completions(key.task_seed, texts, split=key.split, reference=key.ground_truth)
    try:
        answer: Any = json.loads(key.ground_truth)
    except (TypeError, json.JSONDecodeError):
        answer = key.ground_truth
    task = Task("verl", "", answer if not isinstance(answer, (int, float)) else key.ground_truth)
    return TaskCompletions(scorer.env(key.split), task, texts)


def _result(scorer: Scorer, split: str, judgement: Judgement) -> dict[str, Any]:
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
