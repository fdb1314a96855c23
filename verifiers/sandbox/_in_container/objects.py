"""The solution's side of objects across the boundary: its object table and its codec.

What crosses between the program and the tester is data, never code:

- **plain values** (exact builtin types, see `wire`) as themselves;
- **stdlib containers** from the program (``defaultdict``, ``OrderedDict``, ``Counter`` as a
  dict, ``deque`` as a list); from the tester they arrive as their own types;
- **dataset objects**: an instance of a class the *test code* defines (``ListNode``,
  ``TreeNode``, a graph ``Node``) crosses as its class name and its attributes (plain values or
  other such objects; cycles and sharing kept, at most `MAX_OBJECTS`). The tester rebuilds it
  only as an instance of its own class of that name; the program rebuilds it as its own class
  of that name (or a bare one). An object the tester sent comes back as itself (``["R", k]``),
  so ``f(head) is head`` holds and in-place changes are copied back;
- **handles**: any other object stays in the program's table; the tester gets ``["h", id,
  type name, info]`` and every use of it is a request that runs here.

One exception, before any of this: the *definitions* of the test code's classes that the program
does not define itself (``ListNode``, a ``@dataclass``), stripped to their docstring, fields,
``__slots__`` and special methods, run in the program's namespace before its code (see
`_host.classes`; a class the program defines wins). They carry no instance, no expected value and no
other test code: a definition the task's text gives and a program could write itself, so they let
a right program that uses the dataset's class run, and give a hostile one nothing.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import collections
from typing import Any, cast

from verifiers.sandbox._in_container.wire import NotAValue, decode, encode

MAX_OBJECTS = 100_000  # dataset objects in one message
MAX_METHODS = 256
FACTORIES = {"list": list, "int": int, "set": set, "dict": dict, "str": str, "float": float, "tuple": tuple}


class TooLarge(NotAValue):
    """An answer over a cap on what crosses (objects, bytes): the test fails, naming the cap."""


def attr_name(name: Any) -> bool:
    return isinstance(name, str) and name.isidentifier() and not name.startswith("__")


def builtin_type(tag: Any) -> Any:
    """``["T", name]``: a builtin type (``int``, ``list``, ``ValueError``) crosses by name."""
    import builtins

    value = getattr(builtins, tag, None) if isinstance(tag, str) else None
    if not isinstance(value, type):
        raise NotAValue(f"not a builtin type: {tag!r}")
    return value


def is_builtin_type(value: Any) -> bool:
    import builtins

    return isinstance(value, type) and getattr(builtins, value.__name__, None) is value


_NAMEDTUPLES: dict[tuple[str, tuple[str, ...]], type] = {}


def is_namedtuple(value: Any) -> bool:
    fields = getattr(type(value), "_fields", None)
    return isinstance(value, tuple) and isinstance(fields, tuple) and all(map(attr_name, fields))


def namedtuple_tag(value: Any, depth: int, other: Any) -> list[Any]:
    """``["N", [type name, field names, values]]``: a named tuple crosses as data."""
    name = type(value).__name__ if type(value).__name__.isidentifier() else "Row"
    return ["N", [name, list(type(value)._fields), [encode(v, depth + 1, other) for v in value]]]


def build_namedtuple(arg: Any, depth: int, other: Any) -> Any:
    if not (isinstance(arg, list) and len(arg) == 3 and isinstance(arg[1], list) and isinstance(arg[2], list)):
        raise NotAValue("malformed named tuple")
    name, fields, values = arg
    if not (isinstance(name, str) and name.isidentifier() and all(map(attr_name, fields))):
        raise NotAValue("malformed named tuple")
    if len(fields) != len(values) or len(fields) > 255:
        raise NotAValue("malformed named tuple")
    key = (name, tuple(fields))
    if key not in _NAMEDTUPLES:
        try:
            _NAMEDTUPLES[key] = collections.namedtuple(name, fields)
        except ValueError as exc:
            raise NotAValue(str(exc)) from None
    return _NAMEDTUPLES[key](*(decode(v, depth + 1, other) for v in values))


def exception_base(cls: type) -> str | None:
    """The first builtin class in an exception class's MRO (what the tester honours)."""
    import builtins

    if not issubclass(cls, BaseException):
        return None
    for base in cls.__mro__:
        if getattr(builtins, base.__name__, None) is base:
            return str(base.__name__)
    return "Exception"


