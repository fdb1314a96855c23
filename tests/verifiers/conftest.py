"""Fixtures of the verifier tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from verifiers.sandbox import DockerSandbox


@pytest.fixture(scope="module")
def box() -> Iterator[DockerSandbox]:
    """One small sandbox pool per test module (a module may define its own)."""
    with DockerSandbox(size=1, timeout_s=5) as sandbox:
        yield sandbox
