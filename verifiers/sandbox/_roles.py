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

from verifiers.sandbox._pyshim import install
from verifiers.sandbox._wire import MAX_ANSWER, NotAValue, decode, encode, read_frame, write_frame


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def serve(fn_name: str) -> None:
    req, resp = 3, 4
    import types

    module = types.ModuleType("solution")  # in sys.modules, as an imported module would be (@dataclass
    sys.modules["solution"] = module  # and pickle look their module up there)
    namespace: dict[str, Any] = module.__dict__
    namespace["__file__"] = "solution.py"
    try:
        with open("solution.py", encoding="utf-8") as f:
            code = compile(f.read(), "solution.py", "exec", dont_inherit=True)
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
        target = namespace.get(msg["name"]) if msg.get("name") else fn
        if not callable(target):
            write_frame(resp, {"status": "missing", "detail": f"the program defines no function {msg.get('name')!r}"})
            continue
        try:
            args = [decode(a) for a in msg["args"]]
            kwargs = {str(k): decode(v) for k, v in (msg.get("kwargs") or {}).items()}
            value = target(*args, **kwargs)
            answer = {"status": "ok", "value": encode(value)}
        except BaseException as exc:
            answer = {"status": "crashed", "detail": describe(exc), "type": type(exc).__name__,
                      "message": str(exc)[:2000]}  # fmt: skip
        write_frame(resp, answer)


def proxies(req: int, resp: int, fault: dict[str, Any]) -> Any:
    """``proxy(name)``: a function that calls the program's ``name`` ("": the entry point) across
    the boundary, with plain values only. What goes wrong outside the test code's sight (the
    program died, lacks the name, returned a non-value) is also put in ``fault["record"]``: test
    code may catch what we raise (a bare ``except:``), but the test's record is that fault all
    the same, so our harness never passes for the program."""

    def proxy(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                message: dict[str, Any] = {"name": name, "args": [encode(a) for a in args]}
                if kwargs:
                    message["kwargs"] = {k: encode(v) for k, v in kwargs.items()}
                write_frame(req, message)
                answer = read_frame(resp, MAX_ANSWER)
            except (EOFError, OSError, ValueError):
                fault.setdefault("record", {"status": "crashed", "detail": "the program exited", "restart": True})
                raise SolutionDied("the program exited") from None
            if answer.get("status") == "ok":
                try:
                    return decode(answer["value"])
                except NotAValue as exc:
                    fault.setdefault(
                        "record", {"status": "failed", "detail": f"the result is not a plain value ({exc})"}
                    )
                    raise
            if answer.get("status") == "missing":
                fault.setdefault("record", {"status": "crashed", "detail": answer.get("detail", "")})
                raise SolutionMissing(answer.get("detail", ""))
            raise program_error(answer.get("type", "Exception"), answer.get("detail", ""), answer.get("message"))

        return call

    return proxy


class SolutionDied(BaseException):
    """The solution process exited or stopped answering (ours, not the program's exception)."""


class SolutionMissing(BaseException):
    """The program does not define a name the test code calls (ours, not the program's)."""


def free_names(setup: str, tests: list[str]) -> list[str]:
    """Names the test code uses but never binds: the solution's (each becomes a proxy)."""
    import ast
    import builtins

    loaded: set[str] = set()
    bound = set(dir(builtins))
    for source in [setup, *tests]:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
    return sorted(loaded - bound)


def program_error(kind: str, detail: str, message: str | None = None) -> SolutionError:
    """The program's exception, re-raised in the judge as its own builtin type (so the test's
    ``except ZeroDivisionError:`` catches it) and as a `SolutionError` (so an uncaught one is
    recorded as the program's crash)."""
    import builtins

    base = getattr(builtins, kind, None)
    if isinstance(base, type) and issubclass(base, Exception) and base is not Exception:
        try:
            error: SolutionError = type(kind, (SolutionError, base), {})(kind, detail)
            error.args = (detail,) if message is None else (message,)  # str(e) is the program's message
            return error
        except TypeError:  # a layout conflict (OSError and kin): the plain marker
            pass
    return SolutionError(kind, detail)


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

    fault: dict[str, Any] = {}  # this test's fault outside the test code's sight (see `proxies`)
    proxy = proxies(req, resp, fault)

    namespace: dict[str, Any] = {"__name__": "__judge__", "__builtins__": __builtins__}
    names = free_names(spec.get("setup") or "", tests)
    install(proxy, names, namespace)  # `from solution import f` and `import pytest`, for pytest files
    for name in names:
        if name in sys.stdlib_module_names:  # a module the solution imported, as MBPP's shared namespace has it
            try:
                namespace.setdefault(name, __import__(name))
                continue
            except ImportError:
                pass
        namespace.setdefault(name, proxy(name))
    try:  # the set-up (a pytest module runs whole here, its module-level calls included)
        exec(compile(spec.get("setup") or "", "setup", "exec", dont_inherit=True), namespace)
    except BaseException as exc:
        failure = fault.get("record") or {"status": "failed", "detail": f"the test set-up failed: {describe(exc)}"}
        for _ in tests[first:]:
            write_frame(rec, {"start": True})
            write_frame(rec, failure)
        return
    if spec.get("entry_point"):  # after the set-up: a prompt's stub of the function is not the program's
        namespace[spec["entry_point"]] = proxy("")
    namespace["candidate"] = proxy("")
    for test in tests[first:]:
        write_frame(rec, {"start": True})
        fault.clear()
        try:
            exec(compile(test, "test", "exec", dont_inherit=True), namespace)
            record: dict[str, Any] = {"status": "passed"}
        except SolutionError as exc:
            record = {"status": "crashed", "detail": exc.detail}
        except AssertionError as exc:
            record = {"status": "failed", "detail": f"assertion failed {exc}".strip()}
        except BaseException as exc:
            record = {"status": "failed", "detail": describe(exc)}
        record = fault.get("record", record)
        write_frame(rec, record)
        if record.get("restart"):
            return


class SolutionError(Exception):
    """The solution raised; ``kind`` is its exception type's name."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail
