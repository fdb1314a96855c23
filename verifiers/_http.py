"""The implementation of `verifiers.http` (see there)."""

from __future__ import annotations

import http.client
import json
import logging
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from verifiers.errors import ServerError

__all__ = ["RETRIED_STATUS", "Client", "ServerError"]

log = logging.getLogger("verifiers.http")
RETRIED_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth another try (overloaded, rate-limited, restarting)."""
_TRANSIENT = (ConnectionError, TimeoutError, OSError, http.client.HTTPException)


class Client:
    """POSTs JSON to an OpenAI-compatible server at ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``).

    ``concurrency``: requests in flight at once, over all threads. ``timeout``: seconds one
    request may take (connect, send, each read). ``retries``: further tries after a transient
    fault, ``backoff * 2**k`` seconds apart; no try starts later than ``deadline`` seconds after
    the first (None: no bound but the tries), so a call ends within ``deadline + timeout``.
    ``option`` names the setting the user gave the URL in (for messages, e.g. ``--base-url``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: str | None = None,
        concurrency: int = 64,
        timeout: float = 600.0,
        retries: int = 4,
        backoff: float = 0.25,
        deadline: float | None = None,
        option: str = "base_url",
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ServerError(f"{option} must start with http:// or https://, got {base_url!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ServerError(f"concurrency must be an int >= 1, got {concurrency!r}")
        for name, value in (("timeout", timeout), ("backoff", backoff), ("deadline", deadline)):
            if value is not None and (not isinstance(value, int | float) or value < 0):
                raise ServerError(f"{name} must be a number >= 0, got {value!r}")
        self.base_url, self.model, self.api_key, self.option = base_url.rstrip("/"), model, api_key, option
        self.concurrency, self.timeout, self.retries, self.backoff = concurrency, timeout, retries, backoff
        self.deadline = deadline
        parts = urllib.parse.urlsplit(self.base_url)
        self._https, self._host, self._port, self._path = (
            parts.scheme == "https",
            parts.hostname,
            parts.port,
            parts.path,
        )
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._idle: list[http.client.HTTPConnection] = []
        self._mapping = 0  # maps running: while > 0, connections are kept for reuse

    def post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON answer to ``body`` (plus ``model``) at ``route`` (e.g. ``/completions``),
        retrying transient faults; raises `ServerError` (``timed_out`` set when time ran out)."""
        url = self.base_url + route
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps({"model": self.model, **body}).encode()
        start = time.monotonic()
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                status, raw = self._send(self._path + route, data, headers)
            except _TRANSIENT as exc:
                timed_out = isinstance(exc, TimeoutError)
                cause = f"{exc or type(exc).__name__}"
                if last:
                    raise ServerError(
                        f"cannot reach the server at {url} ({cause}) after {attempt + 1} tries: "
                        f"is it running, and is {self.option} right (it ends in /v1)?",
                        timed_out=timed_out,
                    ) from None
            else:
                if status == 200:
                    return _json(raw, url, self.option)
                detail = raw[:300].decode(errors="replace")
                if status not in RETRIED_STATUS or last:
                    raise ServerError(f"the server at {url} answered HTTP {status}: {detail}")
                timed_out, cause = False, f"HTTP {status}: {detail[:100]}"
            wait = self.backoff * 2**attempt
            if self.deadline is not None and time.monotonic() - start + wait > self.deadline:
                raise ServerError(
                    f"the server at {url} did not answer within {self.deadline:g} s ({attempt + 1} tries)",
                    timed_out=True,
                )
            log.warning(
                "%s failed (try %d of %d: %s); retrying in %.2f s", url, attempt + 1, self.retries + 1, cause, wait
            )
            time.sleep(wait)
        raise AssertionError("unreachable")

    def probe(self, timeout: float = 3.0) -> None:
        """One ``GET /models`` within ``timeout`` seconds, no retry: any HTTP answer means the server
        is there; none raises `ServerError` with the cause (a check before work, costing no tokens)."""
        kind = _HTTPS if self._https else _HTTP
        conn = kind(self._host or "", self._port, timeout=timeout)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            conn.request("GET", self._path + "/models", headers=headers)
            conn.getresponse().read()
        except _TRANSIENT as exc:
            raise ServerError(
                f"cannot reach the server at {self.base_url} ({exc or type(exc).__name__}): is it running, and is "
                f"{self.option} right (it ends in /v1)?",
                timed_out=isinstance(exc, TimeoutError),
            ) from None
        finally:
            conn.close()

    def _send(self, path: str, data: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        with self._slots:
            conn = self._connection()
            try:
                conn.request("POST", path, body=data, headers=headers)
                response = conn.getresponse()
                raw = response.read()
            except BaseException:
                conn.close()  # a head held for its body dies with the connection
                raise
            self._release(conn, response.will_close)
            return response.status, raw

    def _connection(self) -> http.client.HTTPConnection:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        kind = _HTTPS if self._https else _HTTP
        return kind(self._host or "", self._port, timeout=self.timeout)

    def _release(self, conn: http.client.HTTPConnection, closing: bool) -> None:
        with self._lock:
            if self._mapping and not closing:
                self._idle.append(conn)
                return
        conn.close()

    def map(self, call: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """``call`` on every item, at most ``concurrency`` at a time, results in order
        (connections are kept open and reused until the last map running ends)."""
        with self._lock:
            self._mapping += 1
        try:
            if len(items) <= 1:
                return [call(item) for item in items]
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(items))) as pool:
                return list(pool.map(call, items))
        finally:
            with self._lock:
                self._mapping -= 1
                idle, self._idle = (self._idle, []) if not self._mapping else ([], self._idle)
            for conn in idle:
                conn.close()


class _OneSend:
    """A connection that sends a request's head and body in one write (http.client writes them
    apart: two wake-ups of the server, and two system calls here, per request). The head is held
    only when a body follows it (a ``Content-Length`` above 0), so nothing ever waits for a body."""

    _head = b""

    def send(self, data: Any) -> None:
        if isinstance(data, bytes) and data.endswith(b"\r\n\r\n") and not self._head and _has_body(data):
            self._head = data
            return
        if self._head:
            data, self._head = self._head + bytes(data), b""
        super().send(data)  # type: ignore[misc]


def _has_body(head: bytes) -> bool:
    found = re.search(rb"\r\ncontent-length: *(\d+)\r\n", head, re.IGNORECASE)
    return found is not None and int(found.group(1)) > 0


class _HTTP(_OneSend, http.client.HTTPConnection):
    pass


class _HTTPS(_OneSend, http.client.HTTPSConnection):
    pass


def _json(raw: bytes, url: str, option: str) -> dict[str, Any]:
    try:
        answer = json.loads(raw)
    except ValueError:
        raise ServerError(
            f"the server at {url} answered something that is not JSON: {raw[:120]!r}; is {option} an "
            "OpenAI-compatible API (it ends in /v1)?"
        ) from None
    if not isinstance(answer, dict) or not isinstance(answer.get("choices"), list) or not answer["choices"]:
        raise ServerError(f"the server at {url} answered JSON without choices: {str(answer)[:200]}")
    return answer
