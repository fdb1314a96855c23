"""The two job roles besides running ``__main__``: the solution server and the test judge.

- ``serve`` runs model code as the job uid and answers function calls with encoded values.
- ``judge`` runs dataset test code as a second uid; the function under test is a proxy whose
  every call crosses to the solution server as encoded values. The job uid cannot read the
  judge's memory, files or pipes, so expected values never reach the model's code.

Part of the in-container program (see `_program`).
"""

from __future__ import annotations

import sys
from typing import Any

from verifiers.sandbox._wire import MAX_ANSWER, NotAValue, decode, encode, read_frame, write_frame


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def serve(fn_name: str) -> None:
    req, resp = 3, 4
    namespace: dict[str, Any] = {"__name__": "solution", "__builtins__": __builtins__}
    try:
        with open("solution.py", encoding="utf-8") as f:
            code = compile(f.read(), "solution.py", "exec")
        del f
        sys.argv = ["solution.py"]
        exec(code, namespace)
        fn = namespace.get(fn_name) if fn_name else None
        if fn_name and not callable(fn) and isinstance(namespace.get("Solution"), type):
            fn = getattr(namespace["Solution"](), fn_name, None)
        if fn_name and not callable(fn):
            raise NameError(f"the program defines no function {fn_name!r}")
    except BaseException as exc:
        write_frame(resp, {"status": "crashed", "detail": describe(exc)})
        return
    write_frame(resp, {"status": "ready"})
    while True:
        try:
            msg = read_frame(req)
        except (EOFError, ValueError):
            return
        try:
            target = namespace.get(msg["name"]) if msg.get("name") else fn
            args = [decode(a) for a in msg["args"]]
            value = target(*args)  # type: ignore[misc]
            answer = {"status": "ok", "value": encode(value)}
        except BaseException as exc:
            answer = {"status": "crashed", "detail": describe(exc), "type": type(exc).__name__}
        write_frame(resp, answer)


class SolutionDied(Exception):
    """The solution process exited or stopped answering."""


def judge() -> None:
    spec = read_frame(3)
    rec, req, resp = 4, 5, 6
    try:
        ready = read_frame(resp, MAX_ANSWER)
    except (EOFError, OSError, ValueError):
        ready = {"status": "crashed", "detail": "the program exited while loading"}
    tests: list[str] = spec["tests"]
    first: int = spec["first"]
    if ready.get("status") != "ready":
        for _ in tests[first:]:
            write_frame(rec, {"start": True})
            write_frame(rec, {"status": "crashed", "detail": ready.get("detail", "did not load")})
        return

    def call(*args: Any) -> Any:
        try:
            write_frame(req, {"args": [encode(a) for a in args]})
            answer = read_frame(resp, MAX_ANSWER)
        except (EOFError, OSError, ValueError):
            raise SolutionDied("the program exited") from None
        if answer.get("status") == "ok":
            return decode(answer["value"])
        raise SolutionError(answer.get("type", "Exception"), answer.get("detail", ""))

    namespace: dict[str, Any] = {"__name__": "__judge__", "__builtins__": __builtins__}
    exec(compile(spec.get("setup") or "", "setup", "exec"), namespace)
    if spec.get("entry_point"):
        namespace[spec["entry_point"]] = call
    namespace["candidate"] = call
    for test in tests[first:]:
        write_frame(rec, {"start": True})
        try:
            exec(compile(test, "test", "exec"), namespace)
            record: dict[str, Any] = {"status": "passed"}
        except SolutionDied as exc:
            write_frame(rec, {"status": "crashed", "detail": str(exc), "restart": True})
            return
        except SolutionError as exc:
            record = {"status": "crashed", "detail": exc.detail}
        except NotAValue as exc:
            record = {"status": "failed", "detail": f"the result is not a plain value ({exc})"}
        except AssertionError as exc:
            record = {"status": "failed", "detail": f"assertion failed {exc}".strip()}
        except BaseException as exc:
            record = {"status": "failed", "detail": describe(exc)}
        write_frame(rec, record)


class SolutionError(Exception):
    """The solution raised; ``kind`` is its exception type's name."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail
