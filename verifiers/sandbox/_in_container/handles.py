"""The tester's stand-ins for the program's objects: `Handle` (an object) and `Remote` (the
metaclass of its classes).

Every use of a `Handle` (a call, a method, an attribute, ``len``, ``bool``, ``str``, ``iter``,
``next``, indexing, ``in``, an operator, ``with``) is a request that runs in the program's
process (through the tester's `link.Link`); what comes back is again data (see `objects`),
type-checked where Python would check it (``bool`` must be a bool, ``len`` an int >= 0, ``str``
a str). A handle never equals a plain value and never ranks against one: the program's
``__eq__`` and ``__lt__`` decide only between two of its own objects, so an object "equal to"
or "less than" everything earns nothing.

What the program's answers can do to the test's control flow, use by use: ``bool``, ``len``,
``in``, ``==`` (between its objects), ``hash``, ``isinstance``, ``str``/``repr``, ``int``/``float``/
``index`` give a value of the checked type or raise ``TypeError`` in the test; ``iter`` gives one
of its objects (or a plain iterator over a plain value), and ``next`` on it may end the
iteration (its ``StopIteration``); every other request that raises ``StopIteration`` or
``StopAsyncIteration`` raises ``RuntimeError`` (see `faults`), so a ``map``, ``filter`` or
generator expression over its functions never ends early; ``with`` runs its ``__enter__`` and
``__exit__`` there, and its ``__exit__`` may swallow the program's errors and the test's own
``Exception``s but never an ``AssertionError`` (the test's verdict) or a ``BaseException``;
``__del__`` runs only in the program's process (its objects live until the job ends), never in the
test's. The test's objects reach the program as copies (see `objects`).

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

from typing import Any


class Handle:
    """An object that stays in the program's process."""

    __slots__ = ("_hid", "_kind", "_methods", "_link", "__weakref__")

    def __init__(self, link: Any, hid: int, kind: str, methods: list[str]) -> None:
        for slot, value in (("_link", link), ("_hid", hid), ("_kind", kind), ("_methods", frozenset(methods))):
            object.__setattr__(self, slot, value)

    def _do(self, what: str, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        return self._link.do(self._hid, what, name, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._methods:
            return lambda *a, **k: self._link.do(self._hid, "call", name, a, k)
        return self._do("getattr", name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._do("setattr", name, value)

    def __delattr__(self, name: str) -> None:
        self._do("delattr", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._link.do(self._hid, "call", None, args, kwargs)

    def __len__(self) -> int:
        return int(self._do("len"))

    def __bool__(self) -> bool:
        return bool(self._do("bool"))

    def __str__(self) -> str:
        return str(self._do("str"))

    def __repr__(self) -> str:
        return str(self._do("repr"))

    def __iter__(self) -> Any:
        it = self._do("iter")
        return it if isinstance(it, Handle) else iter(it)

    def __next__(self) -> Any:
        return self._do("next")

    def __getitem__(self, key: Any) -> Any:
        return self._do("getitem", None, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._do("setitem", None, key, value)

    def __delitem__(self, key: Any) -> None:
        self._do("delitem", None, key)

    def __contains__(self, item: Any) -> bool:
        return bool(self._do("contains", None, item))

    def __eq__(self, other: object) -> bool:
        """Itself; another of the program's objects as the program's ``__eq__`` says (a bool);
        never a plain value (the program cannot make its object equal an expected value)."""
        if other is self:
            return True
        if type(other) is Handle and other._link is self._link:
            return bool(self._do("eq", None, other))
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return int(self._do("hash"))  # the program's (an unhashable object raises TypeError)

    def __int__(self) -> int:
        return int(self._do("int"))

    def __float__(self) -> float:
        return float(self._do("float"))

    def __index__(self) -> int:
        return int(self._do("index"))

    def __enter__(self) -> Any:
        return self._link.do(self._hid, "call", "__enter__", (), {})

    def __exit__(self, kind: Any, value: Any, tb: Any) -> bool:
        import builtins

        base = next((c for c in getattr(kind, "__mro__", ()) if getattr(builtins, c.__name__, None) is c), None)
        swallow = bool(self._link.do(self._hid, "call", "__exit__", (base, None, None), {}))
        return swallow and isinstance(value, Exception) and not isinstance(value, AssertionError)


ORDERINGS = ("lt", "le", "gt", "ge")


def _operator(name: str, reflected: bool = False) -> Any:
    def apply(self: Handle, *other: Any) -> Any:
        with_value = bool(other) and not (type(other[0]) is Handle and other[0]._link is self._link)
        if with_value and name in ORDERINGS:
            return NotImplemented  # unorderable: the program does not rank its object against a value
        result = self._link.do(self._hid, "rop" if reflected else "op", name, other, {})
        if with_value and type(result) is not Handle:  # `abs(f() - expected) < tol` must not pay
            raise TypeError(f"the program's {self._kind} {name} a value gave a plain value, not one of its objects")
        return result

    apply.__name__ = f"__r{name}__" if reflected else f"__{name}__"
    return apply


for _name in (
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
):
    setattr(Handle, f"__{_name}__", _operator(_name))
    setattr(Handle, f"__r{_name}__", _operator(_name, reflected=True))
for _name in ("lt", "le", "gt", "ge", "neg", "pos", "abs", "invert"):
    setattr(Handle, f"__{_name}__", _operator(_name))


class Remote(type):
    """The metaclass of the program's (non-exception) classes in the tester."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.__link__.do(cls.__hid__, "call", None, args, kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return bool(cls.__link__.do(cls.__hid__, "isinstance", None, (obj,), {}))

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return cls.__link__.do(cls.__hid__, "getattr", name, (), {})


def exception_attribute(self: BaseException, name: str) -> Any:
    handle = self.__dict__.get("_handle")
    if handle is None or name.startswith("__"):
        raise AttributeError(name)
    return getattr(handle, name)
