"""The sandbox's wire format, shared by the host and the processes inside a container.

Frames are an 8-byte big-endian length and JSON. Values crossing between a program and its
tester (or the host) are tagged so that only exact builtin types survive: a subclass of a
builtin or any other object arrives as "not a value" (`NotAValue`), never as itself, unless
the codec given as ``other`` makes data of it (handles and copies, see `objects`).

Part of the in-container program (see `_host.program`): standard library only, no package imports.
"""

from __future__ import annotations

import base64
import json
import os
import struct
from collections.abc import Callable
from typing import Any

# -- framing -------------------------------------------------------------------------------
HEADER = struct.Struct(">Q")
MAX_FRAME = 256 * 2**20  # from the host (sources, stdin, files)
MAX_ANSWER = 8 * 2**20  # from a program: a larger encoded result is refused, not read


def read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, limit: int = MAX_FRAME) -> Any:
    (size,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if size > limit:
        raise ValueError("frame too large")
    return json.loads(read_exact(fd, size))


def write_frame(fd: int, obj: Any, limit: int | None = None) -> bool:
    """Send ``obj``; False (nothing sent) when it encodes to more than ``limit`` bytes."""
    data = json.dumps(obj, separators=(",", ":")).encode()
    if limit is not None and len(data) > limit:
        return False
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]
    return True


# -- values: exact builtin types only -----------------------------------------------------
MAX_DEPTH = 64


Other = Callable[[Any, int], Any]


def encode(value: Any, depth: int = 0, other: Other | None = None) -> Any:
    """Tag a value so that only exact builtin types survive; anything else is "x", or what
    ``other(value, depth)`` makes of it (handles and copies, see `objects`)."""
    if depth > MAX_DEPTH:
        return ["x", "nested too deeply"]
    t = type(value)
    if value is None:
        return ["n"]
    if t is bool:
        return ["b", value]
    if t is int:
        return ["i", str(value)]
    if t is float:
        return ["f", repr(value)]
    if t is complex:
        return ["c", [repr(value.real), repr(value.imag)]]
    if t is str:
        return ["s", value]
    if t is bytes:
        return ["y", base64.b64encode(value).decode()]
    if t in (list, tuple, set, frozenset):
        tag = {list: "l", tuple: "t", set: "S", frozenset: "F"}[t]  # type: ignore[index]
        return [tag, [encode(v, depth + 1, other) for v in value]]
    if t is dict:
        return ["d", [[encode(k, depth + 1, other), encode(v, depth + 1, other)] for k, v in value.items()]]
    if other is not None:
        return other(value, depth)
    return ["x", f"{t.__module__}.{t.__qualname__}"]


class NotAValue(Exception):
    """An encoded value that is not made of exact builtin types."""


def decode(tagged: Any, depth: int = 0, other: Other | None = None) -> Any:
    """Rebuild a value from its tags; raises NotAValue for "x" or malformed data. A tag of
    its own is ``other(tagged, depth)``'s to rebuild (or refuse with NotAValue)."""
    if depth > MAX_DEPTH or not isinstance(tagged, list) or not tagged:
        raise NotAValue("malformed value")
    tag = tagged[0]
    arg = tagged[1] if len(tagged) > 1 else None
    if tag == "n":
        return None
    if tag == "b" and isinstance(arg, bool):
        return arg
    if tag == "i" and isinstance(arg, str) and len(arg) <= 5000:
        return int(arg)
    if tag == "f" and isinstance(arg, str):
        return float(arg)
    if tag == "c" and isinstance(arg, list) and len(arg) == 2:
        return complex(float(arg[0]), float(arg[1]))
    if tag == "s" and isinstance(arg, str):
        return arg
    if tag == "y" and isinstance(arg, str):
        return base64.b64decode(arg)
    if tag in ("l", "t", "S", "F") and isinstance(arg, list):
        items = [decode(v, depth + 1, other) for v in arg]
        try:
            return {"l": list, "t": tuple, "S": set, "F": frozenset}[tag](items)
        except TypeError as exc:
            raise NotAValue(str(exc)) from None
    if tag == "d" and isinstance(arg, list):
        try:
            return {decode(k, depth + 1, other): decode(v, depth + 1, other) for k, v in arg}
        except (TypeError, ValueError) as exc:
            raise NotAValue(str(exc)) from None
    if tag == "x":
        raise NotAValue(f"a {arg} is not a plain value")
    if other is not None and isinstance(tag, str):
        return other(tagged, depth)
    raise NotAValue("malformed value")
