"""The code sandbox: Docker containers that run untrusted programs.

`Sandbox` is the protocol; `DockerSandbox` the real one (a pool of warm, locked-down
containers, one or more engines); `FakeSandbox` returns scripted results for unit tests and
runs nothing. `Session` is one container for one episode whose state persists between shell
commands (agentic tasks); `SessionPool` starts them ahead, per image.
There is no host fallback: without an engine you get `EngineUnavailableError`.
``default_sandbox()`` is the process-wide pool used wherever ``sandbox=None``.

Importing this module is cheap: the `docker` SDK is imported only when an engine is used.

Examples:
    >>> from verifiers import sandbox
    >>> sandbox.image_tag().startswith(sandbox.IMAGE_REPOSITORY + ":")
    True
"""

from __future__ import annotations

from verifiers.sandbox._host.client import engine_client, how_to_start_engine
from verifiers.sandbox._host.fake import FakeSandbox
from verifiers.sandbox._host.image import (
    IMAGE_REPOSITORY,
    SANDBOX_UID,
    build_image,
    image_exists,
    image_tag,
    recipe,
)
from verifiers.sandbox._host.pool import DockerSandbox, default_sandbox
from verifiers.sandbox._host.protocol import ExecResult, Job, Sandbox
from verifiers.sandbox._host.prune import TASK_IMAGE_LABEL, prune_images
from verifiers.sandbox._host.session import Session
from verifiers.sandbox._host.session_pool import SessionPool

__all__ = [
    "IMAGE_REPOSITORY",
    "SANDBOX_UID",
    "TASK_IMAGE_LABEL",
    "DockerSandbox",
    "ExecResult",
    "FakeSandbox",
    "Job",
    "Sandbox",
    "Session",
    "SessionPool",
    "build_image",
    "default_sandbox",
    "engine_client",
    "how_to_start_engine",
    "image_exists",
    "image_tag",
    "prune_images",
    "recipe",
]
