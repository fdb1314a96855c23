"""Removing task images no container uses: ``grpo-envs sandbox prune-images``."""

from __future__ import annotations

import logging
from typing import Any

from verifiers.sandbox._host.client import engine_client

__all__ = ["TASK_IMAGE_LABEL", "prune_images"]

log = logging.getLogger("verifiers.sandbox")

TASK_IMAGE_LABEL = "org.grpo-envs.task-image"
"""The label that marks an image as a task's (what a session runs in): only such images are pruned."""


def prune_images(client: Any = None, *, dry_run: bool = False) -> list[str]:
    """Remove every image labelled `TASK_IMAGE_LABEL` that no container (running or stopped)
    uses; returns their names (tags, or ids when untagged). Images of warm pools and open
    sessions are in use, so they stay; the sandbox image and images of others are never touched.

    Examples:
        >>> prune_images(dry_run=True)  # doctest: +SKIP
        ['task-abc:1']
    """
    import docker.errors

    client = client or engine_client()
    used = {c.attrs.get("ImageID") or c.attrs.get("Image") for c in client.containers.list(all=True, sparse=True)}
    removed: list[str] = []
    for image in client.images.list(filters={"label": TASK_IMAGE_LABEL}):
        if image.id in used:
            continue
        names = list(image.tags) or [image.id]
        if not dry_run:
            try:
                for name in names:  # by each tag: an image with several tags is not removed by its id
                    client.images.remove(name, noprune=False)
            except docker.errors.APIError as exc:  # started a container meanwhile, or removed by someone else
                log.info("image %s was not removed: %s", names[0], exc)
                continue
        removed += names
    return removed
