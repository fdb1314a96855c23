"""What the sandbox's answers mean for one test: an `Outcome` (its kind and a detail) from a
program's run on stdin (`from_exec`), a function call's encoded result (`from_call`) or a tester's
record (`from_record`); `KIND` names each failure kind in a verdict's reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from verifiers.code._compare import first_difference
from verifiers.code._tests import Suite
from verifiers.sandbox._host.protocol import ExecResult

__all__ = ["KIND", "Outcome", "from_call", "from_exec", "from_record"]

Outcome = tuple[str, str]  # (kind, detail); kind "passed" or a failure kind
KIND = {
    "wrong_answer": "wrong answer",
    "runtime_error": "runtime error",
    "timeout": "time limit",
    "memory": "memory limit",
    "output_limit": "output limit",
}


def _last_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no error message"


def from_exec(result: ExecResult, expected: str, timeout_s: float, memory_mb: int | None = None) -> Outcome:
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


def from_call(result: Mapping[str, Any], expected: Any, suite: Suite) -> Outcome:
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


def from_record(record: Mapping[str, Any] | None) -> Outcome:
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
