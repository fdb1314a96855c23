"""Verifiable rewards: judge a completion against a reference.

Every verifier is a plain function ``verify(reference, completion, ...) -> VerifyResult``
that never raises on model output.

Owns: the verdict value (`VerifyResult`, `Status`, `STATUS_CORRECT`); the verifiers `math`, `code` (with the
Docker `sandbox`) and `structure` (where a completion's answer is); the seam between judging and
where it runs (`Workload`, `Executor`) and the `executors`; the `testing` kit for any verifier.
Imports neither `grpo_envs` nor `trainer` (see ``docs/architecture.md``).

Importing this package is cheap: it never imports torch, and sympy or Docker only when a
verifier needs them.

Examples:
    >>> from verifiers import math
    >>> math.verify("42", "6 * 7 = 42, so the answer is 42.").correct
    True
"""

from __future__ import annotations

from verifiers._workload import Needs, Workload
from verifiers.errors import (
    EngineUnavailableError,
    ExecutorError,
    ImageBuildError,
    SandboxError,
    ServerError,
    TaskFormatError,
    VerifierInputError,
    VerifiersError,
    VerifyTimeout,
    WorkerCrashed,
)
from verifiers.result import STATUS_CORRECT, Status, VerifyResult

__all__ = [
    "EngineUnavailableError",
    "ExecutorError",
    "ImageBuildError",
    "Needs",
    "STATUS_CORRECT",
    "SandboxError",
    "ServerError",
    "Status",
    "TaskFormatError",
    "VerifierInputError",
    "VerifiersError",
    "VerifyResult",
    "VerifyTimeout",
    "WorkerCrashed",
    "Workload",
]
