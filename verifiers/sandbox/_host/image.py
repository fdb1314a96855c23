"""The sandbox image: Python 3.11 on a minimal Debian, run as a numeric non-root uid.

Two recipes produce the same tag (a hash of both recipes and the interpreter version):

- registry: ``FROM python:3.11-slim-bookworm`` plus a few settings (``docker build``);
- offline: ``mmdebstrap`` makes a minimal Debian root file system with ``python3-minimal``
  (and ``python3-sortedcontainers``, as the registry image gets ``sortedcontainers`` from PyPI),
  which is ``docker import``-ed with the same settings. No registry is contacted.

After either build a throw-away container (network disabled) checks that ``python3`` on
PATH is the promised version; an image that fails the check is removed.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING, Any

from verifiers.errors import ImageBuildError
from verifiers.sandbox._host.client import engine_client

if TYPE_CHECKING:
    import docker

__all__ = [
    "IMAGE_REPOSITORY",
    "SANDBOX_UID",
    "build_image",
    "image_exists",
    "image_tag",
    "recipe",
]

log = logging.getLogger("verifiers.sandbox")

IMAGE_REPOSITORY = "grpo-envs-sandbox"
"""Repository name of the sandbox image; the tag is ``py<version>-<recipe hash>``."""

SANDBOX_UID = 1000
"""Numeric uid (and gid) the image runs as. It needs no passwd entry."""

_PYTHON = "3.11"
_SUITE = "bookworm"
_DEFAULT_MIRROR = "http://deb.debian.org/debian"
_REGISTRY_BASE = f"python:{_PYTHON}-slim-{_SUITE}"
_PACKAGES = ("python3-minimal", f"libpython{_PYTHON}-stdlib", "python3-sortedcontainers")
# Libraries that LeetCode-style preambles import, beyond the standard library: Debian's package
# offline (above), the same version from PyPI on the registry image.
_LIBRARIES = ("sortedcontainers==2.4.0",)
_DPKG_EXCLUDES = (
    "/usr/share/doc/*",
    "/usr/share/man/*",
    "/usr/share/info/*",
    "/usr/share/locale/*",
)
# Settings applied by both recipes (Dockerfile instructions accepted by `docker import`).
_SETTINGS = (
    f"USER {SANDBOX_UID}:{SANDBOX_UID}",
    "WORKDIR /tmp",
    "ENV PATH=/usr/local/bin:/usr/bin:/bin",
    "ENV LANG=C.UTF-8",
    "ENV PYTHONDONTWRITEBYTECODE=1",
    "ENV PYTHONUNBUFFERED=1",
    'CMD ["python3"]',
)
_SMOKE = "import sys, sortedcontainers; print('%d.%d' % sys.version_info[:2])"


def recipe() -> dict[str, Any]:
    """Everything that determines the image, as hashed into its tag."""
    return {
        "python": _PYTHON,
        "suite": _SUITE,
        "registry_base": _REGISTRY_BASE,
        "packages": list(_PACKAGES),
        "libraries": list(_LIBRARIES),
        "dpkg_excludes": list(_DPKG_EXCLUDES),
        "settings": list(_SETTINGS),
    }


def image_tag() -> str:
    """The full ``repository:tag`` of the sandbox image this version of the SDK uses.

    Examples:
        >>> image_tag().startswith("grpo-envs-sandbox:py3.11-")
        True
    """
    digest = hashlib.sha256(json.dumps(recipe(), sort_keys=True).encode()).hexdigest()[:12]
    return f"{IMAGE_REPOSITORY}:py{_PYTHON}-{digest}"


def _labels(source: str) -> dict[str, str]:
    return {"org.grpo-envs.recipe": image_tag().split(":", 1)[1], "org.grpo-envs.source": source}


def image_exists(client: docker.DockerClient | None = None, tag: str | None = None) -> bool:
    """Whether the engine already has the sandbox image (or ``tag``)."""
    import docker.errors

    client = client or engine_client()
    try:
        client.images.get(tag or image_tag())
    except docker.errors.ImageNotFound:
        return False
    return True


def build_image(
    *,
    offline: bool = False,
    force: bool = False,
    client: docker.DockerClient | None = None,
    tag: str | None = None,
    registry_base: str = _REGISTRY_BASE,
    mirror: str | None = None,
) -> str:
    """Build the sandbox image unless it exists; return its tag.

    Args:
        offline: build from a Debian root file system made by ``mmdebstrap`` (needs root or
            user namespaces, and a Debian mirror) instead of pulling ``registry_base``.
        force: rebuild even when the image exists.
        client: a docker client; by default one from the environment.
        tag: build under another tag (tests); default `image_tag`.
        registry_base: the base image of the registry recipe.
        mirror: Debian mirror for ``--offline`` (default ``$GRPO_ENVS_DEBIAN_MIRROR`` or
            deb.debian.org).

    Raises:
        EngineUnavailableError: no engine answers.
        ImageBuildError: a build step failed; the message names it.

    Examples:
        >>> build_image(offline=True)  # doctest: +SKIP
        'grpo-envs-sandbox:py3.11-0123456789ab'
    """
    client = client or engine_client()
    tag = tag or image_tag()
    if not force and image_exists(client, tag):
        log.info("sandbox image %s exists", tag)
        return tag
    if offline:
        _build_offline(client, tag, mirror or os.environ.get("GRPO_ENVS_DEBIAN_MIRROR"))
    else:
        _build_from_registry(client, tag, registry_base)
    _smoke_test(client, tag)
    log.info("sandbox image %s is ready", tag)
    return tag


def _build_from_registry(client: docker.DockerClient, tag: str, base: str) -> None:
    import docker.errors

    names = ", ".join(lib.split("==")[0] for lib in _LIBRARIES)
    install = f'RUN python3 -c "import {names}" 2>/dev/null || pip install --no-cache-dir {" ".join(_LIBRARIES)}'

    dockerfile = "\n".join([f"FROM {base}", install, *_SETTINGS, ""])
    log.info("building %s from %s", tag, base)
    try:
        client.images.build(
            fileobj=io.BytesIO(dockerfile.encode()),
            tag=tag,
            labels=_labels("registry"),
            rm=True,
            forcerm=True,
            network_mode="host",  # the build's own `pip install` (model code never runs in a build)
        )
    except (docker.errors.BuildError, docker.errors.APIError) as exc:
        raise ImageBuildError(
            f"building {tag} from {base} failed: {exc}. Without a registry, build offline: "
            "`grpo-envs sandbox build-image --offline` (needs mmdebstrap)."
        ) from exc


def _build_offline(client: docker.DockerClient, tag: str, mirror: str | None) -> None:
    import docker.errors

    mmdebstrap = shutil.which("mmdebstrap")
    if mmdebstrap is None:
        raise ImageBuildError(
            "`--offline` needs mmdebstrap, which is not on PATH: install it "
            "(`apt-get install -y mmdebstrap` on Debian/Ubuntu), or build from a registry "
            "without --offline."
        )
    with tempfile.TemporaryDirectory(prefix="grpo-envs-rootfs-") as tmp:
        rootfs = os.path.join(tmp, "rootfs.tar")
        cmd = [
            mmdebstrap,
            "--variant=essential",
            "--include=" + ",".join(_PACKAGES),
            *(f"--dpkgopt=path-exclude={p}" for p in _DPKG_EXCLUDES),
            _SUITE,
            rootfs,
            mirror or _DEFAULT_MIRROR,
        ]
        log.info("making a Debian %s root file system with mmdebstrap (about a minute)", _SUITE)
        # stdin must not be inherited: mmdebstrap reads a sources.list from a non-tty stdin.
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
            raise ImageBuildError(
                f"mmdebstrap failed (exit {proc.returncode}); it needs root (or unprivileged "
                f"user namespaces) and a reachable Debian mirror:\n{tail}"
            )
        repository, _, version = tag.rpartition(":")
        labels = [f"LABEL {k}={v}" for k, v in _labels("offline").items()]
        log.info("importing the root file system as %s", tag)
        try:
            client.api.import_image(src=rootfs, repository=repository, tag=version, changes=[*_SETTINGS, *labels])
        except docker.errors.APIError as exc:
            raise ImageBuildError(f"docker import of the root file system failed: {exc}") from exc
    if not image_exists(client, tag):
        raise ImageBuildError(f"docker import reported success but {tag} does not exist")


def _smoke_test(client: docker.DockerClient, tag: str) -> None:
    import docker.errors

    try:
        out = client.containers.run(
            tag,
            ["python3", "-c", _SMOKE],
            network_mode="none",
            read_only=True,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            remove=True,
        )
        version = out.decode().strip()
    except docker.errors.DockerException as exc:
        version = f"<failed: {exc}>"
    if version != _PYTHON:
        client.images.remove(tag, force=True)
        raise ImageBuildError(
            f"image {tag} was built, but `python3` in it reports {version!r} instead of "
            f"{_PYTHON!r}; the image was removed"
        )
