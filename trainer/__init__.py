"""GRPO on torch + transformers (needs the ``train`` extra: ``pip install 'grpo-envs[train]'``).

The trainer itself arrives with its own issue; for now the package holds its error types.

Example:
    >>> import trainer
    >>> issubclass(trainer.TrainerError, Exception)
    True
"""

from __future__ import annotations

from trainer.errors import TrainerError

__all__ = ["TrainerError"]
