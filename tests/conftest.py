"""Shared test set-up: offline hub, and the `docker` / `gpu` markers.

- `docker` tests need an engine and the sandbox image (`make test` provides both). Without
  them a test is skipped locally, but FAILS when CI=true: CI must never skip them silently.
- `gpu` tests are skipped, visibly (pytest -ra), where no CUDA device exists.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Side by side (`make test`), each worker and the processes its tests start use one OpenMP
    # thread: torch's default (a thread per core) leaves a tiny model's matmuls waiting at every
    # barrier for a thread the other worker holds off its core (test_the_demo_learns[cispo] beside
    # one busy process: 99 s with 2 threads, 35 s with 1). Before torch is imported: it reads this
    # once. An OMP_NUM_THREADS already set wins.
    os.environ.setdefault("OMP_NUM_THREADS", "1")

pytest_plugins = ["pytester"]  # tests of our opt-in pytest plugin run pytest inside pytest


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with `slow` tests first (each file's tests keep their order): `make test` hands whole
    files to two processes as they free up, so the long files go out early and the short ones
    fill the end, instead of one process still running a long file while the other waits. (The
    Makefile passes --no-loadscope-reorder: xdist would otherwise hand out the files with the most
    tests first, whatever this order.)"""
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("docker") is not None:
        problem = _docker_problem()
        if problem is not None:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"docker test cannot run in CI: {problem}", pytrace=False)
            pytest.skip(f"needs Docker: {problem}")
    if item.get_closest_marker("gpu") is not None and not _has_cuda():
        pytest.skip("needs a CUDA GPU (none here)")


# -- a private second Docker engine (never the shared one) ----------------------------------
def _dockerd_pids(root: Path) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cmdline.startswith("dockerd") and str(root) in cmdline:
            pids.append(int(entry.name))
    return pids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.fixture
def private_engine() -> Iterator[tuple[Path, dict[str, str]]]:
    if os.geteuid() != 0:
        pytest.skip("starting a private dockerd needs root")
    if shutil.which("dockerd") is None:
        pytest.skip("dockerd is not installed (make test installs it)")
    # A short path: unix socket paths are limited to 108 bytes.
    root = Path(tempfile.mkdtemp(prefix="ge-eng-", dir="/tmp"))
    env = {
        "DOCKERD_SOCKET": str(root / "d.sock"),
        "DOCKERD_PIDFILE": str(root / "d.pid"),
        "DOCKERD_DATA_ROOT": str(root / "data"),
        "DOCKERD_EXEC_ROOT": str(root / "exec"),
        "DOCKERD_LOG": str(root / "d.log"),
        "DOCKERD_WAIT_S": "60",
    }
    yield root, env
    for pid in _dockerd_pids(root):
        os.kill(pid, signal.SIGCONT)  # a test may have paused it
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in _dockerd_pids(root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in _dockerd_pids(root):
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    # A stopped engine leaves its data root bind-mounted: unmount before deleting.
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    for mount in sorted((m for m in mounts if m.startswith(str(root))), reverse=True):
        subprocess.run(["umount", "-l", mount], check=False)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def live_dockerd_pids() -> object:
    """A function: the live dockerd pids of a private engine rooted at a folder."""
    return lambda root: [p for p in _dockerd_pids(root) if _alive(p)]
