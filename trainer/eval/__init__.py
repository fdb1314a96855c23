"""Evaluating a model on an environment (``grpo-envs eval``): `evaluate` samples and judges on
transformers, vLLM or an OpenAI-compatible server (the trainer's `Generator` seam: same prompts,
same chat template, same multi-turn loop), writes ``samples.jsonl`` and ``summary.json`` and
resumes (`trainer.audit` re-judges them with a second opinion); pass@k, maj@k and their 95%
intervals are pure functions (`summarize`).

Owns the evaluation run and its metrics; generation and judging are the trainer's `Generator`
and the env's `Judgement`.

Examples:
    >>> from trainer.eval import Sample, summarize
    >>> s = summarize([Sample("t1", True, "correct", "4"), Sample("t1", False, "incorrect", "5")], ks=[1, 2])
    >>> s["pass@1"]["value"], s["pass@2"]["value"], s["maj@2"]["value"]
    (0.5, 1.0, 1.0)
"""

from __future__ import annotations

from trainer.eval._cli import compare
from trainer.eval._metrics import (
    Sample,
    bootstrap_interval,
    maj_at_k,
    majority_correct,
    pass_at_k_over_tasks,
    summarize,
)
from trainer.eval._run import evaluate, table

__all__ = [
    "Sample",
    "bootstrap_interval",
    "compare",
    "evaluate",
    "maj_at_k",
    "majority_correct",
    "pass_at_k_over_tasks",
    "summarize",
    "table",
]
