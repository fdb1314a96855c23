"""DockerSandbox across two engines: a private second dockerd on this machine.

Jobs spread over both engines; an engine that stops answering (paused with SIGSTOP) is
taken out of rotation and its jobs are retried on the other. The shared engine is never
stopped.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from verifiers.sandbox import DockerSandbox, Job, image_tag

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ensure-docker.sh"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_jobs_spread_over_two_engines_and_survive_one_stopping(
    private_engine: tuple[Path, dict[str, str]], live_dockerd_pids: Any
) -> None:
    root, env = private_engine
    started = subprocess.run(
        ["bash", str(SCRIPT)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert started.returncode == 0, started.stderr
    second = f"unix://{env['DOCKERD_SOCKET']}"
    loaded = subprocess.run(
        f"docker save {image_tag()} | docker -H {second} load",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert loaded.returncode == 0, loaded.stderr
    first = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"

    box = DockerSandbox(size=2, engines=[first, second], timeout_s=2, engine_timeout_s=3, stuck_after_s=2)
    try:
        hosts = {c.engine.url for c in box._all}  # type: ignore[attr-defined]
        assert hosts == {first, second}
        results = box.run_many([Job(f"print({k} + 1)") for k in range(16)])
        assert [r.stdout for r in results] == [f"{k + 1}\n" for k in range(16)]
        assert box.jobs_by_engine[first] > 0 and box.jobs_by_engine[second] > 0

        (pid,) = live_dockerd_pids(root)
        os.kill(pid, signal.SIGSTOP)  # the second engine stops answering
        try:
            results = box.run_many([Job(f"print({k} * 2)") for k in range(8)])
            assert [r.stdout for r in results] == [f"{k * 2}\n" for k in range(8)], results
            before = box.jobs_by_engine[second]
            assert all(r.ok for r in box.run_many([Job("print(1)") for _ in range(6)]))
            assert box.jobs_by_engine[second] == before  # out of rotation
        finally:
            os.kill(pid, signal.SIGCONT)
    finally:
        box.close()
