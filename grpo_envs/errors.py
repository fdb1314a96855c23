"""Exceptions raised by :mod:`grpo_envs`.

GrpoEnvsError
 └── SetupError      the machine lacks something the SDK needs (see `grpo-envs doctor`)
"""

from __future__ import annotations

__all__ = ["GrpoEnvsError", "SetupError"]


class GrpoEnvsError(Exception):
    """Base class of every exception raised by :mod:`grpo_envs`."""


class SetupError(GrpoEnvsError):
    """The machine lacks something the SDK needs; the message says how to fix it."""
