"""A task's image: built once from its environment, cached under a digest of its build context.

Base images cannot be pulled here, so ``base_images`` maps the names a Dockerfile's ``FROM`` lines
use to local images (``{"python:3.11-slim": "grpo-envs-task-base:1"}``); a name that is neither
mapped nor on the engine is one line naming it and the fix. The build has no network
(``network_mode="none"``): a task whose build needs the network says so in one line. The image is
tagged ``grpo-envs-task:<digest>``, where the digest covers the Dockerfile, every context file and
the ids of the base images it was built on, and labelled `TASK_IMAGE_LABEL` (so
``grpo-envs sandbox prune-images`` may remove it when unused). With a registry, leave
``base_images`` empty and pull the bases first (``docker pull``): the same names then resolve.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import tarfile
from collections.abc import Mapping
from typing import Any

from verifiers.agentic._task import AgenticTask
from verifiers.errors import ImageBuildError
from verifiers.sandbox import TASK_IMAGE_LABEL, engine_client

__all__ = ["TASK_IMAGE_REPOSITORY", "build_task_image"]

log = logging.getLogger("verifiers.agentic")

TASK_IMAGE_REPOSITORY = "grpo-envs-task"
_FROM = re.compile(r"^(\s*FROM\s+(?:--\S+\s+)*)(\S+)", re.IGNORECASE | re.MULTILINE)


def _resolve_bases(client: Any, task: AgenticTask, base_images: Mapping[str, str]) -> dict[str, str]:
    """Each ``FROM`` name -> (the local image it stands for, its id); one line when one is missing."""
    import docker.errors

    out: dict[str, str] = {}
    for name in task.environment.base_images():
        local = base_images.get(name, name)
        try:
            out[name] = f"{local}@{client.images.get(local).id}"
        except docker.errors.ImageNotFound:
            raise ImageBuildError(
                f"task {task.name}: base image {local!r} is not on the engine and cannot be pulled here: "
                f"map it to a local image with base_images={{{name!r}: '<local image>'}}, "
                "or `docker pull` it where a registry is reachable"
            ) from None
    return out


def _context_tar(dockerfile: str, context: Mapping[str, bytes]) -> io.BytesIO:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path, data in {**context, "Dockerfile": dockerfile.encode()}.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o755 if path.endswith(".sh") else 0o644
            tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return buf


def _tag(task: AgenticTask, bases: Mapping[str, str]) -> str:
    h = hashlib.sha256(task.environment.digest().encode())
    for name, resolved in sorted(bases.items()):
        h.update(f"\n{name}={resolved}".encode())
    return f"{TASK_IMAGE_REPOSITORY}:{h.hexdigest()[:16]}"


def build_task_image(
    task: AgenticTask, *, base_images: Mapping[str, str] | None = None, client: Any = None, force: bool = False
) -> str:
    """The tag of ``task``'s image, built now unless an image of the same digest exists.

    A task with a prebuilt ``docker_image`` and no Dockerfile uses that image as it is (it must be
    on the engine).

    Raises:
        ImageBuildError: a base image is missing, or the build failed (the message names the step,
            and that the build has no network when the task asks for it).
    """
    import docker.errors

    client = client or engine_client()
    env = task.environment
    if env.dockerfile is None:
        image = env.docker_image or ""
        if not _exists(client, image):
            raise ImageBuildError(f"task {task.name}: its docker_image {image!r} is not on the engine; load or pull it")
        return image
    bases = _resolve_bases(client, task, base_images or {})
    tag = _tag(task, bases)
    if not force and _exists(client, tag):
        return tag
    dockerfile = _FROM.sub(lambda m: m.group(1) + bases.get(m.group(2), m.group(2)).split("@")[0], env.dockerfile)
    log.info("building %s for task %s", tag, task.name)
    try:
        client.images.build(
            fileobj=_context_tar(dockerfile, env.context),
            custom_context=True,
            tag=tag,
            labels={TASK_IMAGE_LABEL: task.name, "org.grpo-envs.task-digest": env.digest()},
            network_mode="none",
            pull=False,
            rm=True,
            forcerm=True,
            timeout=int(task.limits.build_timeout_s),
        )
    except (docker.errors.BuildError, docker.errors.APIError) as exc:
        hint = (
            " The build has no network, and the task asks for it (network_mode public)." if task.needs_network else ""
        )
        raise ImageBuildError(f"task {task.name}: building its image failed: {_last_line(exc)}.{hint}") from exc
    return tag


def _last_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    for chunk in reversed(list(getattr(exc, "build_log", None) or ())):
        line = str(chunk.get("stream") or "").strip() if isinstance(chunk, dict) else ""
        if line:
            return f"{text[-1] if text else 'error'} (last output: {line[:200]})"
    return text[-1] if text else type(exc).__name__


def _exists(client: Any, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True
