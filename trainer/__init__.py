"""GRPO on torch + transformers (needs the ``train`` extra: ``pip install 'grpo-envs[train]'``).

Owns: the run's configuration (`GRPOConfig`), generation (transformers, vLLM), rollouts, the
advantages and losses, the loop, checkpoints and distributed runs, and evaluation (`trainer.eval`).
Uses `grpo_envs` and `verifiers`; nothing imports it (see ``docs/architecture.md``).

The math lives in small pure functions (`group_advantages`, `grpo_loss`, `pass_at_k`); the
loop in `GRPOTrainer` only wires them. Importing ``trainer`` (or ``trainer.eval``) does not import
torch: each name is loaded when first used.

Examples:
    >>> import trainer
    >>> trainer.group_advantages([[1.0, 0.0, 0.0, 1.0]])
    tensor([[ 0.8660, -0.8660, -0.8660,  0.8660]])
"""

from __future__ import annotations

import importlib
import typing

from trainer.errors import TrainerError

if typing.TYPE_CHECKING:
    from trainer._metrics import pass_at_k
    from trainer.config import GRPOConfig, load_config
    from trainer.grpo import GRPOTrainer
    from trainer.losses._math import group_advantages, grpo_loss

__all__ = ["GRPOConfig", "GRPOTrainer", "TrainerError", "group_advantages", "grpo_loss", "load_config", "pass_at_k"]

_LAZY = {
    "GRPOConfig": "trainer.config",
    "load_config": "trainer.config",
    "GRPOTrainer": "trainer.grpo",
    "group_advantages": "trainer.losses._math",
    "grpo_loss": "trainer.losses._math",
    "pass_at_k": "trainer._metrics",
}


def __getattr__(name: str) -> typing.Any:
    """Load a public name on first use (PEP 562), so that ``import trainer`` stays light."""
    if name not in _LAZY:
        raise AttributeError(f"module 'trainer' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
