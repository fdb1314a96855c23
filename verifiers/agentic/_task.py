"""`AgenticTask`: one agentic task as a value (what a Harbor folder and a Python definition give).

A task is an instruction (the prompt), an environment (a Dockerfile and its build context, or a
prebuilt image), tests (``test.sh`` and its files, which enter a container only after the
agent's turn), a reference solution (``solve.sh`` and its files) and limits. Files are kept as
bytes keyed by their path relative to their folder, so a task is hashable data with no tie to
the disk it was read from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ["AgenticTask", "Environment", "Limits", "Verifier"]

REQUIRED_TESTS_FILE = "required_tests.txt"
NetworkMode = Literal["public", "none"]
VerifierMode = Literal["separate", "shared"]


def _frozen(files: Mapping[str, bytes]) -> Mapping[str, bytes]:
    return MappingProxyType({k: bytes(v) for k, v in sorted(files.items())})


@dataclass(frozen=True)
class Limits:
    """Time and resource limits of a task (Harbor's ``[agent]``, ``[verifier]`` and
    ``[environment]`` numbers, normalised: legacy ``memory = "2G"`` reads as ``memory_mb = 2048``).

    ``network_mode`` is Harbor's: ``"public"`` (its default) or ``"none"``. Our containers have
    no network, so a ``"public"`` task is reported as needing it (`AgenticTask.needs_network`).
    """

    agent_timeout_s: float = 600.0
    verifier_timeout_s: float = 600.0
    build_timeout_s: float = 600.0
    cpus: float = 1.0
    memory_mb: int = 2048
    storage_mb: int = 10240
    network_mode: NetworkMode = "public"


@dataclass(frozen=True)
class Environment:
    """Where the agent works: ``dockerfile`` with its build ``context`` (files relative to the
    task's ``environment/`` folder, the Dockerfile among them), or a prebuilt ``docker_image``;
    ``workdir`` (Harbor's ``[environment] workdir``) is where commands start, instead of the
    image's ``WORKDIR``."""

    dockerfile: str | None = None
    context: Mapping[str, bytes] = field(default_factory=dict)
    docker_image: str | None = None
    workdir: str | None = None

    def __post_init__(self) -> None:
        context = dict(self.context)
        if self.dockerfile is not None:  # the Dockerfile is part of its context, as on disk
            context["Dockerfile"] = self.dockerfile.encode()
        elif "Dockerfile" in context:
            object.__setattr__(self, "dockerfile", context["Dockerfile"].decode())
        object.__setattr__(self, "context", _frozen(context))
        if self.dockerfile is None and self.docker_image is None:
            raise ValueError("an environment needs a Dockerfile or a docker_image")

    def base_images(self) -> tuple[str, ...]:
        """The images the Dockerfile's ``FROM`` lines name (stage names excluded)."""
        stages: set[str] = set()
        bases: list[str] = []
        for line in (self.dockerfile or "").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0].upper() == "FROM":
                image = next((w for w in words[1:] if not w.startswith("--")), "")
                if image and image not in stages:
                    bases.append(image)
                if len(words) >= 4 and words[-2].upper() == "AS":
                    stages.add(words[-1])
        return tuple(bases)

    def digest(self) -> str:
        """A sha256 over the Dockerfile, every context file and the image name: the key an image
        built from this environment is cached under (same context, same image)."""
        h = hashlib.sha256()
        h.update(f"image={self.docker_image}\n".encode())
        h.update(f"dockerfile={len((self.dockerfile or '').encode())}\n".encode())
        h.update((self.dockerfile or "").encode())
        for path, data in self.context.items():
            h.update(f"\nfile={path} {len(data)}\n".encode())
            h.update(data)
        return h.hexdigest()


@dataclass(frozen=True)
class Verifier:
    """How a task is judged: ``tests`` (``test.sh`` and what it uses, relative to ``tests/``),
    run as ``user`` within ``timeout_s``; ``mode`` ``"separate"`` (a fresh verifier container,
    only ``artifacts`` carried over from the agent's; our default) or ``"shared"`` (the agent's
    container, after its processes are stopped). ``required_tests`` names tests that the runner's
    JUnit XML report must list as passed (from ``tests/required_tests.txt``, one a line)."""

    tests: Mapping[str, bytes] = field(default_factory=dict)
    mode: VerifierMode = "separate"
    artifacts: tuple[str, ...] = ()
    user: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    required_tests: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        tests = dict(self.tests)
        if self.required_tests:  # the names live in tests/required_tests.txt, as on disk
            tests[REQUIRED_TESTS_FILE] = ("\n".join(self.required_tests) + "\n").encode()
        elif REQUIRED_TESTS_FILE in tests:
            names = tests[REQUIRED_TESTS_FILE].decode().splitlines()
            kept = tuple(n.strip() for n in names if n.strip() and not n.lstrip().startswith("#"))
            object.__setattr__(self, "required_tests", kept)
        object.__setattr__(self, "tests", _frozen(tests))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        if "test.sh" not in self.tests:
            raise ValueError("the tests need a test.sh")
        if self.mode not in ("separate", "shared"):
            raise ValueError(f"verifier mode must be 'separate' or 'shared', got {self.mode!r}")


@dataclass(frozen=True)
class AgenticTask:
    """One agentic task: the ``instruction`` is the prompt, the container is built from
    ``environment``, ``verifier`` judges the state the agent leaves, ``solution`` (files relative
    to ``solution/``, ``solve.sh`` among them) is the reference that must score 1.

    Examples:
        >>> t = AgenticTask(
        ...     name="hello",
        ...     instruction="Write hello to /app/out.txt",
        ...     environment=Environment(dockerfile="FROM grpo-envs-task-base\\nWORKDIR /app\\n"),
        ...     verifier=Verifier(tests={"test.sh": b"test -s /app/out.txt && echo 1 > /logs/verifier/reward.txt"}),
        ...     solution={"solve.sh": b"echo hello > /app/out.txt"},
        ... )
        >>> t.environment.base_images(), t.needs_network
        (('grpo-envs-task-base',), True)
    """

    name: str
    instruction: str
    environment: Environment
    verifier: Verifier
    solution: Mapping[str, bytes] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    agent_user: str | None = None
    metadata: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "solution", _frozen(self.solution))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        if not self.name or "/" in self.name:
            raise ValueError(f"a task name is a non-empty folder name, got {self.name!r}")
        if not self.instruction.strip():
            raise ValueError(f"task {self.name}: the instruction is empty")

    @property
    def needs_network(self) -> bool:
        """Whether the task asks for the network (Harbor's default), which our containers lack."""
        return self.limits.network_mode != "none"
