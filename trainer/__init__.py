"""GRPO on torch + transformers (needs the ``train`` extra: ``pip install 'grpo-envs[train]'``).

The math lives in small pure functions (`group_advantages`, `grpo_loss`, `pass_at_k`); the
loop in `GRPOTrainer` only wires them.

Example:
    >>> import trainer
    >>> trainer.group_advantages([[1.0, 0.0, 0.0, 1.0]])
    tensor([[ 0.8660, -0.8660, -0.8660,  0.8660]])
"""

from __future__ import annotations

from trainer._math import group_advantages, grpo_loss, pass_at_k
from trainer.config import GRPOConfig, load_config
from trainer.errors import TrainerError
from trainer.grpo import GRPOTrainer

__all__ = ["GRPOConfig", "GRPOTrainer", "TrainerError", "group_advantages", "grpo_loss", "load_config", "pass_at_k"]
