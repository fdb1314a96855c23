"""A project's test dependencies: found in its metadata, downloaded as wheels on the host, installed
offline into its image (containers have no network), and the one line that says why a suite that
cannot run did not run.

Where test dependencies are read (the first that names any; pytest itself is the base image's):
``pyproject.toml`` ``[dependency-groups]`` and ``[project.optional-dependencies]`` (``test``,
``tests``, ``testing``), ``requirements-test.txt`` and the like, ``setup.cfg``
``[options.extras_require]``; the project's own ``[project] dependencies`` and ``setup.cfg``
``install_requires`` are added. `download_wheels` runs ``pip download --only-binary=:all:`` on the
host (the project's index, or ``find_links`` only when ``offline``); `project_image` builds the
task base with those wheels installed (``pip install --no-index``, no network in the build), the
same layers every task of the project starts from.
"""

from __future__ import annotations

import configparser
import hashlib
import io
import logging
import re
import subprocess
import sys
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tomllib

from grpo_envs.errors import GrpoEnvsError

from ._validate import PASSED, Outcome
from ._write import BASE_IMAGE, dockerfile

log = logging.getLogger(__name__)

GROUPS = ("test", "tests", "testing")
REQUIREMENT_FILES = (
    "requirements-test.txt", "requirements-tests.txt", "test-requirements.txt", "requirements/test.txt",
    "requirements/tests.txt", "requirements_test.txt",
)  # fmt: skip
PROJECT_IMAGE = "grpo-envs-repo"
_BUILTIN = {"pytest"}  # the base image has it
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_NETWORK = re.compile(
    r"ConnectionError|ConnectionRefused|gaierror|Name or service not known|Temporary failure in name resolution"
    r"|Network is unreachable|urlopen error|MaxRetryError|NewConnectionError",
    re.IGNORECASE,
)
_MISSING = re.compile(r"No module named '([^']+)'")


class DependencyError(GrpoEnvsError):
    """The project's test dependencies could not be downloaded or installed (one line says which)."""


def _strings(values: Any) -> list[str]:
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []


def _from_pyproject(project: Path) -> tuple[list[str], list[str]]:
    path = project / "pyproject.toml"
    if not path.is_file():
        return [], []
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError:
        return [], []
    meta = data.get("project", {})
    groups, extras = data.get("dependency-groups", {}), meta.get("optional-dependencies", {})
    tests = [r for g in GROUPS for r in _strings(groups.get(g)) + _strings(extras.get(g))]
    return tests, _strings(meta.get("dependencies"))


def _from_setup_cfg(project: Path) -> tuple[list[str], list[str]]:
    path = project / "setup.cfg"
    if not path.is_file():
        return [], []
    cfg = configparser.ConfigParser()
    try:
        cfg.read_string(path.read_text())
    except configparser.Error:
        return [], []

    def lines(section: str, key: str) -> list[str]:
        return [x.strip() for x in cfg.get(section, key, fallback="").splitlines() if x.strip()]

    return [r for g in GROUPS for r in lines("options.extras_require", g)], lines("options", "install_requires")


def _from_files(project: Path) -> list[str]:
    found: list[str] = []
    for name in REQUIREMENT_FILES:
        path = project / name
        if path.is_file():
            found += [row.split("#")[0].strip() for row in path.read_text().splitlines()]
    return [r for r in found if r and not r.startswith("-")]


def project_requirements(project: str | Path) -> list[str]:
    """The requirements a project's tests need beyond pytest (see the module docstring), in the
    order found, each once (by name)."""
    project = Path(project)
    tests, runtime = _from_pyproject(project)
    cfg_tests, cfg_runtime = _from_setup_cfg(project)
    out: dict[str, str] = {}
    for req in [*tests, *cfg_tests, *_from_files(project), *runtime, *cfg_runtime]:
        match = _NAME.match(req)
        name = match.group(1).lower().replace("_", "-") if match else ""
        if name and name not in _BUILTIN and name not in out and "extra ==" not in req:
            out[name] = req.strip()
    return list(out.values())


def download_wheels(
    requirements: Sequence[str], dest: str | Path, *, find_links: str | Path | None = None, offline: bool = False
) -> list[Path]:
    """Wheels for ``requirements`` and what they need, downloaded into ``dest`` on the host
    (``pip download --only-binary=:all:``; with ``offline``, only from ``find_links``). Returns
    every wheel in ``dest``; `DependencyError` names the requirement pip could not satisfy."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if requirements:
        cmd = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--disable-pip-version-check"]
        cmd += ["--dest", str(dest), *(["--find-links", str(find_links)] if find_links else [])]
        cmd += ["--no-index"] if offline else []
        proc = subprocess.run([*cmd, *requirements], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            lines = [x for x in (proc.stderr or proc.stdout).splitlines() if x.strip()]
            last = next((x for x in reversed(lines) if "ERROR" in x), lines[-1] if lines else "?")
            raise DependencyError(
                f"the test dependencies ({', '.join(requirements)}) could not be downloaded: {last.strip()[:200]}; "
                "download their wheels into a folder and pass it with --wheels"
            )
    wheels = sorted(dest.glob("*.whl"))
    sdists = [p.name for p in dest.iterdir() if p.is_file() and p.suffix != ".whl"]
    if sdists:
        raise DependencyError(f"{dest}: {', '.join(sdists)} are not wheels; the image installs wheels only")
    return wheels


def project_image(wheels: Sequence[Path], *, base: Mapping[str, str] | None = None, client: Any = None) -> str:
    """The project's image: the task base (``base`` maps `BASE_IMAGE` to a local tag; default
    ``build_task_base_image()``) with ``wheels`` installed offline; built once, cached by digest.
    Its layers are those every task of the project starts from (`dockerfile`)."""
    import docker.errors

    from verifiers.agentic import build_task_base_image
    from verifiers.sandbox import TASK_IMAGE_LABEL, engine_client

    client = client or engine_client()
    local = (base or {}).get(BASE_IMAGE) or build_task_base_image(client=client)
    if not wheels:
        return local
    text = dockerfile(sorted(w.name for w in wheels), image=local).split("WORKDIR")[0]
    digest = hashlib.sha256(text.encode() + b"".join(w.read_bytes() for w in sorted(wheels))).hexdigest()[:16]
    tag = f"{PROJECT_IMAGE}:{digest}"
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in [("Dockerfile", text.encode()), *((f"wheels/{w.name}", w.read_bytes()) for w in wheels)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    try:
        client.images.build(
            fileobj=buf, custom_context=True, tag=tag, network_mode="none", pull=False, rm=True, forcerm=True,
            labels={TASK_IMAGE_LABEL: "repotasks-project"},
        )  # fmt: skip
    except (docker.errors.BuildError, docker.errors.APIError) as exc:
        raise DependencyError(f"installing the test dependencies into the image failed: {exc}") from exc
    log.info("built %s with %d wheel(s)", tag, len(wheels))
    return tag


def diagnose(outcomes: Mapping[str, Outcome]) -> str:
    """Why a clean suite did not pass, in a few words for its error line: a module it could not
    import, or the network it tried to reach; empty when neither shows."""
    messages = [o.message for o in outcomes.values() if o.status != PASSED]
    for message in messages:
        missing = _MISSING.search(message)
        if missing:
            return (
                f"; it cannot import {missing.group(1)!r}: name it in the project's test dependencies "
                "(pyproject [project.optional-dependencies] test) or pass its wheels with --wheels"
            )
    if any(_NETWORK.search(m) for m in messages):
        return "; its tests need the network, which task containers do not have"
    return ""
