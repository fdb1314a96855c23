"""The agentic tasks shipped with the package (Harbor folders under ``verifiers/agentic/tasks``).

Written here and licensed as the package (Apache-2.0); each passes ``grpo-envs tasks check``
offline in separate mode (its reference solution scores 1, no action 0). Their images build
``FROM grpo-envs-task-base``: map that name to `build_task_base_image` (or, with a registry, to
any image with bash, coreutils, python3 and pytest).
"""

from __future__ import annotations

from pathlib import Path

from verifiers.agentic._harbor import load_tasks
from verifiers.agentic._task import AgenticTask

__all__ = ["shipped_tasks", "shipped_tasks_dir"]


def shipped_tasks_dir() -> Path:
    """The folder holding the shipped task folders (one per task; its README lists them).

    Examples:
        >>> (shipped_tasks_dir() / "README.md").is_file()
        True
    """
    return Path(__file__).with_name("tasks")


def shipped_tasks() -> list[AgenticTask]:
    """Every shipped task, read (`load_tasks` of `shipped_tasks_dir`), by name.

    Examples:
        >>> len(shipped_tasks()) >= 12
        True
    """
    return load_tasks(shipped_tasks_dir())
