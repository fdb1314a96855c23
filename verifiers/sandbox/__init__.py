"""The code sandbox: Docker containers that run untrusted programs.

This module is imported cheaply: the `docker` SDK is imported only when an engine is used.
For now it builds and finds the sandbox image; the container pool arrives with
`verifiers.code`.

Example:
    >>> from verifiers import sandbox
    >>> sandbox.image_tag().startswith(sandbox.IMAGE_REPOSITORY + ":")
    True
"""

from __future__ import annotations

from verifiers.sandbox._engine import engine_client, how_to_start_engine
from verifiers.sandbox._image import (
    IMAGE_REPOSITORY,
    SANDBOX_UID,
    build_image,
    image_exists,
    image_tag,
    recipe,
)

__all__ = [
    "IMAGE_REPOSITORY",
    "SANDBOX_UID",
    "build_image",
    "engine_client",
    "how_to_start_engine",
    "image_exists",
    "image_tag",
    "recipe",
]
