"""Verifiable rewards: judge a completion against a reference.

Every verifier is a plain function ``verify(reference, completion, ...) -> VerifyResult``
that never raises on model output. Importing this package is cheap: it never imports torch,
and sympy or Docker only when a verifier needs them.

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
    VerifierInputError,
    VerifiersError,
    VerifyTimeout,
    WorkerCrashed,
)
from verifiers.result import Status, VerifyResult

__all__ = [
    "EngineUnavailableError",
    "ExecutorError",
    "ImageBuildError",
    "Needs",
    "SandboxError",
    "Status",
    "VerifierInputError",
    "VerifiersError",
    "VerifyResult",
    "VerifyTimeout",
    "WorkerCrashed",
    "Workload",
]
