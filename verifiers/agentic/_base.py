"""The offline task base image: bash, coreutils, python3, pip and pytest on a minimal Debian.

Built the way the sandbox image is built offline (``mmdebstrap`` from a Debian mirror, then
``docker import``), so no registry is contacted. Map the ``FROM`` names of tasks to it:
``build_task_image(task, base_images={"python:3.11-slim": build_task_base_image()})``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any

from verifiers.errors import ImageBuildError
from verifiers.sandbox import TASK_IMAGE_LABEL, engine_client

__all__ = ["TASK_BASE_REPOSITORY", "build_task_base_image", "task_base_tag"]

TASK_BASE_REPOSITORY = "grpo-envs-task-base"
_SUITE = "bookworm"
_PACKAGES = ("bash", "coreutils", "python3", "python3-pip", "python3-pytest", "procps", "tar")
_SETTINGS = ("WORKDIR /work", "ENV PATH=/usr/local/bin:/usr/bin:/bin", "ENV LANG=C.UTF-8", 'CMD ["bash"]')
_SMOKE = ["bash", "-c", "python3 -m pytest --version >/dev/null && pip --version >/dev/null && echo ok"]


def task_base_tag() -> str:
    """``grpo-envs-task-base:<hash of the recipe>``."""
    recipe = json.dumps({"suite": _SUITE, "packages": _PACKAGES, "settings": _SETTINGS}, sort_keys=True)
    return f"{TASK_BASE_REPOSITORY}:{hashlib.sha256(recipe.encode()).hexdigest()[:12]}"


def build_task_base_image(*, client: Any = None, mirror: str | None = None, force: bool = False) -> str:
    """Build the task base image unless it exists (about a minute or two); return its tag.

    Raises:
        ImageBuildError: mmdebstrap is missing or failed, or the image lacks pytest.
    """
    import docker.errors

    client = client or engine_client()
    tag = task_base_tag()
    try:
        if not force:
            client.images.get(tag)
            return tag
    except docker.errors.ImageNotFound:
        pass
    if shutil.which("mmdebstrap") is None:
        raise ImageBuildError("the task base image needs mmdebstrap: `apt-get install -y mmdebstrap`")
    mirror = mirror or os.environ.get("GRPO_ENVS_DEBIAN_MIRROR") or "http://deb.debian.org/debian"
    with tempfile.TemporaryDirectory(prefix="grpo-envs-taskbase-") as tmp:
        rootfs = os.path.join(tmp, "rootfs.tar")
        cmd = ["mmdebstrap", "--variant=essential", "--include=" + ",".join(_PACKAGES), _SUITE, rootfs, mirror]
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            raise ImageBuildError(f"mmdebstrap failed (exit {proc.returncode}): {tail[0]}")
        repository, _, version = tag.rpartition(":")
        labels = [f"LABEL {TASK_IMAGE_LABEL}=task-base"]
        client.api.import_image(src=rootfs, repository=repository, tag=version, changes=[*_SETTINGS, *labels])
    out = client.containers.run(tag, _SMOKE, network_mode="none", remove=True).decode().strip()
    if out != "ok":
        client.images.remove(tag, force=True)
        raise ImageBuildError(f"{tag} was built but lacks python3, pip or pytest ({out!r}); it was removed")
    return tag
