"""The marker policy in conftest.py: `docker` tests never skip silently in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCKER_TEST = "tests/verifiers/test_sandbox_image.py::test_image_runs_as_numeric_non_root_user_by_default"


def run_docker_test(ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent.sock"}
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", DOCKER_TEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_docker_test_fails_in_ci_when_no_engine_answers() -> None:
    proc = run_docker_test(ci="true")
    assert proc.returncode == 1, proc.stdout
    assert "docker test cannot run in CI: No Docker engine answers" in proc.stdout
    assert "1 error" in proc.stdout  # failed in set-up, before the test body ran


@pytest.mark.parametrize("ci", [None, "false"])
def test_docker_test_skips_visibly_outside_ci(ci: str | None) -> None:
    proc = run_docker_test(ci=ci)
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped" in proc.stdout
    assert "needs Docker: No Docker engine answers" in proc.stdout
