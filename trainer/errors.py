"""Exceptions raised by `trainer`.

TrainerError
"""

from __future__ import annotations

__all__ = ["TrainerError"]


class TrainerError(Exception):
    """Base class of every exception raised by `trainer`."""
