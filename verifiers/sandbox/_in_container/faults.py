"""What goes wrong across the boundary, as the tester sees it: the program died, lacks a name,
or raised (re-raised here as its own builtin type).

An exception from the program never steers the test's control flow beyond what an ordinary
error does: ``StopIteration`` and ``StopAsyncIteration`` end an iteration only when they come from
advancing one of its iterators (``next(g)``); from any other request (a function, a method, an
operator, a constructor) they arrive as a ``RuntimeError``, as PEP 479 makes them inside a
generator, so ``all(map(f, xs))`` cannot end early and pass. ``GeneratorExit``, ``SystemExit`` and
``KeyboardInterrupt`` arrive as a plain `SolutionError`.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

from typing import Any


class SolutionDied(BaseException):
    """The solution process exited or stopped answering (ours, not the program's exception)."""


class SolutionMissing(BaseException):
    """The program does not define a name the test code calls (ours, not the program's)."""


ITERATION_ENDS = ("StopIteration", "StopAsyncIteration")


class SolutionError(Exception):
    """The solution raised; ``kind`` is its exception type's name."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail

    def __str__(self) -> str:
        message = self.__dict__.get("_message")
        return message if isinstance(message, str) else super().__str__()

    def became(self, detail: str, message: str | None, args: Any = None) -> SolutionError:
        """Give this error the program's ``args`` and ``str()``."""
        self.args = tuple(args) if isinstance(args, tuple) else (detail,) if message is None else (message,)
        if message is not None:
            self.__dict__["_message"] = message
        return self


def program_error(
    kind: str, detail: str, message: str | None = None, args: Any = None, advancing: bool = False
) -> SolutionError:
    """The program's exception, re-raised in the tester as its own builtin type (so the test's
    ``except ZeroDivisionError:`` catches it) and as a `SolutionError` (so an uncaught one is
    recorded as the program's crash), with the program's ``args`` (when they are values) and
    ``str()``. An iteration's end from anything but ``advancing`` an iterator is a RuntimeError."""
    import builtins

    base = getattr(builtins, kind, None)
    if kind in ITERATION_ENDS and not advancing:
        detail = f"{detail} (from a call, not from an iterator: an error, as PEP 479 makes it)"
        base = RuntimeError
    if isinstance(base, type) and issubclass(base, Exception) and base is not Exception:
        try:
            error: SolutionError = type(kind, (SolutionError, base), {})(kind, detail)
            return error.became(detail, message, args)
        except TypeError:  # a layout conflict (OSError and kin): the plain marker
            pass
    return SolutionError(kind, detail)
