"""The two job roles besides running ``__main__``: the solution server and the tester (the test process).

- ``serve`` runs model code as the job uid and answers requests: calls by name, operations on
  its objects the tester holds handles to, what a name is. Each answer carries what the call
  printed, the in-place changes to the tester's arguments and the result, all as data
  (`objects`).
- ``tester`` runs dataset test code as a second uid; the program's functions, classes and
  objects are stand-ins whose every use crosses to the solution server (`link`). The job uid
  cannot read the tester's memory, files or pipes, so expected values never reach the model's
  code.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import sys
from typing import Any

from verifiers.sandbox._in_container.console import RequestStdin, request_input
from verifiers.sandbox._in_container.faults import SolutionError
from verifiers.sandbox._in_container.link import Link
from verifiers.sandbox._in_container.objects import Codec, Objects, TooLarge, is_builtin_type, test_classes
from verifiers.sandbox._in_container.pyshim import install
from verifiers.sandbox._in_container.wire import MAX_ANSWER, NotAValue, decode, encode, read_frame, write_frame


def describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"[:500]
    except Exception:  # a __str__ that raises
        return type(exc).__name__


class Printed:
    """``sys.stdout``/``sys.stderr`` during a call: what the call prints goes to the tester with
    the answer (up to `LIMIT` characters; more is passed on to the real stream, where the
    output cap counts it)."""

    LIMIT = 1 << 20
    encoding = "utf-8"

    def __init__(self, real: Any) -> None:
        self.real, self.size = real, 0
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.size + len(text) <= self.LIMIT:
            self.parts.append(text)
            self.size += len(text)
        else:
            self.real.write(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def take(self) -> str:
        text = "".join(self.parts)
        self.parts, self.size = [], 0
        return text


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
        test_classes(namespace)
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
    objects = Objects(namespace)
    out, err = Printed(sys.stdout), Printed(sys.stderr)

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        write_frame(resp, request)
        reply = read_frame(req)
        return reply if isinstance(reply, dict) else {"eof": True}

    import builtins

    stdin, ask_input = RequestStdin(ask), request_input(ask)
    while True:
        try:
            msg = read_frame(req)
        except (EOFError, ValueError):
            return
        if isinstance(msg.get("dataset"), list):
            objects.dataset = {n for n in msg["dataset"] if isinstance(n, str)}
        if "name" not in msg and "op" not in msg:  # a function-call test from the host: output stays counted
            send(resp, respond(msg, objects, fn))
            continue
        real = sys.stdout, sys.stderr, sys.stdin, builtins.input
        # A tester's request: what the call prints goes to the test, what it reads comes from it.
        sys.stdout, sys.stderr, sys.stdin, builtins.input = out, err, stdin, ask_input
        try:
            answer = respond(msg, objects, fn)
        finally:
            sys.stdout, sys.stderr, sys.stdin, builtins.input = real
        answer["out"], answer["err"] = out.take(), err.take()
        send(resp, answer)


def send(resp: int, answer: dict[str, Any]) -> None:
    """An answer to the tester or the host: over `MAX_ANSWER` bytes, or out of memory to encode it,
    it is that failure instead (the same one every time)."""
    try:
        if write_frame(resp, answer, MAX_ANSWER):
            return
        detail = f"the answer is larger than {MAX_ANSWER >> 20} MiB, the cap on what crosses"
        answer = {"status": "too_large", "detail": detail}
    except MemoryError:
        answer = {"status": "crashed", "type": "MemoryError", "detail": "MemoryError: encoding the answer"}
    write_frame(resp, answer)


WHAT: dict[str, Any] = {
    "getattr": lambda o, n, a: getattr(o, n),
    "setattr": lambda o, n, a: setattr(o, n, a[0]),
    "delattr": lambda o, n, a: delattr(o, n),
    "len": lambda o, n, a: len(o),
    "bool": lambda o, n, a: bool(o),
    "str": lambda o, n, a: str(o),
    "repr": lambda o, n, a: repr(o),
    "iter": lambda o, n, a: iter(o),
    "next": lambda o, n, a: next(o),
    "getitem": lambda o, n, a: o[a[0]],
    "setitem": lambda o, n, a: o.__setitem__(a[0], a[1]),
    "delitem": lambda o, n, a: o.__delitem__(a[0]),
    "contains": lambda o, n, a: a[0] in o,
    "isinstance": lambda o, n, a: isinstance(a[0], o),
    "hash": lambda o, n, a: hash(o),
    "eq": lambda o, n, a: o == a[0],
    "int": lambda o, n, a: int(o),
    "float": lambda o, n, a: float(o),
    "index": lambda o, n, a: o.__index__(),
    "op": lambda o, n, a: _OPERATORS[n](o, *a),
    "rop": lambda o, n, a: _OPERATORS[n](a[0], o),
}
_OPERATORS: dict[str, Any] = {}


def _operators() -> None:
    import operator

    for name in (
        "add",
        "sub",
        "mul",
        "truediv",
        "floordiv",
        "mod",
        "pow",
        "matmul",
        "and",
        "or",
        "xor",
        "lshift",
        "rshift",
        "lt",
        "le",
        "gt",
        "ge",
        "neg",
        "pos",
        "abs",
        "invert",
    ):
        _OPERATORS[name] = getattr(operator, f"{name}_" if name in ("and", "or") else name)


_operators()


def respond(msg: dict[str, Any], objects: Objects, fn: Any) -> dict[str, Any]:
    """One request from the tester: a call by name, an operation on a handle, or what names are."""
    namespace = objects.namespace
    try:
        codec = objects.message(msg.get("objects"))
        args = [codec.decode(a) for a in msg.get("args") or []]
        kwargs = {str(k): codec.decode(v) for k, v in (msg.get("kwargs") or {}).items()}
        if msg.get("op") == "kinds":
            kinds = {
                n: ["missing"]
                if n not in namespace
                else ["fn"]
                if isinstance(namespace[n], FUNCTIONS)
                else codec.encode(namespace[n])
                for n in msg.get("names") or []
                if isinstance(n, str)
            }
            return {"status": "ok", "kinds": kinds, "objects": codec.out_objects}
        if msg.get("op") == "do":
            what, name = msg.get("what"), msg.get("name")
            try:
                obj = objects.get(msg.get("h"))
            except NotAValue as exc:
                return {"status": "missing", "detail": str(exc)}
            if what == "call":
                target = getattr(obj, name) if isinstance(name, str) else obj
                value = target(*args, **kwargs)
            elif what in WHAT and (isinstance(name, str) or what not in ("getattr", "setattr", "delattr", "op", "rop")):
                if what in ("op", "rop") and name not in _OPERATORS:
                    return {"status": "missing", "detail": f"no operator {name!r}"}
                value = WHAT[what](obj, name, args)
            else:
                return {"status": "missing", "detail": f"no operation {what!r}"}
        else:
            target = namespace.get(msg["name"]) if msg.get("name") else fn
            if not callable(target):
                return {"status": "missing", "detail": f"the program defines no function {msg.get('name')!r}"}
            value = target(*args, **kwargs)
        answer = {"status": "ok", "value": codec.encode(value)}
        copy_back(answer, codec, msg, args, kwargs)
        answer["objects"] = codec.out_objects
        return answer
    except TooLarge as exc:
        return {"status": "too_large", "detail": str(exc)}
    except BaseException as exc:
        answer = {"status": "crashed", "detail": describe(exc), "type": type(exc).__name__, "message": _message(exc)}
        try:
            decode(encode(exc.args))  # the args cross when they are plain values
            answer["args"] = encode(exc.args)
        except Exception:
            pass
        if not is_builtin_type(type(exc)):
            answer["class"], answer["exc"] = objects.handle(type(exc)), objects.handle(exc)
        return answer


FUNCTIONS = (type(describe), type(len))


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:2000]
    except Exception:
        return ""


def copy_back(
    answer: dict[str, Any], codec: Codec, msg: dict[str, Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    """In-place changes to the tester's arguments: its dataset objects' attributes as they are
    now, and each mutable builtin argument whose value changed."""
    if codec.sent:
        answer["after"] = codec.after()
    mut: dict[str, Any] = {}
    sent, sent_kwargs = msg.get("args") or [], msg.get("kwargs") or {}
    for key, value, before in [
        *((str(i), a, t) for i, (a, t) in enumerate(zip(args, sent, strict=False))),
        *((k, v, sent_kwargs.get(k)) for k, v in kwargs.items()),
    ]:
        if type(value) in (list, dict, set):
            now = codec.encode(value)
            if now != before:
                mut[key] = now
    if mut:
        answer["mut"] = mut


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


def tester() -> None:
    """The tester process: the test set-up, then each test from ``first`` on, each a ``start``
    frame and its record on fd 4; the program is reached over fds 5 and 6 (see `link`)."""
    spec = read_frame(3)
    rec, req, resp = 4, 5, 6
    try:
        ready = read_frame(resp, MAX_ANSWER)
    except (EOFError, OSError, ValueError):
        ready = {"status": "crashed", "detail": "the program exited while loading"}
    tests: list[str] = spec["tests"][spec["first"] :]
    if ready.get("status") != "ready":
        record_all(rec, tests, {"status": "crashed", "detail": ready.get("detail", "did not load")})
        return

    # This test's fault outside the test code's sight: what goes wrong in our harness (the
    # program died, lacks a name, returned a malformed value) is put in ``fault["record"]`` by
    # the link. Test code may catch what we raise (a bare ``except:``), but the test's record is
    # that fault all the same, so our harness never passes for the program.
    fault: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__name__": "__tester__", "__builtins__": __builtins__}
    link = Link(req, resp, fault, namespace)
    remote = bind_names(link, spec.get("setup") or "", spec["tests"], namespace)
    try:  # the set-up (a pytest module runs whole here, its module-level calls included)
        for name, value in link.resolve(remote).items():  # functions, classes, values, handles
            namespace.setdefault(name, value)
        exec(compile(spec.get("setup") or "", "setup", "exec", dont_inherit=True), namespace)
    except BaseException as exc:
        failure = fault.get("record") or {"status": "failed", "detail": f"the test set-up failed: {describe(exc)}"}
        record_all(rec, tests, failure)
        return
    if spec.get("entry_point"):  # after the set-up: a prompt's stub of the function is not the program's
        namespace[spec["entry_point"]] = link.proxy("")
    namespace["candidate"] = link.proxy("")
    run_tests(rec, tests, namespace, fault)


def record_all(rec: int, tests: list[str], record: dict[str, Any]) -> None:
    """The same record for each of ``tests`` (none of them could run)."""
    for _ in tests:
        write_frame(rec, {"start": True})
        write_frame(rec, record)


def bind_names(link: Link, setup: str, tests: list[str], namespace: dict[str, Any]) -> list[str]:
    """Bind the names the test code uses but never binds: the pytest shims, ``typing``'s
    generics, standard modules; returns the rest, the program's (for `Link.resolve`)."""
    import typing

    names = free_names(setup, tests)
    install(link, names, namespace)  # `from solution import f` and `import pytest`, for pytest files
    remote = []
    for name in names:
        if name in typing.__all__ and name[:1].isupper():  # List[int] in the test's annotations
            namespace.setdefault(name, getattr(typing, name))
            continue
        if name in sys.stdlib_module_names:  # a module the solution imported, as MBPP's shared namespace has it
            try:
                namespace.setdefault(name, __import__(name))
                continue
            except ImportError:
                pass
        remote.append(name)
    return remote


def run_tests(rec: int, tests: list[str], namespace: dict[str, Any], fault: dict[str, Any]) -> None:
    """Run each test statement in ``namespace``; its record is our harness's fault if there was
    one, else what the test did. Stops after a record that asks for a fresh program."""
    for test in tests:
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
        sys.stdout.flush()  # what the test printed is counted with this test
        write_frame(rec, record)
        if record.get("restart"):
            return
