"""Evaluating a model on an environment: pass@k, maj@k and their intervals (the metrics slice of
``grpo-envs eval``; the command and its generation backends build on it).

Example:
    >>> from trainer.eval import Sample, summarize
    >>> s = summarize([Sample("t1", True, "correct", "4"), Sample("t1", False, "incorrect", "5")], ks=[1, 2])
    >>> s["pass@1"]["value"], s["pass@2"]["value"], s["maj@2"]["value"]
    (0.5, 1.0, 1.0)
"""

from __future__ import annotations

from trainer.eval._metrics import (
    Sample,
    bootstrap_interval,
    maj_at_k,
    majority_correct,
    pass_at_k_over_tasks,
    summarize,
)

__all__ = ["Sample", "bootstrap_interval", "maj_at_k", "majority_correct", "pass_at_k_over_tasks", "summarize"]
