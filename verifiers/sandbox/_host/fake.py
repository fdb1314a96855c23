"""`FakeSandbox`: scripted results for unit tests of code that uses a sandbox. Runs nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from verifiers.sandbox._host.protocol import ExecResult, Job

__all__ = ["FakeSandbox"]

RunScript = Callable[[str, str], ExecResult]
CallScript = Callable[[str, str, Sequence[Any]], dict[str, Any]]
RunTestsScript = Callable[[str, str], dict[str, Any]]


class FakeSandbox:
    """A `Sandbox` that never executes code: every answer comes from a script you give it.

    ``run(code, stdin)`` returns ``on_run(code, stdin)``; ``call`` returns one
    ``on_call(code, fn_name, args)`` per call; ``run_tests`` one ``on_test(code, test)`` per test.
    Every request is recorded in ``requests`` for assertions.

    Examples:
        >>> box = FakeSandbox(on_run=lambda code, stdin: ExecResult(stdout=stdin, exit_code=0))
        >>> box.run("print(input())", stdin="hi\\n").stdout
        'hi\\n'
        >>> box.requests[0]["op"]
        'run'
    """

    size = 2

    def __init__(
        self,
        *,
        on_run: RunScript | None = None,
        on_call: CallScript | None = None,
        on_test: RunTestsScript | None = None,
    ) -> None:
        self.on_run = on_run or (lambda code, stdin: ExecResult(exit_code=0))
        self.on_call = on_call or (lambda code, fn, args: {"status": "ok", "value": ["n"]})
        self.on_test = on_test or (lambda code, test: {"status": "passed"})
        self.requests: list[dict[str, Any]] = []
        self.closed = False

    def run(
        self,
        code: str,
        *,
        stdin: str = "",
        files: Mapping[str, str | bytes] | None = None,
        timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> ExecResult:
        self.requests.append({"op": "run", "code": code, "stdin": stdin, "timeout_s": timeout_s})
        return self.on_run(code, stdin)

    def run_many(self, jobs: Sequence[Job]) -> list[ExecResult]:
        return [self.run(j.code, stdin=j.stdin, files=j.files, timeout_s=j.timeout_s) for j in jobs]

    def call(
        self,
        code: str,
        fn_name: str,
        calls: Sequence[Sequence[Any]],
        *,
        timeout_s: float | None = None,
        suite_timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> list[dict[str, Any]]:
        self.requests.append({"op": "call", "code": code, "fn_name": fn_name, "calls": calls})
        return [self.on_call(code, fn_name, args) for args in calls]

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
    ) -> list[dict[str, Any]]:
        self.requests.append({"op": "run_tests", "code": code, "tests": list(tests), "setup": setup})
        return [self.on_test(code, test) for test in tests]

    def close(self) -> None:
        self.closed = True
