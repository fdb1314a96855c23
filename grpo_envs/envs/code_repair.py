"""CodeRepair: fix a buggy program; failing visible tests are fed back, hidden tests decide."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from grpo_envs._data import load_rows, split_rows
from grpo_envs._env import ReasoningEnv
from grpo_envs._formats import CODE
from grpo_envs._task import Task, stable_digest, thaw
from grpo_envs._verifier import Verifier, code_verifier
from verifiers import VerifyResult

__all__ = ["CodeRepair"]

_SHOWN = 600  # characters of input/output shown per failing test


class CodeRepair(ReasoningEnv):
    """Multi-turn repair of a buggy stdin/stdout program.

    ## Task
    A problem statement, a buggy program, public tests and private tests (a sample set
    written for this package ships with it; pass ``path`` or ``rows`` for your data: rows with
    ``prompt``, ``buggy_code``, ``public_tests``, ``private_tests``, optional ``solution``).

    ## Prompt format
    The statement and the buggy program; each later observation shows the first failing
    *public* test (input, expected output, the program's output or error).

    ## Answer format
    The corrected program in a fenced Python block.

    ## Reward
    Judged on the *private* tests only, which are never shown: a program that prints the
    expected outputs it was shown earns nothing. Fraction of private tests passed
    (``partial_credit=False``: all or nothing); ``correct`` when all pass.

    ## Episode end
    Terminated when the private tests pass; truncated after ``max_turns`` (default 3).

    ## Arguments
    ``path``, ``rows``, ``eval_fraction``, ``sandbox``, ``timeout_s``, ``partial_credit``,
    ``max_turns``.

    ## Version history
    v0: initial version.

    Examples:
        >>> env = CodeRepair()
        >>> "```python" in env.reset(seed=0)[0]
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
        kwargs.setdefault("max_turns", 3)
        kwargs.setdefault(
            "verifier",
            code_verifier(sandbox=sandbox, timeout_s=timeout_s, partial_credit=partial_credit),
        )
        super().__init__(**kwargs)
        self.sandbox, self.timeout_s = sandbox, timeout_s
        required = ("prompt", "buggy_code", "public_tests", "private_tests")
        loaded = load_rows(path=path, rows=rows, default="code_repair_sample.jsonl", required=required)
        self.rows = split_rows(loaded, self.split, "prompt", eval_fraction)

    def default_verifier(self) -> Verifier:
        return code_verifier()

    def make_task(self, rng: random.Random) -> Task:
        row = self.rows[rng.randrange(len(self.rows))]
        prompt = (
            f"{row['prompt']}\n\nThis program has a bug:\n\n```python\n{row['buggy_code'].rstrip()}\n```\n\n"
            "Fix it and give the whole corrected program."
        )
        return Task(
            task_id=f"repair-{row.get('id') or stable_digest(row['prompt'])[:12]}",
            prompt=prompt,
            answer=row["private_tests"],  # the reward; never shown
            metadata={"public_tests": row["public_tests"]},
            solution=row.get("solution"),
        )

    def feedback(self, task: Task, completion: str, result: VerifyResult) -> str | None:
        """The first failing public test, or a note that hidden tests fail."""
        from verifiers import code as vc
        from verifiers.sandbox import default_sandbox

        program = vc.extract_code(completion)
        if program is None:
            return "No Python code block was found. Give the whole corrected program in one ```python block."
        box = self.sandbox or default_sandbox()
        for k, case in enumerate(thaw(task.metadata["public_tests"])["stdin_stdout"], 1):
            run = box.run(program, stdin=case["input"], timeout_s=self.timeout_s)
            if run.error is not None:
                return f"The tests could not run ({run.error}). Try again."
            if run.timed_out:
                got = f"(no result: over {self.timeout_s:g} s)"
            elif run.exit_code != 0:
                got = f"(exit status {run.exit_code})\n{run.stderr[-_SHOWN:]}"
            elif vc.first_difference(case["output"], run.stdout) is not None:
                got = run.stdout[:_SHOWN]
            else:
                continue
            return (
                f"Visible test {k} failed.\nInput:\n{case['input'][:_SHOWN]}\n"
                f"Expected output:\n{case['output'][:_SHOWN]}\nYour output:\n{got}\n"
                "Fix the program and give the whole corrected program."
            )
        return "Your program passes the visible tests but fails hidden tests. Check edge cases and try again."
