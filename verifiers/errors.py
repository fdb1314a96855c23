"""Exceptions raised by `verifiers`.

A verifier never raises on model output: a faulty completion is a zero reward with a
reason. These exceptions are for *our* side: bad arguments, a missing engine, a failed build.

    VerifiersError
     ├── VerifierInputError (also a ValueError)  our caller's bug: a bad gold or config
     ├── VerifyTimeout                           `equivalent` could not decide in time
     ├── WorkerCrashed                           a worker process died while running a call
     ├── ExecutorError                           a Ray cluster cannot be reached or runs no judge
     ├── ServerError                             an OpenAI-compatible server is down or answers garbage
     ├── TaskFormatError (also a ValueError)     an agentic task folder we cannot read or do not support
     └── SandboxError
          ├── EngineUnavailableError   no Docker engine answers
          └── ImageBuildError          the sandbox image could not be built
"""

from __future__ import annotations

__all__ = [
    "EngineUnavailableError",
    "ExecutorError",
    "ImageBuildError",
    "SandboxError",
    "ServerError",
    "TaskFormatError",
    "VerifierInputError",
    "VerifiersError",
    "VerifyTimeout",
    "WorkerCrashed",
]


class VerifiersError(Exception):
    """Base class of every exception raised by `verifiers`."""


class VerifierInputError(VerifiersError, ValueError):
    """Our caller passed something we cannot use: a non-str or empty gold, a bad config."""


class VerifyTimeout(VerifiersError, TimeoutError):
    """A comparison did not finish within its timeout (`verify` returns status "timeout")."""


class WorkerCrashed(VerifiersError):
    """A worker process died (killed, out of memory) while running a call."""


class ExecutorError(VerifiersError):
    """An executor cannot judge at all: Ray is missing, its cluster cannot be reached, or no
    judge actor could start there (a fault during a batch is a verdict, never this)."""


class ServerError(VerifiersError):
    """An OpenAI-compatible server (`verifiers.http.Client`) could not be reached, ran out of
    time (``timed_out``), or answered something that is not an answer; the message names the URL.
    A judge turns it into a verdict with status "timeout" or "error" (masked), never raises it."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out

    def __reduce__(self) -> tuple[object, ...]:
        return (_server_error, (str(self), self.timed_out))


def _server_error(message: str, timed_out: bool) -> ServerError:
    return ServerError(message, timed_out=timed_out)


class SandboxError(VerifiersError):
    """The code sandbox (Docker engine, image, containers) failed on our side."""


class EngineUnavailableError(SandboxError):
    """No Docker engine answers; the message says how to start one."""


class ImageBuildError(SandboxError):
    """Building the sandbox image failed; the message says which step and why."""


class TaskFormatError(VerifiersError, ValueError):
    """An agentic task (a Harbor folder) cannot be read, or uses a feature we do not support;
    the message is one line naming the task, the problem and the fix."""
