"""Verifiable rewards: judge a completion against a reference.

Importing this package is cheap: it never imports torch, and Docker only when a sandbox is
used. Every verifier takes the reference first and the completion second.

Example:
    >>> import verifiers
    >>> issubclass(verifiers.EngineUnavailableError, verifiers.VerifiersError)
    True
"""

from __future__ import annotations

from verifiers.errors import (
    EngineUnavailableError,
    ImageBuildError,
    SandboxError,
    VerifiersError,
)

__all__ = ["EngineUnavailableError", "ImageBuildError", "SandboxError", "VerifiersError"]
