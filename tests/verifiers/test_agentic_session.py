"""A task's working folder in its session (`task_session`, ``Session(writable=...)``): a
Terminal-Bench style ``WORKDIR /app`` is writable by the session user, holds the image's files
with their modes, runs what is written there, and starts fresh in every session; the rest of
the root file system stays read-only. Docker part on the task base image (built once, 1-3 min,
then cached; ~4 s)."""

from __future__ import annotations

import pytest

from verifiers.agentic import (
    AgenticTask,
    Environment,
    Limits,
    Verifier,
    build_task_base_image,
    build_task_image,
    task_session,
)
from verifiers.errors import SandboxError
from verifiers.sandbox._host.session import SessionLockdown


def test_a_writable_folder_is_a_tmpfs_of_the_session_user_that_runs_programs() -> None:
    tmpfs = SessionLockdown(memory_mb=256, work_mb=32, writable=("/app/",)).create_kwargs(100_000, 100_001)["tmpfs"]
    assert tmpfs["/app"] == "size=32m,uid=100000,gid=100000,mode=0755,exec" == tmpfs["/work"]
    assert "exec" not in tmpfs["/tmp"]


@pytest.mark.parametrize("path", ["app", "/", "/work", "/etc/x", "/proc", "/usr/local", "/a/../etc"])
def test_what_cannot_be_made_writable(path: str) -> None:
    with pytest.raises(SandboxError, match="writable="):
        SessionLockdown(memory_mb=256, writable=(path,))


@pytest.mark.docker
@pytest.mark.slow
def test_the_images_workdir_is_writable_filled_and_fresh_per_session() -> None:
    task = AgenticTask(
        name="app-dir",
        instruction="Edit /app/config.txt.",
        environment=Environment(
            dockerfile="FROM grpo-envs-task-base\nWORKDIR /app\nCOPY config.txt /app/\nCOPY sub/ /app/sub/\nRUN chmod 0640 /app/config.txt\n",
            context={"config.txt": b"debug = false\n", "sub/run.sh": b"#!/bin/bash\necho ran\n"},
        ),
        verifier=Verifier(tests={"test.sh": b"echo 1 > /logs/verifier/reward.txt\n"}, artifacts=("/app/config.txt",)),
        limits=Limits(agent_timeout_s=20, memory_mb=256, network_mode="none"),
    )
    image = build_task_image(task, base_images={"grpo-envs-task-base": build_task_base_image()})
    with task_session(task, image) as s:
        r = s.exec("pwd; stat -c '%a %n' config.txt sub/run.sh; sub/run.sh")
        assert r.stdout.splitlines() == ["/app", "640 config.txt", "755 sub/run.sh", "ran"], r
        edit = "sed -i s/false/true/ config.txt && printf '#!/bin/sh\\necho mine\\n' > mine.sh && chmod +x mine.sh"
        assert s.exec(f"{edit} && ./mine.sh && cat config.txt").stdout == "mine\ndebug = true\n"
        assert s.exec("touch /etc/x || touch /opt/x || touch /x").exit_code != 0  # the rest stays read-only
    with task_session(task, image) as s:
        assert s.exec("cat /app/config.txt; ls /app").stdout == "debug = false\nconfig.txt\nsub\n"
