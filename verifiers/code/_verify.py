"""The public functions of `verifiers.code` (re-exported by its ``__init__``): `verify` and
`verify_many`, which run a completion's program against a suite in the sandbox and judge it.
"""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from verifiers._workload import Needs, Workload
from verifiers.code._extract import find_code
from verifiers.code._outcomes import KIND, Outcome, from_call, from_exec, from_record
from verifiers.code._tests import Suite, parse_suite
from verifiers.errors import SandboxError, VerifierInputError
from verifiers.result import VerifyResult
from verifiers.sandbox._host.engines import sweep_orphans
from verifiers.sandbox._host.protocol import ExecResult, Job, Sandbox

if TYPE_CHECKING:
    from verifiers._workload import Executor

__all__ = ["WORKLOAD", "verify", "verify_many"]


def _sandbox(sandbox: Sandbox | None) -> Sandbox:
    if sandbox is not None:
        return sandbox
    from verifiers.sandbox import default_sandbox

    return default_sandbox()


def _program(code: str, suite: Suite) -> str:
    """HumanEval completions are often only the body: prepend the prompt when needed. A
    preamble (the dataset's classes and helpers) always comes first."""
    if suite.preamble:
        return f"{suite.preamble}\n\n{code}"
    if suite.prompt and suite.fn_name:
        defines = re.search(rf"^\s*(def|class)\s+{re.escape(suite.fn_name)}\b", code, re.M)
        if not defines:
            return suite.prompt + code
    return code


def _result(outcomes: list[Outcome], partial_credit: bool, extracted: str) -> VerifyResult:
    components = {f"test_{k}": float(kind == "passed") for k, (kind, _) in enumerate(outcomes)}
    passed = sum(kind == "passed" for kind, _ in outcomes)
    rate = passed / len(outcomes)
    components["pass_rate"] = rate
    errors = [(k, d) for k, (kind, d) in enumerate(outcomes) if kind == "error"]
    if errors:
        k, detail = errors[0]
        return VerifyResult.judged(
            "error",
            f"The sandbox failed on test {k + 1}: {detail}.",
            extracted=extracted,
            reward=0.0,
            components=components,
        )
    if passed == len(outcomes):
        reason = "The test passed." if len(outcomes) == 1 else f"All {len(outcomes)} tests passed."
        return VerifyResult.judged("correct", reason, extracted=extracted, components=components)
    k, (kind, detail) = next((k, o) for k, o in enumerate(outcomes) if o[0] != "passed")
    reason = f"Test {k + 1} of {len(outcomes)} failed: {KIND.get(kind, kind)}"
    reason += f" ({detail})." if detail else "."
    reward = rate if partial_credit else 0.0
    return VerifyResult.judged("incorrect", reason, extracted=extracted, reward=reward, components=components)


def _check(language: str, timeout_s: float) -> None:
    if language != "python":
        raise VerifierInputError(f"language {language!r} is not supported; use 'python'")
    if not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
        raise VerifierInputError(f"timeout_s must be a positive number, got {timeout_s!r}")


def _one_request(
    box: Sandbox,
    code: str,
    suite: Suite,
    timeout_s: float,
    suite_timeout_s: float,
    memory_mb: int | None,
) -> list[Outcome]:
    program = _program(code, suite)
    try:
        if suite.kind == "call":
            results = box.call(
                program,
                suite.fn_name,
                [args for args, _ in suite.cases],
                timeout_s=timeout_s,
                suite_timeout_s=suite_timeout_s,
                memory_mb=memory_mb,
            )
            return [from_call(r, exp, suite) for r, (_, exp) in zip(results, suite.cases, strict=True)]
        records = box.run_tests(
            program,
            list(suite.cases),
            entry_point=suite.fn_name,
            setup=suite.setup,
            timeout_s=timeout_s,
            suite_timeout_s=suite_timeout_s,
            memory_mb=memory_mb,
        )
        return [from_record(r) for r in records]
    except SandboxError as exc:
        return [("error", str(exc))] * len(suite)


