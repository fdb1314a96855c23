"""Shared test set-up: offline hub, and the `docker` / `gpu` markers.

- `docker` tests need an engine and the sandbox image (`make test` provides both). Without
  them a test is skipped locally, but FAILS when CI=true: CI must never skip them silently.
- `gpu` tests are skipped, visibly (pytest -ra), where no CUDA device exists.
"""

from __future__ import annotations

import functools
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@functools.cache
def _docker_problem() -> str | None:
    from verifiers.errors import SandboxError
    from verifiers.sandbox import engine_client, image_exists, image_tag

    try:
        client = engine_client(timeout_s=5)
        if not image_exists(client):
            return f"sandbox image {image_tag()} is missing (run `make test` to build it)"
    except SandboxError as exc:
        return str(exc).splitlines()[0]
    return None


@functools.cache
def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("docker") is not None:
        problem = _docker_problem()
        if problem is not None:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"docker test cannot run in CI: {problem}", pytrace=False)
            pytest.skip(f"needs Docker: {problem}")
    if item.get_closest_marker("gpu") is not None and not _has_cuda():
        pytest.skip("needs a CUDA GPU (none here)")
