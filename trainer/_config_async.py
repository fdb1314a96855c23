"""`AsyncConfig`: the asynchronous rollouts' settings — one typed, frozen part of
`trainer.config.GRPOConfig` (its ``asynchronous`` field), spelled in files and flags as users know
them: ``async_level``, ``async_workers``, ``async_schedule``, ``async_workers_on`` (``--async-level``...).
Each setting is checked here, once: alone when the part is made, against the generator and the
verifier's executor by `AsyncConfig.check` (what depends on the env or the model: `trainer.workers._async`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from trainer.errors import TrainerError

__all__ = ["ASYNC_SCHEDULES", "AsyncConfig"]

ASYNC_SCHEDULES = ("exact", "latest")
WHERE = ("local", "ray")
PREFIX = "async_"
"""A setting's key in a file, an override or a flag: ``async_`` + its name (``level`` -> ``async_level``)."""
LATEST_ONLY = (
    'async_schedule = "latest" runs on local transformers workers: set async_workers_on = "local", generator = "hf"'
)
RAY_HF_ONLY = 'async_workers_on = "ray" runs transformers in its actors: generator = "hf" (vLLM workers run locally)'


def _f(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class AsyncConfig:
    """Rollout workers that sample the next batches while the learner trains (docs/async.md).

    Examples:
        >>> AsyncConfig(level=1).to_dict()
        {'async_level': 1, 'async_workers': 1, 'async_schedule': 'exact', 'async_workers_on': 'local'}
        >>> AsyncConfig.from_dict({"async_level": 2}).level
        2
    """

    level: int = _f(
        0,
        "k: the batch of step t (from 0) is sampled by rollout worker processes from the weights after max(0, t-k) "
        "updates, while the learner trains; 0: generate then train, in this process",
    )
    workers: int = _f(1, "async_level > 0: rollout worker processes (cores are split evenly with the learner)")
    schedule: str = _f(
        "exact",
        'async_level > 0: "exact" (the batch of step t from the weights after max(0, t-k) updates: a run repeats and '
        'resumes bit for bit) or "latest" (the newest weights a worker has when it starts the batch, never older: '
        "fresher batches, but they depend on timing; local transformers workers only)",
    )
    workers_on: str = _f(
        "local",
        'async_level > 0: where the rollout workers run: "local" (processes on this machine) or "ray" (actors on '
        "RAY_ADDRESS's cluster, else a new local one; pip install 'grpo-envs[ray]')",
    )

    def __post_init__(self) -> None:
        checks = [
            (self.level >= 0, f"async_level must be >= 0 (0: no rollout workers), got {self.level!r}"),
            (self.workers >= 1, f"async_workers must be >= 1, got {self.workers!r}"),
            (self.workers_on in WHERE, f"async_workers_on must be one of {', '.join(WHERE)}"),
            (self.schedule in ASYNC_SCHEDULES, f"async_schedule must be exact or latest, got {self.schedule!r}"),
        ]
        _raise_first(checks)

    def check(self, *, generator: str, verifier_executor: str) -> None:
        """The settings against the rest of the config: what rollout workers do not run with."""
        judged_here = 'rollout workers judge in their own process: use verifier_executor = "local"'
        _raise_first(
            [
                (self.schedule != "latest" or (self.workers_on, generator) == ("local", "hf"), LATEST_ONLY),
                (self.workers_on != "ray" or generator == "hf", RAY_HF_ONLY),
                (
                    self.level == 0 or verifier_executor == "local",
                    f"async_level = {self.level}: {judged_here}, or set async_level = 0",
                ),
            ]
        )

    @classmethod
    def keys(cls) -> dict[str, dataclasses.Field[Any]]:
        """Each setting by its key in files and flags: ``{"async_level": <field level>, ...}``."""
        return {PREFIX + f.name: f for f in fields(cls)}

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> AsyncConfig:
        """From the ``async_*`` keys of a config table (other keys are not looked at)."""
        return cls(**{f.name: table[key] for key, f in cls.keys().items() if key in table})

    def to_dict(self) -> dict[str, Any]:
        """The settings by their keys in files and flags (what `from_dict` reads)."""
        return {key: getattr(self, f.name) for key, f in self.keys().items()}

    def replace(self, **changes: Any) -> AsyncConfig:
        return dataclasses.replace(self, **changes)


def _raise_first(checks: list[tuple[bool, str]]) -> None:
    for ok, message in checks:
        if not ok:
            raise TrainerError(f"GRPOConfig: {message}")
