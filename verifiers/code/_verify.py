"""The public functions of `verifiers.code` (re-exported by its ``__init__``): `verify` and
`verify_many`, which run a completion's program against a suite in the sandbox and judge it.
"""

from __future__ import annotations

import concurrent.futures
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from verifiers._workload import Needs, Workload
from verifiers.code._compare import first_difference
from verifiers.code._extract import find_code
from verifiers.code._tests import Suite, parse_suite
from verifiers.errors import SandboxError, VerifierInputError
from verifiers.result import VerifyResult
from verifiers.sandbox._host.engines import sweep_orphans
from verifiers.sandbox._host.protocol import ExecResult, Job, Sandbox

if TYPE_CHECKING:
    from verifiers._workload import Executor

__all__ = ["WORKLOAD", "verify", "verify_many"]

Outcome = tuple[str, str]  # (kind, detail); kind "passed" or a failure kind
_KIND = {
    "wrong_answer": "wrong answer",
    "runtime_error": "runtime error",
    "timeout": "time limit",
    "memory": "memory limit",
    "output_limit": "output limit",
}


def _sandbox(sandbox: Sandbox | None) -> Sandbox:
    if sandbox is not None:
        return sandbox
    from verifiers.sandbox import default_sandbox

    return default_sandbox()


def _last_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no error message"


def _from_exec(result: ExecResult, expected: str, timeout_s: float, memory_mb: int | None = None) -> Outcome:
    if result.error is not None:
        return "error", result.error
    if result.timed_out:
        return "timeout", f"over {timeout_s:g} s"
    if result.oom_killed or (result.exit_code != 0 and _last_line(result.stderr).startswith("MemoryError")):
        return "memory", "the program ran out of memory" + (f" (its limit is {memory_mb} MB)" if memory_mb else "")
    if result.truncated:
        return "output_limit", "the program printed more than the output cap"
    if result.exit_code != 0:
        return "runtime_error", f"exit status {result.exit_code}: {_last_line(result.stderr)}"
    diff = first_difference(expected, result.stdout)
    return ("passed", "") if diff is None else ("wrong_answer", diff)


