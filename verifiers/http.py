"""`Client`: one client for OpenAI-compatible servers (vLLM, SGLang, ``transformers serve``,
hosted APIs), shared by the LLM judge (`verifiers.judges`) and the eval's HTTP backend
(`trainer.eval`). Standard library only (no SDK, no torch).

Bounded concurrency (a semaphore over every request of one client, whatever thread sends it),
keep-alive connections reused within a `Client.map`, a per-call timeout, and transient faults
(connection refused or reset, timeouts, 429 and 5xx) retried with exponential backoff within a
bounded total time. What cannot be fixed by retrying is one `ServerError` naming the URL.

Examples:
    >>> Client("127.0.0.1:8000/v1", model="m")
    Traceback (most recent call last):
    ...
    verifiers.errors.ServerError: base_url must start with http:// or https://, got '127.0.0.1:8000/v1'
"""

from __future__ import annotations

from verifiers._http import RETRIED_STATUS, Client
from verifiers.errors import ServerError

__all__ = ["RETRIED_STATUS", "Client", "ServerError"]
