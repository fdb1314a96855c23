"""The asynchronous rollouts' settings, checked (`trainer.config.GRPOConfig` reads them from here)."""

from __future__ import annotations

from typing import Any

__all__ = ["ASYNC_SCHEDULES", "ASYNC_SCHEDULE_HELP", "async_checks"]

ASYNC_SCHEDULES = ("exact", "latest")
ASYNC_SCHEDULE_HELP = (
    'async_level > 0: "exact" (the batch of step t from the weights after max(0, t-k) updates: a run repeats and '
    'resumes bit for bit) or "latest" (the newest weights a worker has when it starts the batch, never older: '
    "fresher batches, but they depend on timing; local transformers workers only)"
)
LATEST_ONLY = (
    'async_schedule = "latest" runs on local transformers workers: set async_workers_on = "local", generator = "hf"'
)

RAY_HF_ONLY = 'async_workers_on = "ray" runs transformers in its actors: generator = "hf" (vLLM workers run locally)'


def async_checks(cfg: Any) -> list[tuple[bool, str]]:
    """(holds, the one line that says what to do when it does not) for each async setting.

    Examples:
        >>> from trainer.config import GRPOConfig
        >>> [why for ok, why in async_checks(GRPOConfig()) if not ok]
        []
    """
    return [
        (cfg.async_level >= 0, f"async_level must be >= 0 (0: no rollout workers), got {cfg.async_level!r}"),
        (cfg.async_workers >= 1, f"async_workers must be >= 1, got {cfg.async_workers!r}"),
        (cfg.async_workers_on in ("local", "ray"), "async_workers_on must be one of local, ray"),
        (cfg.async_schedule in ASYNC_SCHEDULES, f"async_schedule must be exact or latest, got {cfg.async_schedule!r}"),
        (cfg.async_schedule != "latest" or (cfg.async_workers_on, cfg.generator) == ("local", "hf"), LATEST_ONLY),
        (cfg.async_workers_on != "ray" or cfg.generator == "hf", RAY_HF_ONLY),
    ]
