"""`task_session`: the session an agent works in for one task (what check, attack and envs open).

The task's image, its memory and agent time limit, the agent's user (``[agent] user = "root"``:
uid 0 without capabilities; anything else: the session's unprivileged uid), and a session's
lockdown (no network, read-only root, tmpfs ``/work`` and ``/tmp``).

The task's working folder (``[environment] workdir``, else the image's ``WORKDIR``: Terminal-Bench's
``/app``, or ``/work``) is writable (a tmpfs of the session user, counted in the memory limit:
``Session(writable=...)``) and holds the files the image put there (extracted by the session user,
so the agent owns and may edit them; modes kept); the shell starts in it.

A shared-mode task's session also has ``/tests`` and ``/logs`` as empty root-owned tmpfs mount
points (mode 0755): the root file system is read-only, so the tests can only be put there, after
the agent's turn (see `verify_shared`). They are mount points, so the agent cannot replace them
with a link.
"""

from __future__ import annotations

import io
import tarfile
import threading
import uuid
from typing import Any

from verifiers.agentic._task import AgenticTask
from verifiers.errors import SandboxError
from verifiers.sandbox import Session, engine_client
from verifiers.sandbox._host.session import SessionLockdown, start_container

__all__ = ["SHARED_MOUNTS", "image_workdir", "task_session"]

SHARED_MOUNTS = ("/tests", "/logs")
_MOUNT_MB = 64
SESSION_DIRS = ("/work", "/tmp")  # writable in every session
TREE_CAP = 16 * 2**20  # bytes of a working folder copied into a session
_trees: dict[tuple[str, str], bytes] = {}  # (image id, folder) -> its files, as a tar relative to it
_lock = threading.Lock()


class _SharedLockdown(SessionLockdown):
    """A session's lockdown with `SHARED_MOUNTS` as root-owned tmpfs mount points."""

    def create_kwargs(self, job_uid: int, tester_uid: int) -> dict[str, Any]:
        kwargs = super().create_kwargs(job_uid, tester_uid)
        for path in SHARED_MOUNTS:
            kwargs["tmpfs"][path] = f"size={_MOUNT_MB}m,uid=0,gid=0,mode=0755"
        return kwargs


def image_workdir(image: str, *, client: Any = None) -> str:
    """The image's ``WORKDIR`` (``/work`` when it sets none)."""
    attrs = (client or engine_client()).images.get(image).attrs
    return str((attrs.get("Config") or {}).get("WorkingDir") or "/work")


def _relative(data: bytes, folder: str) -> bytes:
    """The tar Docker gives for ``folder`` (entries under its base name) with entries relative to
    it; only regular files and folders (a link in an image's working folder is left out)."""
    base = folder.rstrip("/").rsplit("/", 1)[-1]
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data)) as src, tarfile.open(fileobj=out, mode="w") as dst:
        for m in src.getmembers():
            name = m.name.split("/", 1)[1] if "/" in m.name else ""
            if m.name.split("/", 1)[0] != base or not name or not (m.isfile() or m.isdir()):
                continue
            m.name = name
            dst.addfile(m, src.extractfile(m) if m.isfile() else None)
    return out.getvalue()


def _image_tree(client: Any, image: str, folder: str) -> bytes:
    """The files the image holds under ``folder`` (cached per image id); empty when none."""
    import docker.errors

    key = (client.images.get(image).id, folder)
    with _lock:
        if key in _trees:
            return _trees[key]
    container = client.containers.create(image, ["true"], entrypoint=[], network_disabled=True)
    try:
        stream, _ = container.get_archive(folder)
        tree = _relative(b"".join(stream), folder)
    except docker.errors.NotFound:
        tree = b""
    finally:
        container.remove(force=True)
    if len(tree) > TREE_CAP:
        raise SandboxError(f"{image}: {folder} holds over {TREE_CAP >> 20} MiB; keep large data elsewhere")
    with _lock:
        _trees[key] = tree
    return tree


def _start(task: AgenticTask, image: str, client: Any, options: dict[str, Any]) -> Session:
    """The session itself: a plain one, or with `SHARED_MOUNTS` for a shared-mode task."""
    if task.verifier.mode != "shared":
        return Session(image=image, client=client, **options)
    lockdown_keys = ("memory_mb", "cpus", "pids_limit", "work_mb", "tmp_mb", "writable")
    defaults: dict[str, Any] = {"pids_limit": 128, "work_mb": 256, "tmp_mb": 64, "writable": ()}
    settings: dict[str, Any] = {k: options.get(k, defaults.get(k)) for k in lockdown_keys}
    lockdown = _SharedLockdown(root=options["root"], **settings)
    container = start_container(client, image, lockdown, f"session-{uuid.uuid4().hex[:12]}")
    return Session(container=container, **{k: v for k, v in options.items() if k not in lockdown_keys[2:]})


def task_session(task: AgenticTask, image: str, *, client: Any = None, **session_kwargs: Any) -> Session:
    """A started `Session` of ``image`` (the task's, from `build_task_image`) for an agent working
    on ``task`` (see the module's docstring); ``session_kwargs`` go to `Session` (``pids_limit``,
    ``work_mb``, ...).

    Raises:
        SandboxError: the session could not start or the working folder could not be filled.

    Examples:
        >>> with task_session(task, build_task_image(task)) as s:  # doctest: +SKIP
        ...     s.exec("pwd; ls").stdout
        '/app\\nmain.py\\n'
    """
    client = client or engine_client()
    workdir = task.environment.workdir or image_workdir(image, client=client)
    tree = _image_tree(client, image, workdir)
    options: dict[str, Any] = {
        "root": task.agent_user == "root",
        "memory_mb": task.limits.memory_mb,
        "timeout_s": task.limits.agent_timeout_s,
        "cpus": task.limits.cpus,
    }
    if workdir not in SESSION_DIRS:
        options["writable"] = (workdir,)
    session = _start(task, image, client, {**options, **session_kwargs})
    try:
        quoted = "'" + workdir.replace("'", "'\\''") + "'"
        if tree:
            r = session.exec(f"/bin/tar -xpf - -C {quoted} --no-same-owner", stdin=tree, timeout_s=60)
            if r.error or r.exit_code != 0:
                raise SandboxError(f"{workdir} could not be filled from {image}: {r.error or r.stderr.strip()}")
        session.exec(f"cd {quoted}")
    except BaseException:
        session.close()
        raise
    return session
