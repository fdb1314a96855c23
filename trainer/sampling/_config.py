"""`SamplingConfig`: which groups a step trains on and how rewards are shaped — one typed, frozen
part of `trainer.config.GRPOConfig` (its ``sampling`` field, the ``[sampling]`` table of a TOML
file, the ``--sampling-*`` flags)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from dataclasses import dataclass, field, fields
from typing import Any

from trainer.errors import TrainerError, reject_unknown_keys

__all__ = ["SamplingConfig"]


def _f(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class SamplingConfig:
    """Dynamic sampling (DAPO): keep the groups whose verdicts differ, refill until the step has
    ``prompts_per_step`` of them; and DAPO's soft overlong punishment, a reward part ``overlong``.

    Examples:
        >>> SamplingConfig(dynamic=True).max_rounds
        4
        >>> SamplingConfig.from_dict({"overlong": True, "overlong_buffer": 8}).overlong_lengths(64)
        (64, 8)
        >>> SamplingConfig().overlong_lengths(100)  # L_max = max_new_tokens, L_cache = a fifth of it
        (100, 20)
    """

    dynamic: bool = _f(
        False,
        "keep only groups whose verdicts (rewards before any shaping) differ, and sample more groups until "
        "the step has prompts_per_step of them",
    )
    max_rounds: int = _f(
        4, "dynamic: sampling rounds per step, the first included; then the step trains on what it has"
    )
    tolerance: float = _f(
        1e-6, "dynamic: a group whose judged rewards span no more than this is constant (continuous rewards too)"
    )
    overlong: bool = _f(
        False,
        "DAPO's soft overlong punishment as reward part 'overlong': 0 up to overlong_max - overlong_buffer "
        "generated tokens, then linear down to -1 at overlong_max, -1 beyond",
    )
    overlong_max: int = _f(0, "overlong: L_max in generated tokens (0: max_new_tokens)")
    overlong_buffer: int = _f(0, "overlong: L_cache, the length of the penalty's ramp (0: a fifth of L_max)")
    curriculum: bool = _f(
        False, "roll out at the env's difficulty level (its `levels`), raised and lowered by the recent correct rate"
    )
    level_up: float = _f(0.8, "curriculum: a full window's mean correct rate at or above this raises the level")
    level_down: float = _f(0.2, "curriculum: a full window's mean correct rate below this lowers the level")
    level_window: int = _f(5, "curriculum: the steps whose correct rates are averaged")
    start_level: int = _f(0, "curriculum: the level of the first step (0: the easiest)")
    pass_rate_filter: bool = _f(
        False,
        "stop sampling tasks (by task id) whose last pass rate was at or above skip_above or at or below skip_below",
    )
    skip_above: float = _f(1.0, "pass_rate_filter: a task solved this often is skipped (always solved)")
    skip_below: float = _f(0.0, "pass_rate_filter: a task solved this rarely is skipped (never solved)")
    revisit_after: int = _f(20, "pass_rate_filter: steps after which a skipped task is sampled again")

    def __post_init__(self) -> None:
        checks = [
            (self.max_rounds >= 1, f"max_rounds must be >= 1, got {self.max_rounds!r}"),
            (self.tolerance >= 0, f"tolerance must be >= 0, got {self.tolerance!r}"),
            (self.overlong_max >= 0, f"overlong_max must be >= 0 (0: max_new_tokens), got {self.overlong_max!r}"),
            (self.overlong_buffer >= 0, f"overlong_buffer must be >= 0 (0: a fifth), got {self.overlong_buffer!r}"),
            (0 <= self.level_down <= self.level_up <= 1, "level_down and level_up must be in [0, 1], down <= up"),
            (self.level_window >= 1 and self.start_level >= 0, "level_window must be >= 1 and start_level >= 0"),
            (0 <= self.skip_below < self.skip_above <= 1, "skip_below and skip_above must be in [0, 1], below < above"),
            (self.revisit_after >= 1, f"revisit_after must be >= 1, got {self.revisit_after!r}"),
        ]
        for ok, message in checks:
            if not ok:
                raise TrainerError(f"GRPOConfig: sampling: {message}")

    def overlong_lengths(self, max_new_tokens: int) -> tuple[int, int]:
        """``(L_max, L_cache)``, the defaults filled in from ``max_new_tokens``."""
        top = self.overlong_max or max_new_tokens
        return top, min(self.overlong_buffer or max(1, top // 5), top)

    @classmethod
    def from_dict(cls, table: dict[str, Any]) -> SamplingConfig:
        """From a ``[sampling]`` table or JSON object; an unknown key fails in one line."""
        reject_unknown_keys("sampling", table, [f.name for f in fields(cls)])
        return cls(**{k: _read(cls, k, v) for k, v in table.items()})

    def replace(self, **changes: Any) -> SamplingConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def add_flags(cls, parser: argparse.ArgumentParser, only: tuple[str, ...] = ()) -> None:
        """One ``--sampling-KEY`` flag per setting (``--sampling-max-rounds 8``); ``only``: these settings."""
        for f in fields(cls):
            if only and f.name not in only:
                continue
            text = f"sampling: {f.metadata['help']} (default: {f.default!r})".replace("%", "%%")
            kind = "BOOL" if isinstance(f.default, bool) else "N" if isinstance(f.default, int) else "X"
            parser.add_argument(
                "--sampling-" + f.name.replace("_", "-"), dest=f"sampling_{f.name}", metavar=kind, help=text
            )

    @classmethod
    def flag_settings(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The ``--sampling-*`` flags that were given, as a table."""
        return {
            f.name: getattr(args, f"sampling_{f.name}")
            for f in fields(cls)
            if getattr(args, f"sampling_{f.name}", None) is not None
        }


def _read(cls: type[SamplingConfig], name: str, value: Any) -> Any:
    """``value`` (a string from a flag, or a TOML value) read as setting ``name``'s type."""
    default: Any = next(f.default for f in fields(cls) if f.name == name)
    if not isinstance(value, str):
        return value
    try:
        if isinstance(default, bool):
            if value.lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                raise ValueError("not true or false")
            return value.lower() in ("1", "true", "yes", "on")
        return type(default)(json.loads(value))
    except ValueError as exc:
        raise TrainerError(f"GRPOConfig: sampling: {name}: cannot read {value!r} ({exc})") from None
