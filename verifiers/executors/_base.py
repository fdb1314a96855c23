"""The executor seam: `Executor` (where a batch is judged) and `LocalExecutor` (this process)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from verifiers.errors import VerifierInputError
from verifiers.result import VerifyResult

if TYPE_CHECKING:
    from verifiers.sandbox import Sandbox

__all__ = ["KINDS", "Executor", "Kind", "LocalExecutor", "judge_here"]

Kind = Literal["math", "code"]
KINDS: tuple[Kind, ...] = ("math", "code")


@runtime_checkable
class Executor(Protocol):
    """Where `verifiers.math.verify_many` and `verifiers.code.verify_many` judge a batch.

    ``map(kind, references, completions, options)`` returns one `VerifyResult` per
    completion, in input order, and never raises on model output or on a lost worker (those
    are verdicts with status "error" or "timeout"). ``references`` are golds ("math") or test
    suites ("code", one per completion, already checked by the caller); ``options`` are the
    keyword arguments of the local ``verify_many`` (``timeout_s``, ``config``, ...).
    Implementations: `LocalExecutor` (the default) and `RayExecutor`.
    """

    def map(
        self, kind: Kind, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]: ...

    def close(self) -> None: ...


def judge_here(
    kind: Kind,
    references: Sequence[Any],
    completions: Sequence[Any],
    options: Mapping[str, Any],
    *,
    sandbox: Sandbox | None = None,
) -> list[VerifyResult]:
    """Judge in this process: the local ``verify_many`` of ``kind`` (what every executor's
    worker finally runs)."""
    if kind == "math":
        from verifiers.math import verify_many as math_many

        return math_many(list(references), list(completions), **options)
    if kind == "code":
        from verifiers.code import verify_many as code_many

        return code_many(list(references), list(completions), sandbox=sandbox, **options)
    raise VerifierInputError(f"kind must be one of {KINDS}, got {kind!r}")


class LocalExecutor:
    """Judge in this process (math in the local worker pool, code in ``sandbox`` or the
    process-wide Docker pool): what ``verify_many`` does without an executor.

    Examples:
        >>> from verifiers.math import verify_many
        >>> [r.status for r in verify_many(["4"], ["2 + 2 = 4"], executor=LocalExecutor())]
        ['correct']
    """

    def __init__(self, *, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox

    def map(
        self, kind: Kind, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        return judge_here(kind, references, completions, options, sandbox=self.sandbox if kind == "code" else None)

    def close(self) -> None:
        """Nothing to release (the local pools are closed at exit)."""

    def __repr__(self) -> str:
        return "LocalExecutor()" if self.sandbox is None else f"LocalExecutor(sandbox={self.sandbox!r})"
