"""scripts/ensure-docker.sh, the engine set-up `make` runs.

The engine tests start a private second dockerd (own socket, pid file, data and exec roots)
and kill it; the shared engine the other tests use is never touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

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


def _answers(env: dict[str, str]) -> bool:
    sock = env["DOCKERD_SOCKET"]
    return (
        subprocess.run(["docker", "-H", f"unix://{sock}", "info"], capture_output=True).returncode
        == 0
    )


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
    private_engine: tuple[Path, dict[str, str]],
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
    assert len([p for p in _dockerd_pids(root) if _alive(p)]) == 1  # no second engine started
