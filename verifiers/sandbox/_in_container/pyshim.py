"""Plain pytest files in the tester: a ``solution`` module of proxies and a small ``pytest``.

A pytest-style suite is a test module that does ``from solution import f`` (or ``import
solution``) and defines ``test_*`` functions and ``Test*`` classes. In the tester, ``solution``
is a module whose every attribute is a proxy that calls the program's function of that name
across the boundary; ``pytest`` is real pytest when the image has it, else this compatible
subset: ``mark.parametrize`` (stacked: the product), other marks (no-ops), ``approx``
(numbers and sequences of numbers), ``raises`` (type and ``match=``), ``fixture`` (plain and
generator fixtures, by argument name), ``skip``/``fail``. Each ``test_*`` function (each method
of a test class, on a fresh instance) is one test; its parametrized cases must all pass.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import itertools
import re
import sys
import types
from collections.abc import Callable
from typing import Any

PYTEST_CASE = "__pytest_case__"


def solution_module(resolve: Callable[[list[str]], dict[str, Any]], names: list[str]) -> types.ModuleType:
    module = types.ModuleType("solution")
    module.__all__ = [n for n in names if not n.startswith("__")]  # type: ignore[attr-defined]  # `from solution import *` gets the names used
    seen: dict[str, Any] = {}

    def attribute(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in seen:
            seen.update(resolve([name]))
        return seen[name]

    module.__getattr__ = attribute  # type: ignore[method-assign]  # PEP 562
    return module


class _Approx:
    def __init__(self, expected: Any, rel: float | None = None, abs: float | None = None) -> None:
        self.expected, self.rel, self.abs = expected, 1e-6 if rel is None else rel, 1e-12 if abs is None else abs

    def _close(self, e: Any, a: Any) -> bool:
        if isinstance(e, (list, tuple)):
            return isinstance(a, (list, tuple)) and len(a) == len(e) and all(map(self._close, e, a))
        if isinstance(e, dict):
            return isinstance(a, dict) and a.keys() == e.keys() and all(self._close(e[k], a[k]) for k in e)
        try:
            return bool(a == e or abs(a - e) <= max(self.rel * abs(e), self.abs))
        except TypeError:
            return False

    def __eq__(self, actual: object) -> bool:
        return self._close(self.expected, actual)

    def __repr__(self) -> str:
        return f"approx({self.expected!r})"


class _Raises:
    def __init__(self, kind: Any, match: str | None = None) -> None:
        self.kind, self.pattern = kind, match

    def __enter__(self) -> _Raises:
        return self

    def __exit__(self, kind: Any, value: Any, tb: Any) -> bool:
        self.type, self.value = kind, value  # ExceptionInfo's .type and .value
        if kind is None:
            raise AssertionError(f"DID NOT RAISE {getattr(self.kind, '__name__', self.kind)}")
        if not issubclass(kind, self.kind):
            return False
        if self.pattern is not None:
            self.match(self.pattern)
        return True

    def match(self, pattern: str) -> bool:
        """ExceptionInfo.match: the message matches ``pattern`` (re.search)."""
        if not re.search(pattern, str(self.value)):
            raise AssertionError(f"the exception {self.value} does not match {pattern!r}")
        return True


def _raises(kind: Any, *call: Any, match: str | None = None, **kwargs: Any) -> Any:
    """``pytest.raises(E)`` as a context manager, or ``pytest.raises(E, fn, *args)`` called."""
    raises = _Raises(kind, match)
    if not call:
        return raises
    with raises:
        call[0](*call[1:], **kwargs)
    return raises


class _Marks:
    def parametrize(self, names: Any, values: Any, **_: Any) -> Callable[[Any], Any]:
        keys = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = [dict(zip(keys, v if len(keys) > 1 else (v,), strict=True)) for v in values]

        def mark(fn: Any) -> Any:
            fn.__grpo_params__ = [rows, *getattr(fn, "__grpo_params__", [])]
            return fn

        return mark

    def __getattr__(self, name: str) -> Any:  # skip, slow, timeout, ...: run as written
        def mark(*args: Any, **_: Any) -> Any:
            if len(args) == 1 and callable(args[0]):
                return args[0]
            return lambda fn: fn

        return mark


class CaptureResult(tuple):  # type: ignore[type-arg]
    """``readouterr()``'s ``(out, err)``, also as ``.out`` and ``.err``."""

    out = property(lambda self: self[0])
    err = property(lambda self: self[1])


class Capture:
    """The ``capsys`` fixture: the test's ``sys.stdout``/``sys.stderr`` (where what the
    program prints during a call goes, see `link`) until the test ends."""

    def __init__(self) -> None:
        import io

        self.saved = sys.stdout, sys.stderr
        self.out, self.err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = self.out, self.err

    def readouterr(self) -> CaptureResult:
        import io

        result = CaptureResult((self.out.getvalue(), self.err.getvalue()))
        self.out, self.err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = self.out, self.err
        return result

    def restore(self) -> Any:
        yield None
        sys.stdout, sys.stderr = self.saved


_UNSET = object()


