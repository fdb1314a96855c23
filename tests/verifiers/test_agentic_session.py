"""A task's working folder in its session (`task_session`, ``Session(writable=...)``): a
Terminal-Bench style ``WORKDIR /app`` is writable by the session user, holds the image's files
with their modes, runs what is written there, and starts fresh in every session; the rest of
the root file system stays read-only. Docker part on the task base image (built once, 1-3 min,
then cached; ~4 s). The same from a warm pool (``task_session(..., warm=G)``): the same user,
lockdown, limits and mounts, the folder filled before the session is asked for."""

from __future__ import annotations

import time

import pytest

from verifiers.agentic import (
    AgenticTask,
    Environment,
    Limits,
    Verifier,
    _session,
    build_task_base_image,
    build_task_image,
    prestart_task_sessions,
    task_session,
)
from verifiers.errors import SandboxError
from verifiers.sandbox import Session
from verifiers.sandbox._host.session import SessionLockdown


def test_a_writable_folder_is_a_tmpfs_of_the_session_user_that_runs_programs() -> None:
    tmpfs = SessionLockdown(memory_mb=256, work_mb=32, writable=("/app/",)).create_kwargs(100_000, 100_001)["tmpfs"]
    assert tmpfs["/app"] == "size=32m,uid=100000,gid=100000,mode=0755,exec" == tmpfs["/work"]
    assert "exec" not in tmpfs["/tmp"]


@pytest.mark.parametrize("path", ["app", "/", "/work", "/etc/x", "/proc", "/usr/local", "/a/../etc"])
def test_what_cannot_be_made_writable(path: str) -> None:
    with pytest.raises(SandboxError, match="writable="):
        SessionLockdown(memory_mb=256, writable=(path,))


def app_task(**changes: object) -> AgenticTask:
    """A Terminal-Bench style task: ``WORKDIR /app`` with a file of mode 0640 and a script."""
    fields: dict[str, object] = {
        "name": "app-dir",
        "instruction": "Edit /app/config.txt.",
        "environment": Environment(
            dockerfile="FROM grpo-envs-task-base\nWORKDIR /app\nCOPY config.txt /app/\nCOPY sub/ /app/sub/\nRUN chmod 0640 /app/config.txt\n",
            context={"config.txt": b"debug = false\n", "sub/run.sh": b"#!/bin/bash\necho ran\n"},
        ),
        "verifier": Verifier(
            tests={"test.sh": b"echo 1 > /logs/verifier/reward.txt\n"}, artifacts=("/app/config.txt",)
        ),
        "limits": Limits(agent_timeout_s=20, memory_mb=256, network_mode="none"),
    }
    return AgenticTask(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def app_image() -> str:
    return build_task_image(app_task(), base_images={"grpo-envs-task-base": build_task_base_image()})


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("warm", [0, 2], ids=["cold", "warm"])
def test_the_images_workdir_is_writable_filled_and_fresh_per_session(app_image: str, warm: int) -> None:
    task = app_task()
    with task_session(task, app_image, warm=warm) as s:
        r = s.exec("pwd; stat -c '%a %n' config.txt sub/run.sh; sub/run.sh")
        assert r.stdout.splitlines() == ["/app", "640 config.txt", "755 sub/run.sh", "ran"], r
        edit = "sed -i s/false/true/ config.txt && printf '#!/bin/sh\\necho mine\\n' > mine.sh && chmod +x mine.sh"
        assert s.exec(f"{edit} && ./mine.sh && cat config.txt").stdout == "mine\ndebug = true\n"
        assert s.exec("touch /etc/x || touch /opt/x || touch /x").exit_code != 0  # the rest stays read-only
    with task_session(task, app_image, warm=warm) as s:
        assert s.exec("cat /app/config.txt; ls /app").stdout == "debug = false\nconfig.txt\nsub\n"


def _lockdown_seen(s: Session) -> list[str]:
    """What a session shows of its lockdown: user, caps, network, memory, pids, mounts."""
    r = s.exec(
        "id -u; grep CapEff /proc/self/status | cut -f2; ls /sys/class/net;"
        " cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null;"
        " cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null; stat -c '%u %a' /tests /logs 2>&1 | sed 's/^stat.*/none/'"
    )
    assert r.ok, r
    return r.stdout.splitlines()


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("mode, user", [("separate", None), ("shared", "root")])
def test_a_warm_task_session_has_the_cold_ones_lockdown(app_image: str, mode: str, user: str | None) -> None:
    task = app_task(verifier=Verifier(tests={"test.sh": b"true\n"}, mode=mode), agent_user=user)  # type: ignore[arg-type]
    with task_session(task, app_image) as cold:
        expected = _lockdown_seen(cold)
    prestart_task_sessions(task, app_image, warm=2)
    deadline = time.monotonic() + 60
    pool = _session._task_pool(task, app_image, None, 2, {})
    while pool.idle(app_image) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.idle(app_image) == 2  # started ahead, before anyone asked
    with task_session(task, app_image, warm=2) as warm:
        seen = _lockdown_seen(warm)
        assert warm.exec("pwd").stdout == "/app\n"
    assert (seen[0] == "0") == (expected[0] == "0") == (user == "root"), (seen, expected)  # the task's user
    assert seen[1:] == expected[1:], (seen, expected)  # no capabilities, no network, the same limits and mounts
    if mode == "shared":
        assert seen[-2:] == ["0 755", "0 755"]
    assert pool is _session._task_pool(task, app_image, None, 2, {})  # one pool per image and lockdown
    other = app_task(limits=Limits(agent_timeout_s=20, memory_mb=320, network_mode="none"))
    assert _session._task_pool(other, app_image, None, 2, {}) is not pool
