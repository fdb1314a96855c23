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

Warm sessions (``task_session(..., warm=G)``): a process-wide `SessionPool` per image and
lockdown keeps G such sessions started, their working folder already filled and their shell in
it, so the session of an episode is handed out in milliseconds instead of a container start
(1.5-7 s under a GRPO step's load); each is still used by one episode only.
"""

from __future__ import annotations

import io
import tarfile
import threading
import uuid
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from verifiers.agentic._task import AgenticTask
from verifiers.errors import SandboxError
from verifiers.sandbox import Session, SessionPool, engine_client
from verifiers.sandbox._host.session import SessionLockdown, start_container

__all__ = ["SHARED_MOUNTS", "WARM_IDLE_S", "image_workdir", "prestart_task_sessions", "task_session"]

SHARED_MOUNTS = ("/tests", "/logs")
_MOUNT_MB = 64
SESSION_DIRS = ("/work", "/tmp")  # writable in every session
TREE_CAP = 16 * 2**20  # bytes of a working folder copied into a session
_trees: dict[tuple[str, str], bytes] = {}  # (image id, folder) -> its files, as a tar relative to it
_lock = threading.Lock()
_pools: dict[tuple[Any, ...], SessionPool] = {}  # warm task sessions, per image and lockdown (this process's)
WARM_IDLE_S = 120.0  # a task's warm sessions unused this long are removed (a task comes back once an epoch)
LOCKDOWN_DEFAULTS: dict[str, Any] = {"pids_limit": 128, "work_mb": 256, "tmp_mb": 64}  # `Session`'s
LOCKDOWN_KEYS = ("root", "memory_mb", "cpus", "pids_limit", "work_mb", "tmp_mb", "writable")


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


def _lockdown(task: AgenticTask, options: dict[str, Any]) -> SessionLockdown:
    """The session's lockdown: a plain one, or with `SHARED_MOUNTS` for a shared-mode task."""
    kind = _SharedLockdown if task.verifier.mode == "shared" else SessionLockdown
    return kind(**{**LOCKDOWN_DEFAULTS, **{k: options[k] for k in LOCKDOWN_KEYS if k in options}})


def _fill(session: Session, workdir: str, tree: bytes, image: str) -> None:
    """Extract ``tree`` into ``workdir`` as the session user, and start the shell there."""
    quoted = "'" + workdir.replace("'", "'\\''") + "'"
    if tree:
        r = session.exec(f"/bin/tar -xpf - -C {quoted} --no-same-owner", stdin=tree, timeout_s=60)
        if r.error or r.exit_code != 0:
            raise SandboxError(f"{workdir} could not be filled from {image}: {r.error or r.stderr.strip()}")
    r = session.exec(f"cd {quoted}")
    if r.error:
        raise SandboxError(f"the session of {image} failed: {r.error}")


def _pool(key: tuple[Any, ...], make: Callable[[], SessionPool]) -> SessionPool:
    """This process's pool for ``key``, made at the first call (outside the lock: a first pool
    reads its image's files; two threads racing keep the first one made)."""
    with _lock:
        pool = _pools.get(key)
    if pool is not None:
        return pool
    made = make()
    with _lock:
        pool = _pools.setdefault(key, made)
    if pool is not made:
        made.close()
    return pool


def task_session(task: AgenticTask, image: str, *, client: Any = None, warm: int = 0, **session_kwargs: Any) -> Session:
    """A started `Session` of ``image`` (the task's, from `build_task_image`) for an agent working
    on ``task`` (see the module's docstring); ``session_kwargs`` go to `Session` (``pids_limit``,
    ``work_mb``, ...).

    With ``warm`` > 0 the session comes from this process's warm `SessionPool` for the task's
    image and lockdown (one pool per image, user, limits and mode), which keeps ``warm`` sessions
    started and filled ahead (set it to the group size G: a GRPO step's G sessions of one task
    then start at once; `prestart_task_sessions` starts them before they are asked for); idle,
    they are removed after `WARM_IDLE_S`. Each session is still used once: what one agent did
    is never seen by the next. ``warm=0``: a container started for this call.

    Raises:
        SandboxError: the session could not start or the working folder could not be filled.

    Examples:
        >>> with task_session(task, build_task_image(task)) as s:  # doctest: +SKIP
        ...     s.exec("pwd; ls").stdout
        '/app\\nmain.py\\n'
    """
    if warm:
        return _task_pool(task, image, client, warm, session_kwargs).session(image)
    return _cold(task, image, client, session_kwargs)


def prestart_task_sessions(
    task: AgenticTask, image: str, *, warm: int, client: Any = None, **session_kwargs: Any
) -> None:
    """Start ``task``'s warm sessions (as `task_session` with the same arguments would take them
    from) in the background, and return at once: call it when an episode of the task begins, so
    its sessions are ready by the first command."""
    _task_pool(task, image, client, warm, session_kwargs).prestart(image)


def _options(task: AgenticTask, image: str, client: Any, session_kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The task's working folder and the session's options (its user, limits, writable folders)."""
    workdir = task.environment.workdir or image_workdir(image, client=client)
    options: dict[str, Any] = {
        "root": task.agent_user == "root",
        "memory_mb": task.limits.memory_mb,
        "timeout_s": task.limits.agent_timeout_s,
        "cpus": task.limits.cpus,
    }
    if workdir not in SESSION_DIRS:
        options["writable"] = (workdir,)
    return workdir, {**options, **session_kwargs}


def _cold(task: AgenticTask, image: str, client: Any, session_kwargs: dict[str, Any]) -> Session:
    client = client or engine_client()
    workdir, options = _options(task, image, client, session_kwargs)
    tree = _image_tree(client, image, workdir)
    container = start_container(client, image, _lockdown(task, options), f"session-{uuid.uuid4().hex[:12]}")
    session = Session(container=container, **{k: v for k, v in options.items() if k not in LOCKDOWN_KEYS[2:]})
    try:
        _fill(session, workdir, tree, image)
    except BaseException:
        session.close()
        raise
    return session


@lru_cache(maxsize=1)
def _warm_client() -> Any:
    """One engine client for the warm pools of this process: a hand-out finds its task's pool
    without a new client's version probe each episode (~12 ms here)."""
    return engine_client()


def _task_pool(task: AgenticTask, image: str, client: Any, warm: int, session_kwargs: dict[str, Any]) -> SessionPool:
    client = client or _warm_client()
    workdir, options = _options(task, image, client, session_kwargs)
    lockdown = _lockdown(task, options)
    rest = {k: v for k, v in options.items() if k not in LOCKDOWN_KEYS}
    key = (image, workdir, type(lockdown), *sorted((k, repr(v)) for k, v in options.items()), warm)

    def make() -> SessionPool:
        tree = _image_tree(client, image, workdir)
        fill = partial(_fill, workdir=workdir, tree=tree, image=image)
        return SessionPool(size=warm, idle_s=WARM_IDLE_S, client=client, lockdown=lockdown, prepare=fill, **rest)

    return _pool(key, make)
