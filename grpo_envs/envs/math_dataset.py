"""MathDataset: question/answer math problems from a JSONL file or a Hugging Face table."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from grpo_envs._data import load_rows, split_rows
from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task, stable_digest

__all__ = ["MathDataset"]


class MathDataset(ReasoningEnv):
    """Math word problems and competition problems from data, judged by `verifiers.math`.

    ## Task
    One row: a question and its answer. Works offline with a small sample set written for
    this package (GSM8K- and MATH-style); point it at your data with ``path`` (JSONL),
    ``rows`` (dicts) or ``hf_name`` (a Hugging Face dataset; needs the ``hf`` extra).

    ## Prompt format
    The question, plus the answer format's instruction.

    ## Answer format
    ``\\boxed{}`` by default. Golds may be stored as GSM8K solutions (``... #### 72``) or MATH
    boxed solutions: they are reduced to the answer first.

    ## Reward
    1.0 if `verifiers.math` judges the answer equal to the gold, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``path``, ``rows``, ``hf_name``, ``hf_config``, ``hf_split``; ``question_key``
    (default "question"), ``answer_key`` (default "answer"); ``eval_fraction`` (default 0.2:
    a stable partition into train/eval by question; 0 puts every row in both).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = MathDataset()
        >>> prompt, info = env.reset(seed=0)
        >>> env.task.metadata["source"] in ("gsm8k-style", "math-style")
        True
    """

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        rows: Iterable[Mapping[str, Any]] | None = None,
        hf_name: str | None = None,
        hf_config: str | None = None,
        hf_split: str = "train",
        question_key: str = "question",
        answer_key: str = "answer",
        eval_fraction: float = 0.2,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        loaded = load_rows(
            path=path,
            rows=rows,
            hf_name=hf_name,
            hf_config=hf_config,
            hf_split=hf_split,
            default="math_sample.jsonl",
            required=(question_key, answer_key),
        )
        self.rows = split_rows(loaded, self.split, question_key, eval_fraction)
        self.question_key, self.answer_key = question_key, answer_key

    def make_task(self, rng: random.Random) -> Task:
        row = self.rows[rng.randrange(len(self.rows))]
        question, answer = str(row[self.question_key]), str(row[self.answer_key])
        extra = {k: v for k, v in row.items() if k not in (self.question_key, self.answer_key)}
        return Task(
            task_id=f"mathdata-{stable_digest(question)[:12]}",
            prompt=question,
            answer=answer,
            metadata={k: v for k, v in extra.items() if isinstance(v, (str, int, float, bool))},
        )

    def reference_answer(self, task: Task) -> str:
        from verifiers.math import reduce_gold

        return reduce_gold(str(task.answer))
