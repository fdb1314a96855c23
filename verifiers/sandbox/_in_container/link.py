"""The tester's connection to the program: calls by name, operations on handles, and the
codec of one request (dataset objects out as attributes, answers rebuilt as the tester's own
classes, in-place changes copied back).

The program's classes are tester classes (`handles.Remote`) whose calls and ``isinstance``
checks run over there; its exception classes are real exception classes here (their builtin
bases honoured) so ``except`` and ``pytest.raises`` work.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import collections
import sys
from typing import Any, cast

from verifiers.sandbox._in_container.console import feed
from verifiers.sandbox._in_container.faults import (
    ITERATION_ENDS,
    SolutionDied,
    SolutionError,
    SolutionMissing,
    program_error,
)
from verifiers.sandbox._in_container.handles import Handle, Remote, exception_attribute
from verifiers.sandbox._in_container.objects import (
    FACTORIES,
    MAX_OBJECTS,
    attr_name,
    build_namedtuple,
    builtin_type,
    is_builtin_type,
    is_namedtuple,
    namedtuple_tag,
)
from verifiers.sandbox._in_container.wire import MAX_ANSWER, NotAValue, decode, encode, read_frame, write_frame

CHECKS: dict[str, tuple[type, ...]] = {
    "len": (int,),
    "bool": (bool,),
    "contains": (bool,),
    "isinstance": (bool,),
    "str": (str,),
    "repr": (str,),
    "hash": (int,),
    "eq": (bool,),
    "int": (int,),
    "index": (int,),
    "float": (float,),
}


class Link:
    """The tester's connection to the program: calls by name and operations on handles."""

    def __init__(self, req: int, resp: int, fault: dict[str, Any], namespace: dict[str, Any]) -> None:
        self.req, self.resp, self.fault, self.namespace = req, resp, fault, namespace
        self.known: dict[int, Any] = {}  # handle id -> Handle or class
        self.dataset: frozenset[str] = frozenset()
        self.dead = False
        import builtins

        self.original_input = builtins.input  # a test that patches it answers the program's input()

    def proxy(self, name: str) -> Any:
        """A function that calls the program's ``name`` ("": the entry point)."""
        return lambda *args, **kwargs: self.exchange({"name": name}, args, kwargs)

    def do(self, hid: int, what: str, name: str | None, args: Any, kwargs: Any) -> Any:
        value = self.exchange({"op": "do", "h": hid, "what": what, "name": name}, tuple(args), kwargs)
        if what in CHECKS and not isinstance(value, CHECKS[what]):
            raise TypeError(f"the program's {what}() returned a {type(value).__name__}")
        if what == "len" and value < 0:
            raise ValueError("the program's len() returned a negative number")
        return value

    def resolve(self, names: list[str]) -> dict[str, Any]:
        """What each of the program's ``names`` is here: a proxy (a function, or a name it
        lacks), one of its classes, a handle, or a plain value."""
        out = {name: self.proxy(name) for name in names}
        if not names:
            return out
        try:
            kinds = self.exchange({"op": "kinds", "names": names}, (), {})
        except (NotAValue, SolutionError):
            return out
        if isinstance(kinds, dict):
            for name, kind in kinds.items():
                if name in out and kind not in ("fn", "missing"):
                    out[name] = kind[0] if isinstance(kind, tuple) else kind
        return out

    # -- one request and its answer ----------------------------------------------------------
    def exchange(self, message: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.dead:
            raise SolutionDied("the program exited (its objects died with it)")
        codec = RequestCodec(self)
        try:
            message["args"] = [codec.encode(a) for a in args]
            if kwargs:
                message["kwargs"] = {k: codec.encode(v) for k, v in kwargs.items()}
        except (NotAValue, RecursionError) as exc:
            detail = str(exc) if isinstance(exc, NotAValue) else "an argument is nested too deeply"
            self.fault.setdefault("record", {"status": "failed", "detail": detail})
            raise NotAValue(detail) from None
        message["objects"] = codec.table()
        dataset = frozenset(
            n
            for n, v in list(self.namespace.items())
            if isinstance(v, type) and v.__module__ == "__tester__" and not isinstance(v, Remote)
        )
        if dataset != self.dataset:
            message["dataset"], self.dataset = sorted(dataset), dataset
        try:
            write_frame(self.req, message)
            answer = read_frame(self.resp, MAX_ANSWER)
            while isinstance(answer, dict) and answer.get("status") in ("stdin", "input"):  # the program reads
                write_frame(self.req, feed(answer, self.original_input))
                answer = read_frame(self.resp, MAX_ANSWER)
        except (EOFError, OSError, ValueError):
            self.dead = True
            self.fault.setdefault("record", {"status": "crashed", "detail": "the program exited", "restart": True})
            raise SolutionDied("the program exited") from None
        for stream, key in ((sys.stdout, "out"), (sys.stderr, "err")):
            if isinstance(answer.get(key), str) and answer[key]:
                stream.write(answer[key])  # what the call printed, where the test's output goes now
        status = answer.get("status")
        if status == "ok":
            try:
                return codec.answer(answer, args, kwargs)
            except NotAValue as exc:
                self.fault.setdefault(
                    "record", {"status": "failed", "detail": f"the result is not a plain value ({exc})"}
                )
                raise
        if status == "missing":
            self.fault.setdefault("record", {"status": "crashed", "detail": answer.get("detail", "")})
            raise SolutionMissing(answer.get("detail", ""))
        if status == "too_large":  # over a cap on what crosses: the test fails, whatever it catches
            self.fault.setdefault("record", {"status": "failed", "detail": answer.get("detail", "")})
            raise NotAValue(answer.get("detail", ""))
        if answer.get("type") == "MemoryError":  # out of memory: the test fails, whatever it catches
            self.fault.setdefault("record", {"status": "memory", "detail": "the program ran out of memory"})
        raise self.error(answer, message.get("what") == "next")

    def error(self, answer: dict[str, Any], advancing: bool = False) -> BaseException:
        """The program's exception as the tester raises it (see `faults`): ``advancing`` when
        the request was ``next()`` on one of its iterators, the one place an iteration may end."""
        kind, detail, message = answer.get("type", "Exception"), answer.get("detail", ""), answer.get("message")
        try:
            args = decode(answer["args"]) if "args" in answer else None
        except NotAValue:
            args = None
        tagged = answer.get("class")
        if not (isinstance(tagged, list) and tagged[:1] == ["h"]):
            return program_error(kind, detail, message, args, advancing)
        base = tagged[3].get("class") if len(tagged) > 3 and isinstance(tagged[3], dict) else None
        if base in ITERATION_ENDS and not advancing:  # its own StopIteration subclass, from a call
            return program_error(base, detail, message, args)
        try:
            cls = self.handle(tagged)
            error: SolutionError = cls(kind, detail).became(detail, message, args)
            if isinstance(answer.get("exc"), list):
                error.__dict__["_handle"] = self.handle(answer["exc"])
            return error
        except (NotAValue, TypeError, AttributeError):
            return program_error(kind, detail, message, args)

    def handle(self, tagged: list[Any]) -> Any:
        """The tester's object for a handle: the same object each time the same one comes."""
        _, hid, name, info = (tagged + [None] * 4)[:4]
        if not isinstance(hid, int) or not isinstance(name, str) or not isinstance(info, dict):
            raise NotAValue("malformed handle")
        if hid in self.known:
            return self.known[hid]
        methods = [m for m in info.get("m") or [] if isinstance(m, str)]
        base = info.get("class")
        name = name.rsplit(".", 1)[-1] if name.rsplit(".", 1)[-1].isidentifier() else "ProgramObject"
        if isinstance(base, str) and base:  # one of its exception classes
            import builtins

            builtin = getattr(builtins, base, None)
            bases: tuple[type, ...] = (SolutionError,)
            if isinstance(builtin, type) and issubclass(builtin, Exception) and builtin is not Exception:
                bases = (SolutionError, builtin)
            try:
                obj: Any = type(name, bases, {"__getattr__": exception_attribute, "__module__": "solution"})
            except TypeError:
                obj = type(name, (SolutionError,), {"__getattr__": exception_attribute, "__module__": "solution"})
        elif base is not None:  # one of its classes
            obj = Remote(name, (), {"__link__": self, "__hid__": hid, "__module__": "solution"})
        else:
            obj = Handle(self, hid, name, methods)
        self.known[hid] = obj
        return obj


def update_in_place(old: Any, new: Any) -> Any:
    """``new``'s contents in ``old`` where both are the same mutable builtin kind (so the test's
    references see the program's in-place changes); else ``new``."""
    if type(old) is not type(new) or old is new:
        return new
    if type(old) is list:
        kept = [update_in_place(o, n) for o, n in zip(old, new, strict=False)]
        old[:] = kept + new[len(kept) :]
        return old
    if type(old) is dict:
        items = [(k, update_in_place(old[k], v) if k in old else v) for k, v in new.items()]
        old.clear()
        old.update(items)
        return old
    if type(old) is set:
        old.clear()
        old.update(new)
        return old
    return new


class RequestCodec:
    """One request's dataset objects (sent as copies, ``["r", k]``) and its answer's."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.sent: list[Any] = []
        self.ids: dict[int, int] = {}
        self.queue: list[int] = []

    def encode(self, value: Any) -> Any:
        return encode(value, 0, self._out)

    def table(self) -> list[Any]:
        out: list[Any] = []
        while len(out) < len(self.sent):  # an object's attributes may send more objects
            obj = self.sent[len(out)]
            out.append(
                [type(obj).__name__, [[n, encode(v, 1, self._out)] for n, v in vars(obj).items() if attr_name(n)]]
            )
        return out

    def _out(self, value: Any, depth: int) -> Any:
        t = type(value)
        if t is Handle:
            return ["h", value._hid]
        if is_builtin_type(value):
            return ["T", value.__name__]
        if is_namedtuple(value):
            return namedtuple_tag(value, depth, self._out)
        if isinstance(value, Remote) or (isinstance(value, type) and issubclass(value, SolutionError)):
            hid = next((h for h, v in self.link.known.items() if v is value), None)
            if hid is not None:
                return ["h", hid]
        if t is collections.deque:
            return ["q", [value.maxlen, encode(list(value), depth + 1, self._out)]]
        if t is collections.Counter:
            return ["C", [encode(dict(value), depth + 1, self._out)]]
        if t is collections.OrderedDict:
            return ["O", [encode(dict(value), depth + 1, self._out)]]
        if t is collections.defaultdict:
            factory = next((n for n, f in FACTORIES.items() if f is value.default_factory), None)
            return ["dd", [factory, encode(dict(value), depth + 1, self._out)]]
        if (
            getattr(t, "__module__", None) == "__tester__"
            and hasattr(value, "__dict__")
            and not isinstance(value, type)
        ):
            if id(value) not in self.ids:
                if len(self.sent) >= MAX_OBJECTS:
                    raise NotAValue(f"the test passes more than {MAX_OBJECTS} objects")
                self.ids[id(value)] = len(self.sent)
                self.sent.append(value)
            return ["r", self.ids[id(value)]]
        raise NotAValue(
            f"the test passes a {t.__module__}.{t.__qualname__} to the program: only values, the test's own"
            " objects (their attributes) and the program's objects cross"
        )

    # -- the answer ---------------------------------------------------------------------------
    def answer(self, answer: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        table = answer.get("objects") or []
        if not isinstance(table, list) or len(table) > MAX_OBJECTS:
            raise NotAValue("malformed objects")
        self.made = [self._blank(entry) for entry in table]
        for obj, (_, attrs) in zip(self.made, table, strict=True):
            self._fill(obj, attrs)
        after = answer.get("after") or {}
        if not isinstance(after, dict):
            raise NotAValue("malformed copy-back")
        for key, attrs in after.items():  # the objects the call changed
            if not (isinstance(key, str) and key.isdigit() and int(key) < len(self.sent)):
                raise NotAValue("malformed copy-back")
            self._fill(self.sent[int(key)], attrs, replace=True)
        for key, tagged in (answer.get("mut") or {}).items():
            place = args[int(key)] if key.isdigit() and int(key) < len(args) else kwargs.get(key)
            if place is not None:
                update_in_place(place, self.decode(tagged))
        if answer.get("kinds") is not None:
            raw = answer["kinds"]
            return {n: (k[0] if k in (["fn"], ["missing"]) else (self.decode(k),)) for n, k in raw.items()}
        return self.decode(answer.get("value"))

    def decode(self, tagged: Any) -> Any:
        return decode(tagged, 0, self._in)

    def _in(self, tagged: list[Any], depth: int) -> Any:
        tag, arg = tagged[0], tagged[1] if len(tagged) > 1 else None
        if tag == "h":
            return self.link.handle(tagged)
        if tag == "T":
            return builtin_type(arg)
        if tag == "N":
            return build_namedtuple(arg, depth, self._in)
        if tag == "r" and isinstance(arg, int) and 0 <= arg < len(self.made):
            return self.made[arg]
        if tag == "R" and isinstance(arg, int) and 0 <= arg < len(self.sent):
            return self.sent[arg]
        raise NotAValue("malformed value")

    def _blank(self, entry: Any) -> Any:
        if not (isinstance(entry, list) and len(entry) == 2 and attr_name(entry[0]) and isinstance(entry[1], list)):
            raise NotAValue("malformed object")
        cls = self.link.namespace.get(entry[0])
        if not (isinstance(cls, type) and cls.__module__ == "__tester__" and not isinstance(cls, Remote)):
            raise NotAValue(f"a {entry[0]} is not a class the test code defines")
        return cast(Any, cls).__new__(cls)

    def _fill(self, obj: Any, attrs: Any, replace: bool = False) -> None:
        if not isinstance(attrs, list):
            raise NotAValue("malformed object")
        new: dict[str, Any] = {}
        for pair in attrs:
            if not (isinstance(pair, list) and len(pair) == 2 and attr_name(pair[0])):
                raise NotAValue("malformed attribute")
            new[pair[0]] = self.decode(pair[1])
        state = vars(obj)
        if replace:
            for name in [n for n in state if attr_name(n) and n not in new]:
                del state[name]
            new = {n: update_in_place(state.get(n), v) for n, v in new.items()}
        state.update(new)