def _stdin_outcomes(
    results: Sequence[ExecResult], suite: Suite, timeout_s: float, suite_timeout_s: float, memory_mb: int | None
) -> list[Outcome]:
    outcomes: list[Outcome] = []
    spent = 0.0
    for result, (_, expected) in zip(results, suite.cases, strict=True):
        spent += result.duration_s
        if spent > suite_timeout_s and result.error is None:
            outcomes.append(("timeout", f"the suite ran past {suite_timeout_s:g} s"))
        else:
            outcomes.append(from_exec(result, expected, timeout_s, memory_mb))
    return outcomes


def verify_many(
    tests: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    completions: Sequence[str],
    *,
    sandbox: Sandbox | None = None,
    timeout_s: float = 5.0,
    suite_timeout_s: float = 60.0,
    memory_mb: int | None = None,
    partial_credit: bool = True,
    language: str = "python",
    executor: Executor | None = None,
) -> list[VerifyResult]:
    """`verify` for many completions at once (e.g. a GRPO group), run concurrently.

    ``tests`` is one suite for all completions or a list with one suite per completion.
    ``executor`` judges elsewhere, e.g. ``RayExecutor()`` on the Ray nodes that have Docker
    (see `verifiers.executors`; it brings its own sandboxes, so pass no ``sandbox``).

    Examples:
        >>> verify_many({"fn_name": "f", "inputs": [[2]], "outputs": [4]},
        ...             ["def f(x): return 2 * x", "def f(x): return x"])  # doctest: +SKIP
        [VerifyResult(reward=1.0, ...), VerifyResult(reward=0.0, ...)]
    """
    _check(language, timeout_s)
    suites = _suites(tests, len(completions))
    if executor is not None:  # the suites as given, one per completion: the worker parses them again
        if sandbox is not None:
            raise VerifierInputError("pass sandbox= or executor=, not both (an executor brings its own sandboxes)")
        options: dict[str, Any] = {"timeout_s": timeout_s, "suite_timeout_s": suite_timeout_s, "memory_mb": memory_mb}
        options.update(partial_credit=partial_credit, language=language)
        given = [tests] * len(completions) if isinstance(tests, Mapping) else list(tests)
        return executor.map(WORKLOAD, given, list(completions), options)
    found = [find_code(c) if isinstance(c, str) else (None, "unparseable", "it is not text") for c in completions]
    results: list[VerifyResult | None] = [None] * len(completions)
    work: dict[int, tuple[str, Suite]] = {}
    for k, (code, status, why) in enumerate(found):
        if code is None:
            results[k] = VerifyResult.judged(
                status, f"No code was found in the completion: {why}.", components={"pass_rate": 0.0}
            )
        else:
            work[k] = (code, suites[k])
    if work:
        box = _sandbox(sandbox)
        limits = _Limits(timeout_s, suite_timeout_s, memory_mb)
        stdin = {k: w for k, w in work.items() if w[1].kind == "stdin_stdout"}
        requests = {k: w for k, w in work.items() if w[1].kind != "stdin_stdout"}
        for k, outcomes in [*_run_stdin(box, stdin, limits).items(), *_run_requests(box, requests, limits).items()]:
            results[k] = _result(outcomes, partial_credit, work[k][0])
    return [r for r in results if r is not None]


def _suites(tests: Mapping[str, Any] | Sequence[Mapping[str, Any]], n: int) -> list[Suite]:
    """One suite for each of ``n`` completions: the one given, or one per completion."""
    if isinstance(tests, Mapping):
        return [parse_suite(tests)] * n
    if not isinstance(tests, (list, tuple)):
        return [parse_suite(tests)]  # type: ignore[arg-type]  # raises, naming what was passed
    if len(tests) != n:
        raise VerifierInputError(f"{len(tests)} test suites for {n} completions: pass one suite, or one per completion")
    return [parse_suite(t) for t in tests]


