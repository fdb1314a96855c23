"""The sandbox image: its tag, and real containers started from it (network disabled)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from verifiers import ImageBuildError
from verifiers.sandbox import (
    IMAGE_REPOSITORY,
    SANDBOX_UID,
    build_image,
    engine_client,
    image_tag,
)
from verifiers.sandbox._host import image as _image

LOCKED = dict(
    network_mode="none",
    read_only=True,
    cap_drop=["ALL"],
    security_opt=["no-new-privileges"],
    pids_limit=64,
    mem_limit="256m",
)

PROBE = r"""
import json, os, sys
try:
    open("/etc/probe", "w")
    root_writable = True
except OSError:
    root_writable = False
with open("/proc/net/dev") as f:
    interfaces = sorted(line.split(":")[0].strip() for line in f.readlines()[2:])
print(json.dumps({
    "version": "%d.%d" % sys.version_info[:2],
    "uid": os.getuid(),
    "gid": os.getgid(),
    "interfaces": interfaces,
    "root_writable": root_writable,
    "home_env": sorted(k for k in os.environ if k.startswith("GRPO")),
}))
"""


def test_tag_carries_the_interpreter_and_a_recipe_hash() -> None:
    repo, tag = image_tag().split(":")
    assert repo == IMAGE_REPOSITORY
    version, digest = tag.split("-")
    assert version == "py3.11"
    assert len(digest) == 12 and int(digest, 16) >= 0


def test_a_changed_recipe_gives_a_new_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    before = image_tag()
    monkeypatch.setattr(_image, "_SETTINGS", (*_image._SETTINGS, "ENV EXTRA=1"))
    changed_settings = image_tag()
    monkeypatch.setattr(_image, "_PACKAGES", (*_image._PACKAGES, "python3-venv"))
    changed_packages = image_tag()
    assert len({before, changed_settings, changed_packages}) == 3
    monkeypatch.undo()
    assert image_tag() == before


@pytest.fixture(scope="module")
def client() -> Any:
    return engine_client()


@pytest.mark.docker
def test_container_runs_python_as_non_root_without_network(client: Any) -> None:
    out = client.containers.run(image_tag(), ["python3", "-c", PROBE], remove=True, **LOCKED)
    import json

    probe = json.loads(out.decode())
    assert probe["version"] == "3.11"
    assert probe["uid"] == SANDBOX_UID and probe["gid"] == SANDBOX_UID
    assert probe["interfaces"] == ["lo"]  # network disabled: loopback only
    assert probe["root_writable"] is False
    assert probe["home_env"] == []  # no host variable leaks in


@pytest.mark.docker
def test_image_runs_as_numeric_non_root_user_by_default(client: Any) -> None:
    config = client.images.get(image_tag()).attrs["Config"]
    assert config["User"] == f"{SANDBOX_UID}:{SANDBOX_UID}"
    assert config["Labels"]["org.grpo-envs.recipe"] == image_tag().split(":")[1]


@pytest.mark.docker
def test_build_image_returns_quickly_when_the_image_exists(client: Any) -> None:
    start = time.monotonic()
    assert build_image(offline=True, client=client) == image_tag()
    assert time.monotonic() - start < 10  # an actual build takes a minute or more


@pytest.fixture
def scratch_tag(client: Any) -> Iterator[str]:
    tag = f"{IMAGE_REPOSITORY}-test:{uuid.uuid4().hex[:12]}"
    yield tag
    import docker.errors

    try:
        client.images.remove(tag, force=True)
    except docker.errors.ImageNotFound:
        pass


@pytest.mark.docker
@pytest.mark.slow
def test_registry_recipe_builds_from_a_base_image(client: Any, scratch_tag: str) -> None:
    # No registry here: the offline image stands in for python:3.11-slim as the local base.
    tag = build_image(client=client, tag=scratch_tag, registry_base=image_tag())
    assert tag == scratch_tag
    image = client.images.get(tag)
    assert image.attrs["Config"]["Labels"]["org.grpo-envs.source"] == "registry"
    assert image.attrs["Config"]["User"] == f"{SANDBOX_UID}:{SANDBOX_UID}"
    out = client.containers.run(tag, ["python3", "-c", "print(6 * 7)"], remove=True, **LOCKED)
    assert out.decode().strip() == "42"


@pytest.mark.docker
def test_registry_failure_suggests_offline(client: Any, scratch_tag: str) -> None:
    with pytest.raises(ImageBuildError, match="--offline"):
        build_image(client=client, tag=scratch_tag, registry_base="grpo-envs-no-such-base:0")


@pytest.mark.docker
def test_offline_without_mmdebstrap_names_the_package(
    client: Any, scratch_tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ImageBuildError, match="apt-get install -y mmdebstrap"):
        build_image(offline=True, client=client, tag=scratch_tag)
