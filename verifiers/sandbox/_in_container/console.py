"""The test's console, lent to the program during each call: what it reads comes from the
tester.

Printed output goes the other way with each answer (see `roles.Printed`). For input: while a
tester's request runs, the program's ``sys.stdin`` and ``input`` ask the tester, which answers
from *its* ``sys.stdin`` and ``input`` as the test has them at that moment (a
``monkeypatch.setattr("builtins.input", ...)`` or ``sys.stdin = io.StringIO(...)``); a test that
set up no input gives end of file, as a closed stdin would.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from typing import Any

MAX_READ = 1 << 20

Ask = Callable[[dict[str, Any]], dict[str, Any]]


# -- the program's side --------------------------------------------------------------------
class RequestStdin:
    """``sys.stdin`` of the program during a tester's request."""

    encoding = "utf-8"

    def __init__(self, ask: Ask) -> None:
        self.ask = ask

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise io.UnsupportedOperation("fileno")

    def readlines(self) -> list[str]:
        return list(self)

    def readline(self, size: int | None = -1) -> str:
        return str(self.ask({"status": "stdin", "how": "readline"}).get("text", ""))

    def read(self, size: int | None = -1) -> str:
        return str(self.ask({"status": "stdin", "how": "read"}).get("text", ""))

    def __iter__(self) -> Iterator[str]:
        while line := self.readline():
            yield line


def request_input(ask: Ask) -> Callable[..., str]:
    """``input`` of the program during a tester's request."""

    def ask_input(prompt: Any = "") -> str:
        reply = ask({"status": "input", "prompt": str(prompt)})
        if reply.get("eof"):
            raise EOFError("EOF when reading a line")
        return str(reply.get("text", ""))

    return ask_input


# -- the tester's side ----------------------------------------------------------------------
def feed(request: dict[str, Any], original_input: Any) -> dict[str, Any]:
    """The tester's answer to the program's read: from the test's ``input`` if it patched it,
    else from the test's ``sys.stdin`` if it replaced it, else end of file."""
    import builtins

    patched = builtins.input is not original_input
    stream = sys.stdin if sys.stdin is not sys.__stdin__ else None
    try:
        if request.get("status") == "input":
            prompt = str(request.get("prompt", ""))
            if patched:
                return {"text": str(builtins.input(prompt))[:MAX_READ]}
            if stream is None:
                return {"eof": True}
            sys.stdout.write(prompt)
            line = stream.readline()
            return {"text": line[:-1] if line.endswith("\n") else line} if line else {"eof": True}
        if stream is not None:
            text = stream.readline() if request.get("how") == "readline" else stream.read()
            return {"text": str(text)[:MAX_READ]}
        if patched and request.get("how") == "readline":
            return {"text": str(builtins.input("")) + "\n"}
        return {"text": ""}
    except Exception:  # EOFError, StopIteration of an iterator of answers, the test's own bug
        return {"eof": True, "text": ""}  # always an answer: the program waits for one