class _Limits(NamedTuple):
    timeout_s: float
    suite_timeout_s: float
    memory_mb: int | None


def _run_stdin(box: Sandbox, work: dict[int, tuple[str, Suite]], limits: _Limits) -> dict[int, list[Outcome]]:
    """stdin/stdout suites: one flat batch of jobs over the whole pool."""
    jobs = [
        Job(code, stdin=inp, timeout_s=limits.timeout_s, memory_mb=limits.memory_mb)
        for code, suite in work.values()
        for inp, _ in suite.cases
    ]
    ran = box.run_many(jobs) if jobs else []
    memory_mb = limits.memory_mb or getattr(box, "memory_mb", None)
    outcomes = {}
    at = 0
    for k, (_, suite) in work.items():
        n = len(suite)
        outcomes[k] = _stdin_outcomes(ran[at : at + n], suite, limits.timeout_s, limits.suite_timeout_s, memory_mb)
        at += n
    return outcomes


def _run_requests(box: Sandbox, work: dict[int, tuple[str, Suite]], limits: _Limits) -> dict[int, list[Outcome]]:
    """Function calls and tests in the tester: one sandbox request per completion, concurrently."""
    if not work:
        return {}
    width = max(1, int(getattr(box, "size", 4)))
    with concurrent.futures.ThreadPoolExecutor(width) as threads:
        done = threads.map(
            lambda w: _one_request(box, w[0], w[1], limits.timeout_s, limits.suite_timeout_s, limits.memory_mb),
            work.values(),
        )
        return dict(zip(work, done, strict=True))


def verify(
    tests: Mapping[str, Any],
    completion: str,
    *,
    sandbox: Sandbox | None = None,
    timeout_s: float = 5.0,
    suite_timeout_s: float = 60.0,
    memory_mb: int | None = None,
    partial_credit: bool = True,
    language: str = "python",
) -> VerifyResult:
    """Run ``tests`` against the program in ``completion`` inside the sandbox.

    ``timeout_s`` bounds each test case and ``suite_timeout_s`` the whole suite. Status:
    "correct" (all passed), "incorrect" (any test failed by the program's fault; the reason
    names the first one), "unparseable" (no code), "error" (the sandbox failed after a retry).
    Raises `VerifierInputError` for malformed ``tests``.

    Examples:
        >>> verify({"asserts": "assert inc(1) == 2", "entry_point": "inc"},
        ...        "def inc(x):\\n    return x + 1")  # doctest: +SKIP
        VerifyResult(reward=1.0, correct=True, status='correct', ...)
    """
    return verify_many(
        tests,
        [completion],
        sandbox=sandbox,
        timeout_s=timeout_s,
        suite_timeout_s=suite_timeout_s,
        memory_mb=memory_mb,
        partial_credit=partial_credit,
        language=language,
    )[0]


def _open_sandbox(cpus: int, containers: int | None = None) -> Sandbox:
    """A worker's sandbox pool on its machine's engine: ``containers`` (default: its CPU count)."""
    from verifiers.sandbox import DockerSandbox

    return DockerSandbox(size=containers)


def _verify_on(
    box: Sandbox | None, tests: list[Any], completions: list[Any], options: dict[str, Any]
) -> list[VerifyResult]:
    return verify_many(tests, completions, sandbox=box, **options)


def _close_sandbox(box: Sandbox) -> None:
    box.close()


WORKLOAD = Workload(
    "code",
    _verify_on,
    open=_open_sandbox,
    close=_close_sandbox,
    needs=Needs(cpu=0, docker=True),
    concurrent=True,
    sweep=sweep_orphans,
)
"""Code judging as a `verifiers.Workload` (what ``verify_many(..., executor=...)`` sends): each
worker holds a `DockerSandbox` pool on its machine's engine, opened once (its containers
started, so a worker that comes up can judge), closed with the worker; its batches run
concurrently over the pool. ``settings``: ``containers``."""