class MonkeyPatch:
    """The ``monkeypatch`` fixture, for the test's own process: ``setattr`` (also as
    ``"module.attr"``), ``delattr``, ``setitem``, ``delitem``, ``setenv``, ``delenv``, ``chdir``,
    undone when the test ends. The program is another process: what it reads through
    ``input()`` and ``sys.stdin`` follows the test's patched ones (see `console`), nothing else
    it sees is patched."""

    def __init__(self) -> None:
        self.undo_list: list[Callable[[], None]] = []

    def setattr(self, target: Any, name: Any, value: Any = _UNSET, raising: bool = True) -> None:
        if value is _UNSET:  # setattr("os.path.sep", value)
            import importlib

            value, (path, name) = name, target.rsplit(".", 1)
            parts = path.split(".")
            target = importlib.import_module(parts[0])
            for part in parts[1:]:
                target = getattr(target, part)
        old = getattr(target, name, _UNSET)
        if old is _UNSET and raising:
            raise AttributeError(f"{target!r} has no attribute {name!r}")
        self.undo_list.append(lambda: delattr(target, name) if old is _UNSET else setattr(target, name, old))
        setattr(target, name, value)

    def delattr(self, target: Any, name: str, raising: bool = True) -> None:
        if not hasattr(target, name):
            if raising:
                raise AttributeError(name)
            return
        old = getattr(target, name)
        self.undo_list.append(lambda: setattr(target, name, old))
        delattr(target, name)

    def setitem(self, mapping: Any, key: Any, value: Any) -> None:
        old = mapping.get(key, _UNSET)
        self.undo_list.append(lambda: mapping.pop(key, None) if old is _UNSET else mapping.__setitem__(key, old))
        mapping[key] = value

    def delitem(self, mapping: Any, key: Any, raising: bool = True) -> None:
        if key not in mapping:
            if raising:
                raise KeyError(key)
            return
        old = mapping[key]
        self.undo_list.append(lambda: mapping.__setitem__(key, old))
        del mapping[key]

    def setenv(self, name: str, value: Any, prepend: str | None = None) -> None:
        import os

        value = str(value)
        if prepend and name in os.environ:
            value = value + prepend + os.environ[name]
        self.setitem(os.environ, name, value)

    def delenv(self, name: str, raising: bool = True) -> None:
        import os

        self.delitem(os.environ, name, raising)

    def chdir(self, path: Any) -> None:
        import os

        old = os.getcwd()
        self.undo_list.append(lambda: os.chdir(old))
        os.chdir(path)

    def undo(self) -> None:
        while self.undo_list:
            self.undo_list.pop()()

    def restore(self) -> Any:
        yield None
        self.undo()


class Skipped(Exception):
    """``pytest.skip()``: a skipped test does not pass."""


def pytest_module() -> types.ModuleType:
    try:
        import pytest  # the real one, where the image has it

        return pytest
    except ImportError:
        pass
    shim = types.ModuleType("pytest")
    shim.mark = _Marks()  # type: ignore[attr-defined]
    shim.approx = _Approx  # type: ignore[attr-defined]
    shim.raises = _raises  # type: ignore[attr-defined]
    shim.fixture = lambda fn=None, **_: (lambda f: _fixture(f)) if fn is None else _fixture(fn)  # type: ignore[attr-defined]

    def skip(reason: str = "") -> None:
        raise Skipped(reason)

    def fail(reason: str = "") -> None:
        raise AssertionError(reason)

    shim.skip, shim.fail = skip, fail  # type: ignore[attr-defined]
    return shim


def _fixture(fn: Any) -> Any:
    fn.__grpo_fixture__ = True
    return fn


class PrintedText:
    """What was printed inside a ``with printed() as out:`` block: ``out.text``, ``out.err``."""

    def __init__(self) -> None:
        self.text = self.err = ""


def tester_module() -> types.ModuleType:
    """``tester``: helpers for test code. ``printed()`` captures what the program (and the
    test) prints inside the block, for suites without pytest's ``capsys``."""
    import contextlib

    module = types.ModuleType("tester")

    @contextlib.contextmanager
    def printed() -> Any:
        capture, seen = Capture(), PrintedText()
        try:
            yield seen
        finally:
            seen.text, seen.err = capture.readouterr()
            sys.stdout, sys.stderr = capture.saved

    module.printed = printed  # type: ignore[attr-defined]
    return module


def install(link: Any, names: list[str], namespace: dict[str, Any]) -> None:
    """Make ``solution``, ``pytest`` and ``tester`` importable and give the namespace its case
    runner."""
    sys.modules["solution"] = solution_module(link.resolve, names)
    sys.modules["tester"] = tester_module()
    sys.modules.setdefault("pytest", pytest_module())
    namespace[PYTEST_CASE] = lambda name: run_case(namespace, name)


def run_case(namespace: dict[str, Any], name: str) -> None:
    """Run one test function (or ``Class::method``) with each of its parametrized cases."""
    if "::" in name:
        cls_name, method = name.split("::", 1)
        fn = getattr(namespace[cls_name](), method)
    else:
        fn = namespace[name]
    layers = getattr(fn, "__grpo_params__", None) or [[{}]]
    code = getattr(fn, "__code__", None) or fn.__func__.__code__
    wanted = [a for a in code.co_varnames[: code.co_argcount] if a != "self"]
    for combo in itertools.product(*layers):
        kwargs: dict[str, Any] = {}
        for part in combo:
            kwargs.update(part)
        cleanups = []
        for arg in wanted:
            if arg in ("capsys", "capfd", "monkeypatch") and arg not in kwargs and arg not in namespace:
                fixture: Any = MonkeyPatch() if arg == "monkeypatch" else Capture()
                restore = fixture.restore()
                next(restore)
                cleanups.append(restore)
                kwargs[arg] = fixture
            elif arg not in kwargs and getattr(namespace.get(arg), "__grpo_fixture__", False):
                value = namespace[arg]()
                if isinstance(value, types.GeneratorType):
                    cleanups.append(value)
                    value = next(value)
                kwargs[arg] = value
        try:
            fn(**kwargs)
        finally:
            for gen in cleanups:
                next(gen, None)
