"""CodeTests: write a program; judged by unit tests run in the Docker sandbox."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from grpo_envs._data import load_rows, split_rows
from grpo_envs._env import ReasoningEnv
from grpo_envs._formats import CODE
from grpo_envs._task import Task, stable_digest
from grpo_envs._verifier import Verifier, code_verifier

__all__ = ["CodeTests"]


class CodeTests(ReasoningEnv):
    """Programming problems with unit tests, judged by `verifiers.code` inside Docker.

    ## Task
    A row with a ``prompt`` and ``tests`` in any shape `verifiers.code` accepts (stdin/stdout,
    function calls, asserts), optionally a reference ``solution``. A sample set written for
    this package ships with it; pass ``path`` (JSONL) or ``rows`` for your data (rows of
    HumanEval/MBPP/LiveCodeBench/TACO: convert with ``verifiers.code.tests_from_row``).

    ## Prompt format
    The problem statement, plus "Write your solution in Python inside one ```python block."

    ## Answer format
    The last fenced Python block of the completion (else the whole completion).

    ## Reward
    The fraction of tests passed (``partial_credit=False``: 1.0 only when all pass);
    ``correct`` means all passed. A sandbox failure is status "error" with reward 0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``path``, ``rows``, ``eval_fraction`` (default 0.2), ``sandbox`` (default: the process-wide
    pool, started on the first step, not at construction), ``timeout_s`` per test (default 5),
    ``partial_credit`` (default True).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = CodeTests()  # no container starts until a step is judged
        >>> env.reset(seed=0)[1]["task_id"].startswith("code-")
        True
    """

    default_format = CODE

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        rows: Iterable[Mapping[str, Any]] | None = None,
        eval_fraction: float = 0.2,
        sandbox: Any = None,
        timeout_s: float = 5.0,
        partial_credit: bool = True,
        **kwargs: Any,
    ):
        kwargs.setdefault(
            "verifier",
            code_verifier(sandbox=sandbox, timeout_s=timeout_s, partial_credit=partial_credit),
        )
        super().__init__(**kwargs)
        loaded = load_rows(path=path, rows=rows, default="code_sample.jsonl", required=("prompt", "tests"))
        self.rows = split_rows(loaded, self.split, "prompt", eval_fraction)

    def make_task(self, rng: random.Random) -> Task:
        row = self.rows[rng.randrange(len(self.rows))]
        return Task(
            task_id=f"code-{row.get('id') or stable_digest(row['prompt'])[:12]}",
            prompt=str(row["prompt"]),
            answer=row["tests"],
            solution=row.get("solution"),
        )

    def default_verifier(self) -> Verifier:
        return code_verifier()
