"""`task_session`: the session an agent works in for one task (what check, attack and envs open).

The task's image, its memory and agent time limit, the agent's user (``[agent] user = "root"``:
uid 0 without capabilities; anything else: the session's unprivileged uid), and a session's
lockdown (no network, read-only root, tmpfs ``/work`` and ``/tmp``). A shared-mode task's
session also has ``/tests`` and ``/logs`` as empty root-owned tmpfs mount points (mode 0755):
the root file system is read-only, so the tests can only be put there, after the agent's turn
(see `judge_shared`). They are mount points, so the agent cannot replace them with a link.
"""

from __future__ import annotations

import uuid
from typing import Any

from verifiers.agentic._task import AgenticTask
from verifiers.sandbox import Session, engine_client
from verifiers.sandbox._host.session import SessionLockdown, start_container

__all__ = ["SHARED_MOUNTS", "task_session"]

SHARED_MOUNTS = ("/tests", "/logs")
_MOUNT_MB = 64


class _SharedLockdown(SessionLockdown):
    """A session's lockdown with `SHARED_MOUNTS` as root-owned tmpfs mount points."""

    def create_kwargs(self, job_uid: int, judge_uid: int) -> dict[str, Any]:
        kwargs = super().create_kwargs(job_uid, judge_uid)
        for path in SHARED_MOUNTS:
            kwargs["tmpfs"][path] = f"size={_MOUNT_MB}m,uid=0,gid=0,mode=0755"
        return kwargs


def task_session(task: AgenticTask, image: str, *, client: Any = None, **session_kwargs: Any) -> Session:
    """A started `Session` of ``image`` for an agent working on ``task`` (see the module's docstring);
    ``session_kwargs`` go to `Session` (``pids_limit``, ``work_mb``, ...).

    Examples:
        >>> with task_session(task, build_task_image(task)) as s:  # doctest: +SKIP
        ...     s.exec("ls /work")
    """
    options: dict[str, Any] = {
        "root": task.agent_user == "root",
        "memory_mb": task.limits.memory_mb,
        "timeout_s": task.limits.agent_timeout_s,
        "cpus": task.limits.cpus,
        **session_kwargs,
    }
    if task.verifier.mode != "shared":
        return Session(image=image, client=client, **options)
    lockdown_keys = ("memory_mb", "cpus", "pids_limit", "work_mb", "tmp_mb")
    defaults = {"pids_limit": 128, "work_mb": 256, "tmp_mb": 64}
    lockdown = _SharedLockdown(root=options["root"], **{k: options.get(k, defaults.get(k)) for k in lockdown_keys})
    container = start_container(client or engine_client(), image, lockdown, f"session-{uuid.uuid4().hex[:12]}")
    return Session(container=container, **{k: v for k, v in options.items() if k not in lockdown_keys[2:]})
