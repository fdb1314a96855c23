"""What a sandbox returns, and the `Sandbox` protocol every implementation follows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["ExecResult", "Job", "Sandbox"]


@dataclass(frozen=True)
class ExecResult:
    """The outcome of running one program.

    ``error`` is set only when *our* side failed (engine down, container died twice); the
    program's own failures show in ``exit_code``, ``timed_out``, ``oom_killed`` and
    ``truncated`` (output over the cap, which counts as a failure). ``duration_s`` is the job's
    own time, as its time limit counts it: wall time minus its waits for a CPU (or its process
    tree's CPU time over the CPU quota, if larger).

    Examples:
        >>> r = ExecResult(stdout="4\\n", exit_code=0)
        >>> r.ok
        True
    """

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    truncated: bool = False
    duration_s: float = 0.0
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Exited with status 0 within every limit."""
        return self.exit_code == 0 and not (self.timed_out or self.oom_killed or self.truncated) and self.error is None


@dataclass(frozen=True)
class Job:
    """One program for `Sandbox.run_many`."""

    code: str
    stdin: str = ""
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    timeout_s: float | None = None
    memory_mb: int | None = None


@runtime_checkable
class Sandbox(Protocol):
    """Runs untrusted Python programs. Implementations: `DockerSandbox`, `FakeSandbox`.

    ``call`` and ``run_tests`` are the two ways verifiers test functions without letting expected
    values or test code into the program's process (see `verifiers.code`).
    """

    def run(
        self,
        code: str,
        *,
        stdin: str = "",
        files: Mapping[str, str | bytes] | None = None,
        timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> ExecResult: ...

    def run_many(self, jobs: Sequence[Job]) -> list[ExecResult]: ...

    def call(
        self,
        code: str,
        fn_name: str,
        calls: Sequence[Sequence[Any]],
        *,
        timeout_s: float | None = None,
        suite_timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> list[dict[str, Any]]: ...

    def run_tests(
        self,
        code: str,
        tests: Sequence[str],
        *,
        entry_point: str = "",
        setup: str = "",
        timeout_s: float | None = None,
        suite_timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...
