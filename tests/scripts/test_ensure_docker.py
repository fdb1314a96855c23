"""scripts/ensure-docker.sh, the engine set-up `make` runs.

The engine tests start a private second dockerd (own socket, pid file, data and exec roots)
and kill it; the shared engine the other tests use is never touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ensure-docker.sh"


def ensure(env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
    )


def test_a_docker_host_that_does_not_answer_is_reported_not_replaced() -> None:
    env = {"DOCKER_HOST": "unix:///nonexistent.sock"}
    proc = ensure({k: v for k, v in env.items()}, timeout=60)
    assert proc.returncode == 1
    assert "DOCKER_HOST=unix:///nonexistent.sock does not answer" in proc.stderr
    assert "systemctl start docker" in proc.stderr
    assert "starting dockerd" not in proc.stderr


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux)")
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to another user")
def test_a_user_who_cannot_start_an_engine_is_told_how(tmp_path: Path) -> None:
    sock = tmp_path / "none.sock"
    proc = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-s"],
        input=SCRIPT.read_text(),  # the checkout may not be readable by that user
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DOCKERD_SOCKET": str(sock), "DOCKERD_PIDFILE": str(tmp_path / "p")},
    )
    assert proc.returncode == 1
    assert "cannot start one here" in proc.stderr
    assert "systemctl start docker" in proc.stderr


def _answers(env: dict[str, str]) -> bool:
    sock = env["DOCKERD_SOCKET"]
    return subprocess.run(["docker", "-H", f"unix://{sock}", "info"], capture_output=True).returncode == 0


def _pid(env: dict[str, str]) -> int:
    return int(Path(env["DOCKERD_PIDFILE"]).read_text().strip())


@pytest.mark.docker
@pytest.mark.slow
def test_starts_an_engine_is_idempotent_and_recovers_from_kill_9(
    private_engine: tuple[Path, dict[str, str]],
) -> None:
    _, env = private_engine
    first = ensure(env)
    assert first.returncode == 0, first.stderr
    assert "engine answers" in first.stderr and _answers(env)
    pid = _pid(env)

    again = ensure(env)
    assert again.returncode == 0 and again.stderr == ""  # nothing to do, nothing said
    assert _pid(env) == pid

    os.kill(pid, signal.SIGKILL)  # leaves a stale pid file and socket behind
    recovered = ensure(env)
    assert recovered.returncode == 0, recovered.stderr
    assert "removing stale" in recovered.stderr
    assert _pid(env) != pid and _answers(env)


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] in "ZX"
    except FileNotFoundError:
        return True


@pytest.mark.docker
@pytest.mark.slow
def test_a_containerd_zombie_left_by_a_killed_engine_is_not_taken_for_a_running_one(
    private_engine: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, env = private_engine
    assert ensure(env).returncode == 0
    pidfile = root / "exec" / "containerd" / "containerd.pid"
    old = int(pidfile.read_text().strip())
    os.kill(_pid(env), signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not _gone(old) and time.monotonic() < deadline:
        time.sleep(0.1)
    # What CI met: the old containerd had exited but nobody had reaped it yet. A zombie whose
    # name is containerd, which this test (its parent) does not reap until the end.
    binary = tmp_path / "containerd"
    shutil.copy("/bin/sleep", binary)
    zombie = subprocess.Popen([str(binary), "600"])
    try:
        zombie.kill()
        while not _gone(zombie.pid):
            time.sleep(0.05)
        pidfile.write_text(str(zombie.pid))
        proc = ensure(env)
        assert proc.returncode == 0, proc.stderr
        assert f"pid '{zombie.pid}' is not a running containerd" in proc.stderr
        assert _answers(env)
    finally:
        zombie.wait()


@pytest.mark.docker
@pytest.mark.slow
def test_a_pid_reused_by_another_process_counts_as_stale(
    private_engine: tuple[Path, dict[str, str]],
) -> None:
    _, env = private_engine
    sleeper = subprocess.Popen(["sleep", "120"])
    try:
        Path(env["DOCKERD_PIDFILE"]).write_text(f"{sleeper.pid}\n")
        proc = ensure(env)
        assert proc.returncode == 0, proc.stderr
        assert f"pid '{sleeper.pid}' is not a running dockerd" in proc.stderr
        assert _answers(env) and _pid(env) != sleeper.pid
        assert sleeper.poll() is None  # and it was not killed
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.docker
@pytest.mark.slow
def test_never_touches_the_files_of_a_live_engine(
    private_engine: tuple[Path, dict[str, str]], live_dockerd_pids: Any
) -> None:
    root, env = private_engine
    assert ensure(env).returncode == 0
    # Same live dockerd in the pid file, but a socket that does not answer (yet).
    pidfile, sock = root / "other.pid", root / "other.sock"
    pidfile.write_text(f"{_pid(env)}\n")
    sock.write_text("")  # stands in for the live engine's socket
    other = {
        **env,
        "DOCKERD_PIDFILE": str(pidfile),
        "DOCKERD_SOCKET": str(sock),
        "DOCKERD_WAIT_S": "2",
    }
    proc = ensure(other)
    assert proc.returncode == 1
    assert "is running; waiting for it to answer" in proc.stderr
    assert pidfile.exists() and sock.exists()
    assert len(live_dockerd_pids(root)) == 1  # no second engine started
