"""Judging in separate mode: only the declared artifacts reach a fresh verifier container, so a
reward file, a shim on PATH or a symlink the agent planted earns nothing; a missing reward is a
masked error. On the sandbox image (bash, python3); one session per test, ~1-2 s each."""

from __future__ import annotations

import pytest

from verifiers.agentic import AgenticTask, Environment, Limits, Verifier, verify_separate
from verifiers.sandbox import Session, image_tag

pytestmark = pytest.mark.docker

TEST_SH = b"""#!/bin/bash
if [ "$(python3 -c 'print(open("/work/answer.txt").read().strip())')" = "$(cat /tests/expected.txt)" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""


def _task(test_sh: bytes = TEST_SH) -> AgenticTask:
    return AgenticTask(
        name="answer",
        instruction="Write 42 to /work/answer.txt",
        environment=Environment(docker_image=image_tag()),
        verifier=Verifier(tests={"test.sh": test_sh, "expected.txt": b"42\n"}, artifacts=("/work/answer.txt",)),
        limits=Limits(verifier_timeout_s=20, memory_mb=256, network_mode="none"),
    )


@pytest.mark.parametrize(
    ("commands", "status"),
    [
        ("echo 42 > /work/answer.txt", "correct"),
        ("", "incorrect"),  # no action
        ("echo 41 > /work/answer.txt", "incorrect"),
        # the reward file, a python3 shim first on PATH, a symlink to the expected answer:
        (
            "mkdir -p /tmp/logs/verifier && echo 1 > /tmp/logs/verifier/reward.txt; echo 1 > /work/reward.txt",
            "incorrect",
        ),
        (
            "mkdir -p /work/bin && printf '#!/bin/sh\\necho 42\\n' > /work/bin/python3 && chmod +x /work/bin/python3"
            " && export PATH=/work/bin:$PATH",
            "incorrect",
        ),
        ("ln -s /tests/expected.txt /work/answer.txt", "incorrect"),
    ],
)
def test_only_the_artifacts_are_judged(commands: str, status: str) -> None:
    task = _task()
    with Session(image=image_tag(), timeout_s=10) as s:
        if commands:
            assert s.exec(commands).exit_code == 0
        v = verify_separate(s, task, image_tag())
    assert v.status == status, v.reason


def test_tests_that_write_no_reward_are_a_masked_error() -> None:
    with Session(image=image_tag(), timeout_s=10) as s:
        v = verify_separate(s, _task(b"exit 2\n"), image_tag())
    assert (v.status, v.correct) == ("error", None) and "wrote no" in v.reason and "exit 2" in v.reason


def test_tests_past_their_limit_are_a_timeout_and_the_verifier_is_removed() -> None:
    from dataclasses import replace

    from verifiers.sandbox import engine_client

    task = replace(_task(b"sleep 60\n"), limits=Limits(verifier_timeout_s=2, memory_mb=256, network_mode="none"))
    with Session(image=image_tag(), timeout_s=10) as s:
        v = verify_separate(s, task, image_tag())
    assert (v.status, v.correct) == ("timeout", None) and "past 2 s" in v.reason
    ours = {"label": "org.grpo-envs.verifier=answer"}  # other runs on this engine may be judging now
    assert engine_client().containers.list(all=True, filters=ours) == []
