"""`task_session`: the agent's session for a task, its working folder holding what the image put there.

A session's root file system is read-only and its ``/work`` is an empty tmpfs, so what a task's
Dockerfile put in its ``WORKDIR`` (Terminal-Bench's ``/app``, or ``/work``) would be hidden or
unwritable. `task_session` starts the session with that folder writable (a tmpfs of the session
user, counted in the memory limit: ``Session(writable=...)``), copies the image's files there
(extracted by the session user, so the agent owns and may edit them; modes kept) and starts the
shell in it. ``tasks check`` and a terminal env over tasks start their episodes with it.
"""

from __future__ import annotations

import io
import tarfile
import threading
from typing import Any

from verifiers.agentic._task import AgenticTask
from verifiers.errors import SandboxError
from verifiers.sandbox import Session, engine_client

__all__ = ["image_workdir", "task_session"]

SESSION_DIRS = ("/work", "/tmp")  # writable in every session
TREE_CAP = 16 * 2**20  # bytes of a working folder copied into a session
_trees: dict[tuple[str, str], bytes] = {}  # (image id, folder) -> its files, as a tar relative to it
_lock = threading.Lock()


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


def task_session(task: AgenticTask, image: str, *, client: Any = None, **session_kwargs: Any) -> Session:
    """A `Session` of ``image`` (the task's, from `build_task_image`) with the task's memory and
    per-command time limit, its working folder (``[environment] workdir``, else the image's
    ``WORKDIR``) writable and holding the image's files there, and the shell started in it.
    ``session_kwargs`` go to `Session` (``root``, ``cpus``, ...).

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
    kwargs: dict[str, Any] = {"timeout_s": task.limits.agent_timeout_s, "memory_mb": task.limits.memory_mb}
    if workdir not in SESSION_DIRS:
        kwargs["writable"] = (workdir,)
    session = Session(image=image, client=client, **{**kwargs, **session_kwargs})
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