def _state(obj: Any) -> dict[str, Any]:
    state = getattr(obj, "__dict__", None)
    return state if isinstance(state, dict) else {}


class Objects:
    """The program's objects the tester holds handles to, and the dataset class names."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.table: dict[int, Any] = {}
        self.hids: dict[int, int] = {}  # id(object) -> handle id (the object is kept alive)
        self.dataset: set[str] = set()  # class names the test code defines
        self.bare: dict[str, type] = {}
        self.methods: dict[type, list[str]] = {}

    def handle(self, value: Any) -> list[Any]:
        hid = self.hids.get(id(value))
        if hid is None:
            hid = len(self.table) + 1
            self.table[hid] = value
            self.hids[id(value)] = hid
        t = type(value)
        info: dict[str, Any] = {"m": self.callables(t)}
        if isinstance(value, type):
            info = {"m": self.callables(value), "class": exception_base(value) or ""}
        return ["h", hid, t.__qualname__ if not isinstance(value, type) else value.__qualname__, info]

    def callables(self, t: type) -> list[str]:
        if t not in self.methods:
            try:
                names = [n for n in dir(t) if not n.startswith("_") and callable(getattr(t, n, None))]
            except Exception:
                names = []
            self.methods[t] = names[:MAX_METHODS]
        return self.methods[t]

    def get(self, hid: Any) -> Any:
        if not isinstance(hid, int) or hid not in self.table:
            raise NotAValue(f"no such object (handle {hid!r}): handles die with the job")
        return self.table[hid]

    def message(self, objects: Any = None) -> Codec:
        return Codec(self, objects or [])


class Codec:
    """One request and its answer: the dataset objects the tester sent (rebuilt here) and the
    ones the answer sends (new ones in `out_objects`, the tester's own as ``["R", k]``)."""

    def __init__(self, objects: Objects, sent: list[Any]) -> None:
        self.objects = objects
        if not isinstance(sent, list) or len(sent) > MAX_OBJECTS:
            raise NotAValue("malformed objects")
        self.sent = [self._blank(entry) for entry in sent]
        self.sent_ids = {id(o): k for k, o in enumerate(self.sent)}
        self.sent_attrs = [entry[1] for entry in sent]
        for obj, (_, attrs) in zip(self.sent, sent, strict=True):
            for name, value in attrs:
                if not attr_name(name):
                    raise NotAValue(f"not an attribute name: {name!r}")
                setattr(obj, name, decode(value, 1, self._in))
        self.out_objects: list[Any] = []
        self._out_ids: dict[int, int] = {}
        self._queue: list[tuple[int, Any]] = []

    def _blank(self, entry: Any) -> Any:
        if not (isinstance(entry, list) and len(entry) == 2 and attr_name(entry[0]) and isinstance(entry[1], list)):
            raise NotAValue("malformed object")
        name = entry[0]
        cls = self.objects.namespace.get(name)
        if not isinstance(cls, type):
            cls = self.objects.bare.setdefault(name, type(name, (), {}))
        try:
            return cast(Any, cls).__new__(cls)
        except TypeError:
            return self.objects.bare.setdefault(name, type(name, (), {}))()

    # -- in: what the tester sent ------------------------------------------------------------
    def decode(self, tagged: Any) -> Any:
        return decode(tagged, 0, self._in)

    def _in(self, tagged: list[Any], depth: int) -> Any:
        tag, arg = tagged[0], tagged[1] if len(tagged) > 1 else None
        if tag == "h":
            return self.objects.get(arg)
        if tag == "T":
            return builtin_type(arg)
        if tag == "N":
            return build_namedtuple(arg, depth, self._in)
        if tag == "r" and isinstance(arg, int) and 0 <= arg < len(self.sent):
            return self.sent[arg]
        if tag in ("q", "C", "O", "dd") and isinstance(arg, list):
            inner = decode(arg[-1], depth + 1, self._in)
            if tag == "q" and isinstance(inner, list):
                return collections.deque(inner, arg[0] if len(arg) == 2 and isinstance(arg[0], int) else None)
            if tag == "C" and isinstance(inner, dict):
                return collections.Counter(inner)
            if tag == "O" and isinstance(inner, dict):
                return collections.OrderedDict(inner)
            if tag == "dd" and isinstance(inner, dict) and len(arg) == 2:
                return collections.defaultdict(FACTORIES.get(arg[0]), inner)
        raise NotAValue("malformed value")

    # -- out: the answer --------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        tagged = encode(value, 0, self._out)
        self.flush()
        return tagged

    def after(self) -> dict[str, Any]:
        """The attributes of each object the tester sent that the call changed, as they are now
        (copied back), by the object's number."""
        out = {}
        for k, obj in enumerate(self.sent):
            items = [(n, v) for n, v in list(_state(obj).items()) if attr_name(n)]
            if [[n, encode(v, 1, self._as_sent)] for n, v in items] != self.sent_attrs[k]:
                out[str(k)] = [[n, encode(v, 1, self._out)] for n, v in items]
        self.flush()
        return out

    def _as_sent(self, value: Any, depth: int) -> Any:
        """Tags as the tester sent them, to tell an unchanged object (anything new differs)."""
        if id(value) in self.sent_ids:
            return ["r", self.sent_ids[id(value)]]
        return ["?"]

    def flush(self) -> None:
        while self._queue:
            ref, value = self._queue.pop()
            attrs = [[n, encode(v, 1, self._out)] for n, v in list(_state(value).items()) if attr_name(n)]
            self.out_objects[ref] = [type(value).__name__, attrs]

    def _out(self, value: Any, depth: int) -> Any:
        t = type(value)
        if t in (collections.defaultdict, collections.OrderedDict, collections.Counter):
            return encode(dict(value), depth, self._out)
        if t is collections.deque:
            return encode(list(value), depth, self._out)
        if is_builtin_type(value):
            return ["T", value.__name__]
        if is_namedtuple(value):
            return namedtuple_tag(value, depth, self._out)
        if id(value) in self.sent_ids:
            return ["R", self.sent_ids[id(value)]]
        if t.__name__ in self.objects.dataset and hasattr(value, "__dict__") and not isinstance(value, type):
            ref = self._out_ids.get(id(value))
            if ref is None:
                if len(self.out_objects) >= MAX_OBJECTS:
                    raise TooLarge(f"the answer has more than {MAX_OBJECTS} objects, the cap on what crosses")
                ref = self._out_ids[id(value)] = len(self.out_objects)
                self.out_objects.append(None)
                self._queue.append((ref, value))
            return ["r", ref]
        return self.objects.handle(value)


def test_classes(namespace: dict[str, Any]) -> None:
    """The test code's class definitions the program lacks (see `_host.classes`), each run in a
    scratch namespace with the test's standard-library imports; a failing one is left out."""
    import builtins
    import json

    try:
        with open(".classes.json", encoding="utf-8") as f:
            shared = json.load(f)
    except OSError:
        return
    scratch: dict[str, Any] = {"__name__": "solution", "__builtins__": builtins}
    for source in shared["imports"]:
        try:
            exec(source, scratch)
        except Exception:
            pass
    for name, source in shared["classes"]:
        try:
            exec(source, scratch)
            namespace[name] = scratch[name]
        except Exception:
            pass
