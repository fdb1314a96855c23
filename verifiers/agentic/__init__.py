"""Agentic tasks in the Harbor format: a task folder is a task.

`read_task` reads a Harbor folder (``instruction.md``, ``task.toml``, ``environment/``,
``tests/test.sh``, ``solution/solve.sh``) into an `AgenticTask`; `write_task` writes one out (a
task defined in Python becomes a Harbor folder); `load_tasks` and `split_tasks` make a train and
an eval set of a folder of them; `build_task_image` builds a task's image once (cached by a
digest of its build context, base images mapped to local ones, no network).
`verdict_from_files` turns what the tests left in ``/logs/verifier`` (``reward.txt`` /
``reward.json``, the runner's ``junit.xml``) into a `VerifyResult`: a
missing or malformed reward is a masked error with its reason. `verify_separate` verifies the state
an agent left in a `verifiers.sandbox.Session`: its declared artifacts, in a fresh verifier
container (the call a terminal env makes after the agent's turn); `verify_shared` verifies a
shared-mode task in the agent's own container once its processes are stopped, and `verify_task`
picks the task's mode. `task_session` opens the session an agent works in for a task (the image's
working folder writable and filled; ``warm=G`` takes it from a warm pool of the task's image that
`prestart_task_sessions` fills ahead). `check_task` (``grpo-envs tasks check``) requires the
reference solution to score 1 and no action to score 0. `EpisodeLog` keeps the commands of one
episode (command, exit code, seconds, output size), `write_jsonl` writes them as JSON lines.
`shipped_tasks_dir` is the folder of the tasks shipped with the package (`shipped_tasks` reads them).

Examples:
    >>> from verifiers.agentic import verdict_from_files
    >>> verdict_from_files(b"0.5", b'{"reward": 0.5}').reward
    0.5
"""

from __future__ import annotations

from verifiers.agentic._base import build_task_base_image
from verifiers.agentic._check import TaskCheck, check_task
from verifiers.agentic._harbor import load_tasks, read_task, split_tasks, write_task
from verifiers.agentic._image import TASK_IMAGE_REPOSITORY, build_task_image
from verifiers.agentic._log import CommandRecord, EpisodeLog, write_jsonl
from verifiers.agentic._session import image_workdir, prestart_task_sessions, task_session
from verifiers.agentic._shared import verify_shared
from verifiers.agentic._shipped import shipped_tasks, shipped_tasks_dir
from verifiers.agentic._task import AgenticTask, Environment, Limits, Verifier
from verifiers.agentic._verdict import junit_outcomes, verdict_from_files
from verifiers.agentic._verify import verify_separate, verify_task

__all__ = [
    "TASK_IMAGE_REPOSITORY",
    "AgenticTask",
    "CommandRecord",
    "EpisodeLog",
    "TaskCheck",
    "Environment",
    "Limits",
    "Verifier",
    "build_task_base_image",
    "build_task_image",
    "check_task",
    "image_workdir",
    "junit_outcomes",
    "load_tasks",
    "prestart_task_sessions",
    "read_task",
    "shipped_tasks",
    "shipped_tasks_dir",
    "split_tasks",
    "task_session",
    "verdict_from_files",
    "verify_separate",
    "verify_shared",
    "verify_task",
    "write_jsonl",
    "write_task",
]
