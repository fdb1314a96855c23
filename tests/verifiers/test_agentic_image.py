"""A task's image: built once on a mapped base (no pull, no network), cached by its context's
digest, labelled as a task image, and a session runs in it. One small build on the sandbox image
(~3-6 s on 2 busy cores)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from verifiers.agentic import AgenticTask, Environment, Limits, Verifier, build_task_image
from verifiers.errors import ImageBuildError
from verifiers.sandbox import TASK_IMAGE_LABEL, Session, engine_client, image_tag

pytestmark = pytest.mark.docker


def _task(dockerfile: str, context: dict[str, bytes], network: str = "none") -> AgenticTask:
    return AgenticTask(
        name="image-test",
        instruction="x",
        environment=Environment(dockerfile=dockerfile, context=context),
        verifier=Verifier(tests={"test.sh": b"echo 1 > /logs/verifier/reward.txt\n"}),
        limits=Limits(network_mode=network),  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
def built() -> Iterator[tuple[AgenticTask, str]]:
    marker = uuid.uuid4().hex.encode()  # a fresh digest each run: the first build is a real build
    task = _task("FROM python:3.11-slim\nCOPY data.txt /opt/task/data.txt\n", {"data.txt": marker})
    tag = build_task_image(task, base_images={"python:3.11-slim": image_tag()})
    yield task, tag
    engine_client().images.remove(tag, force=True)


def test_the_image_is_built_on_the_mapped_base_labelled_and_runs_a_session(built: tuple[AgenticTask, str]) -> None:
    task, tag = built
    image = engine_client().images.get(tag)
    assert image.labels[TASK_IMAGE_LABEL] == "image-test"
    assert image.labels["org.grpo-envs.task-digest"] == task.environment.digest()
    with Session(image=tag, timeout_s=10) as s:
        assert s.exec("cat /opt/task/data.txt").stdout == task.environment.context["data.txt"].decode()


def test_the_same_context_is_not_built_again(built: tuple[AgenticTask, str]) -> None:
    task, tag = built
    created = engine_client().images.get(tag).attrs["Created"]
    start = time.monotonic()
    assert build_task_image(task, base_images={"python:3.11-slim": image_tag()}) == tag
    assert time.monotonic() - start < 2.0 and engine_client().images.get(tag).attrs["Created"] == created


def test_a_missing_base_and_a_failing_build_are_one_line_each() -> None:
    with pytest.raises(ImageBuildError, match="base image 'no-such-base:9' is not on the engine .*base_images="):
        build_task_image(_task("FROM no-such-base:9\n", {}))
    with pytest.raises(ImageBuildError, match="building its image failed: .*asks for it") as err:
        build_task_image(_task("FROM base\nRUN exit 3\n", {}, network="public"), base_images={"base": image_tag()})
    assert "\n" not in str(err.value)
