"""grpo-envs: reasoning tasks as Gymnasium environments with verifiable rewards.

Importing this package is cheap: it imports neither torch nor docker.

Example:
    >>> import grpo_envs
    >>> grpo_envs.__version__
    '0.1.0'
"""

from __future__ import annotations

from grpo_envs.errors import GrpoEnvsError, SetupError

__version__ = "0.1.0"

__all__ = ["GrpoEnvsError", "SetupError", "__version__"]