def _as_json(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    return value


def _same(expected: Any, actual: Any) -> bool:
    """Exact builtin types; ints and floats compare as numbers (floats within 1e-6; ``inf``
    equals ``inf`` of its sign, as the datasets' harnesses have it; ``nan`` equals nothing,
    as in Python)."""
    numbers = (int, float)
    if type(expected) in numbers and type(actual) in numbers:
        if float in (type(expected), type(actual)):
            if math.isinf(expected) or math.isinf(actual):
                return bool(expected == actual)
            return bool(abs(expected - actual) <= 1e-6 * max(1.0, abs(expected)))
        return bool(expected == actual)
    if type(expected) is not type(actual):
        return False
    if isinstance(expected, (list, tuple)):
        return len(expected) == len(actual) and all(map(_same, expected, actual))
    if isinstance(expected, dict):
        return expected.keys() == actual.keys() and all(_same(v, actual[k]) for k, v in expected.items())
    return bool(expected == actual)


def _named_tuple_as_tuple(tagged: Any, depth: int) -> Any:
    """A named tuple result (``["N", [name, fields, values]]``) is a tuple here: it equals one."""
    from verifiers.sandbox._in_container.wire import NotAValue, decode

    if tagged[0] == "N" and isinstance(tagged[1], list) and len(tagged[1]) == 3:
        return tuple(decode(v, depth + 1, _named_tuple_as_tuple) for v in tagged[1][2])
    raise NotAValue("malformed value")


def _from_call(result: Mapping[str, Any], expected: Any, suite: Suite) -> Outcome:
    from verifiers.sandbox._in_container.wire import NotAValue, decode

    status = result.get("status")
    if status in ("timeout", "output_limit", "memory"):
        return str(status), str(result.get("detail", ""))
    if status == "too_large":
        return "wrong_answer", str(result.get("detail", ""))
    if status != "ok":
        return "runtime_error", str(result.get("detail", "the program failed"))
    value = result.get("value")
    if isinstance(value, list) and value[:1] == ["h"] and len(value) > 2:  # an object of the program's
        return "wrong_answer", f"the result is not a plain value (a {str(value[2])[:80]})"

    try:
        actual = decode(value, 0, _named_tuple_as_tuple)
    except (NotAValue, ValueError, TypeError) as exc:
        return "wrong_answer", f"the result is not a plain value ({exc})"
    if suite.json_outputs:
        actual = _as_json(actual)
    ok = _same(expected, actual) or (
        suite.unwrap_outputs and isinstance(expected, list) and len(expected) == 1 and _same(expected[0], actual)
    )
    return ("passed", "") if ok else ("wrong_answer", f"expected {expected!r:.80}, got {actual!r:.80}")


def _from_record(record: Mapping[str, Any] | None) -> Outcome:
    if record is None:
        return "error", "no record"
    status, detail = record.get("status"), str(record.get("detail", ""))
    return {
        "passed": ("passed", ""),
        "failed": ("wrong_answer", detail),
        "crashed": ("runtime_error", detail),
        "timeout": ("timeout", detail),
        "output_limit": ("output_limit", detail),
        "memory": ("memory", detail),
    }.get(str(status), ("error", detail or "the test could not run"))


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
    reason = f"Test {k + 1} of {len(outcomes)} failed: {_KIND.get(kind, kind)}"
    reason += f" ({detail})." if detail else "."
    reward = rate if partial_credit else 0.0
    return VerifyResult.judged("incorrect", reason, extracted=extracted, reward=reward, components=components)


def _check(language: str, timeout_s: float) -> None:
    if language != "python":
        raise VerifierInputError(f"language {language!r} is not supported; use 'python'")
    if not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
        raise VerifierInputError(f"timeout_s must be a positive number, got {timeout_s!r}")


def _judge_one(
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
            return [_from_call(r, exp, suite) for r, (_, exp) in zip(results, suite.cases, strict=True)]
        records = box.judge(
            program,
            list(suite.cases),
            entry_point=suite.fn_name,
            setup=suite.setup,
            timeout_s=timeout_s,
            suite_timeout_s=suite_timeout_s,
            memory_mb=memory_mb,
        )
        return [_from_record(r) for r in records]
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
            outcomes.append(_from_exec(result, expected, timeout_s, memory_mb))
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
    if isinstance(tests, Mapping):
        suites = [parse_suite(tests)] * len(completions)
    elif not isinstance(tests, (list, tuple)):
        suites = [parse_suite(tests)]  # type: ignore[arg-type]  # raises, naming what was passed
    else:
        if len(tests) != len(completions):
            raise VerifierInputError(
                f"{len(tests)} test suites for {len(completions)} completions: pass one suite, or one per completion"
            )
        suites = [parse_suite(t) for t in tests]
    if executor is not None:  # the suites as given, one per completion: the worker parses them again
        if sandbox is not None:
            raise VerifierInputError("pass sandbox= or executor=, not both (an executor brings its own sandboxes)")
        options: dict[str, Any] = {"timeout_s": timeout_s, "suite_timeout_s": suite_timeout_s, "memory_mb": memory_mb}
        options.update(partial_credit=partial_credit, language=language)
        given = [tests] * len(completions) if isinstance(tests, Mapping) else list(tests)
        return executor.map(WORKLOAD, given, list(completions), options)
    found = [find_code(c) if isinstance(c, str) else (None, "unparseable", "it is not text") for c in completions]
    codes = [code for code, _, _ in found]
    results: list[VerifyResult | None] = [None] * len(completions)
    for k, (code, status, why) in enumerate(found):
        if code is None:
            results[k] = VerifyResult.judged(
                status, f"No code was found in the completion: {why}.", components={"pass_rate": 0.0}
            )
    todo = [k for k, code in enumerate(codes) if code is not None]
    if not todo:
        return [r for r in results if r is not None]
    box = _sandbox(sandbox)

    # stdin/stdout: one flat batch of jobs over the whole pool
    stdin_ks = [k for k in todo if suites[k].kind == "stdin_stdout"]
    jobs = [
        Job(str(codes[k]), stdin=inp, timeout_s=timeout_s, memory_mb=memory_mb)
        for k in stdin_ks
        for inp, _ in suites[k].cases
    ]
    ran = box.run_many(jobs) if jobs else []
    at = 0
    for k in stdin_ks:
        n = len(suites[k])
        limit = memory_mb or getattr(box, "memory_mb", None)
        outcomes = _stdin_outcomes(ran[at : at + n], suites[k], timeout_s, suite_timeout_s, limit)
        results[k] = _result(outcomes, partial_credit, str(codes[k]))
        at += n

    # function calls and judged asserts: one sandbox request per completion, concurrently
    other = [k for k in todo if suites[k].kind != "stdin_stdout"]
    if other:
        width = max(1, int(getattr(box, "size", 4)))
        with concurrent.futures.ThreadPoolExecutor(width) as threads:
            done = threads.map(
                lambda k: _judge_one(box, str(codes[k]), suites[k], timeout_s, suite_timeout_s, memory_mb),
                other,
            )
            for k, outcomes in zip(other, done, strict=True):
                results[k] = _result(outcomes, partial_credit, str(codes[k]))
    return [r for r in results if r is not None]


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


def _judge_on(
    box: Sandbox | None, tests: list[Any], completions: list[Any], options: dict[str, Any]
) -> list[VerifyResult]:
    return verify_many(tests, completions, sandbox=box, **options)


def _close_sandbox(box: Sandbox) -> None:
    box.close()


WORKLOAD = Workload(
    "code",
    _judge_on,
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
