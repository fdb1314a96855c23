"""Running Ray inside a network namespace that has only loopback, for the Ray tests.

Outside one, Ray picks the machine's interface address and probes an outside DNS address to
find it. Inside ``unshare --net`` (root; ``ip link set lo up`` first) everything it does stays
on 127.0.0.1. `run_worker` runs ``ray_worker.py`` there with .venv's python and the checkout on
PYTHONPATH and returns the JSON report it prints; `namespace_problem` says why no namespace can
be made here (the tests skip, visibly, except in CI, where they fail).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("ray_worker.py")
LOOPBACK_ONLY = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$0" "$@"']


@functools.cache
def namespace_problem() -> str | None:
    """None when a loopback-only network namespace can be made here, else why not."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "ray is not installed (pip install -e '.[dev]')"
    if os.geteuid() != 0:
        return "unshare --net needs root"
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = subprocess.run([*LOOPBACK_ONLY, "ip", "-o", "link", "show", "up"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot make a network namespace: {probe.stderr.strip()[:200]}"
    if any(" lo:" not in line for line in probe.stdout.splitlines()):
        return f"the namespace has more than loopback: {probe.stdout!r}"
    return None


def need_namespace() -> None:
    problem = namespace_problem()
    if problem is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Ray tests cannot run in CI: {problem}", pytrace=False)
    pytest.skip(f"needs a loopback-only network namespace for Ray: {problem}")


def _processes_in(netns: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "ns" / "net") == netns:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def run_worker(
    scenario: str, *, args: Sequence[str] = (), timeout_s: float = 240.0, worker: Path = WORKER
) -> dict[str, Any]:
    """Run ``ray_worker.py SCENARIO ARGS...`` (or another ``worker`` script) in a fresh
    loopback-only namespace and return its report, with ``leftover``: the processes still in that
    namespace 30 s after the worker exited."""
    temp = tempfile.mkdtemp(prefix="ge-ray-", dir="/tmp")  # short: Ray's unix socket paths
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "RAY_AUTH_MODE": "disabled",  # no token written to ~/.ray for a throwaway cluster
        "RAY_USAGE_STATS_ENABLED": "0",
        "GE_RAY_TEMP": temp,
        "RAY_TMPDIR": temp,  # where a Cluster writes ray_current_cluster (else /tmp/ray, shared and maybe absent)
    }
    os.makedirs(os.path.join(temp, "ray"), exist_ok=True)
    env.pop("RAY_ADDRESS", None)
    netns = ""
    try:
        proc = subprocess.run(
            [*LOOPBACK_ONLY, sys.executable, str(worker), scenario, *args],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            cwd=ROOT,
        )
        lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        netns = lines[0]["netns"] if lines else ""  # the worker's first line, before Ray starts
        failed = f"worker failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
        assert proc.returncode == 0 and len(lines) > 1, failed
        report: dict[str, Any] = lines[-1]
        deadline = time.monotonic() + 30
        while _processes_in(netns) and time.monotonic() < deadline:
            time.sleep(0.5)
        report["leftover"] = _processes_in(netns)
        return report
    finally:
        for pid in _processes_in(netns) if netns else []:  # leave nothing behind, even on failure
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
