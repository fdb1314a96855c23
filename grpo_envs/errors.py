"""Exceptions raised by `grpo_envs`.

GrpoEnvsError
 ├── SetupError       the machine lacks something the SDK needs (see `grpo-envs doctor`)
 ├── EnvConfigError   an environment was made with a bad argument (also a ValueError)
 └── EnvCheckError    an environment broke one or more laws (`check_env`)
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["EnvCheckError", "EnvConfigError", "GrpoEnvsError", "SetupError"]


class GrpoEnvsError(Exception):
    """Base class of every exception raised by `grpo_envs`."""


class SetupError(GrpoEnvsError):
    """The machine lacks something the SDK needs; the message says how to fix it."""


class EnvCheckError(GrpoEnvsError):
    """An environment broke one or more laws; the message lists them."""


class EnvConfigError(GrpoEnvsError, ValueError):
    """An environment was made with a bad argument: the message names the argument, what it
    accepts and what it got.

    Examples:
        >>> str(EnvConfigError("Arithmetic", "difficulty", "1, 2 or 3", 7))
        'Arithmetic: difficulty must be 1, 2 or 3, got 7'
    """

    def __init__(self, env: str, field: str, allowed: str | Iterable[object], value: object) -> None:
        accepted = allowed if isinstance(allowed, str) else ", ".join(map(repr, allowed))
        super().__init__(f"{env}: {field} must be {accepted}, got {value!r}")
        self.env, self.field, self.value = env, field, value
