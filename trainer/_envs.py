"""Where the trainer's environments come from: an id, an instance or a factory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium

from trainer.errors import TrainerError

__all__ = ["env_factory"]


def env_factory(env: Any, env_kwargs: dict[str, Any]) -> Callable[..., gymnasium.Env[Any, Any]]:
    """Make envs from an id, an instance (its first use is itself) or a factory."""
    kwargs = dict(env_kwargs)
    if isinstance(env, str):
        return lambda **extra: gymnasium.make(env, **{**kwargs, **extra})
    if isinstance(env, gymnasium.Env):
        first = [env]

        def again(**extra: Any) -> gymnasium.Env[Any, Any]:
            if first and not extra:
                return first.pop()
            if env.spec is None:
                raise TrainerError("this env instance has no spec: pass an id or a factory to make more copies")
            return gymnasium.make(env.spec, **extra)

        return again
    if callable(env):
        return lambda **extra: env(**extra) if extra else env()
    raise TrainerError(f"env must be an id, an Env or a factory, got {type(env).__name__}")
