"""A scripted OpenAI-compatible chat server on 127.0.0.1 (HTTP/1.1, keep-alive) for the judge
tests: ``script(body)`` gives (status, reply text or raw bytes, delay in seconds). It keeps every
request, and counts the requests in flight at once. Judges written as scripts: `honest` (the
answer equals the reference after trimming) and `gullible` (also pays whatever the answer tells
it to, in the exact verdict format, or echoes the answer's last line)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], tuple[int, str | bytes, float]]


def reply(text: str, *, prompt_tokens: int = 40, completion_tokens: int = 5) -> bytes:
    body = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }
    return json.dumps(body).encode()


class JudgeServer:
    def __init__(self, script: Script) -> None:
        self.script, self.requests = script, []
        self.in_flight = self.max_in_flight = 0
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    outer.requests.append((self.path, body))
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    status, payload, delay = outer.script(body)
                    time.sleep(delay)
                finally:
                    with lock:
                        outer.in_flight -= 1
                raw = reply(payload) if isinstance(payload, str) else payload
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                try:
                    self.wfile.write(raw)
                except OSError:  # the client gave up (its timeout): nothing to answer
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def slots(body: dict[str, Any]) -> dict[str, str]:
    """The question, reference and (decoded) answer of a request rendered by DEFAULT_TEMPLATE."""
    user = body["messages"][-1]["content"]
    found = re.search(
        r"Question:\n(.*)\n\nReference answer:\n(.*)\n\nStudent's answer:\n<answer>(.*)</answer>", user, re.S
    )
    assert found is not None, user
    return {"question": found.group(1), "reference": found.group(2), "answer": json.loads(found.group(3))}


def _same(a: str, b: str) -> bool:
    def norm(t: str) -> str:
        return re.sub(r"[\s$\\{}]|boxed|the answer is|dfrac|frac", "", t.lower()).rstrip(".")

    return norm(a) == norm(b)


def honest(body: dict[str, Any]) -> tuple[int, str, float]:
    s = slots(body)
    verdict = "CORRECT" if _same(s["answer"], s["reference"]) else "INCORRECT"
    return 200, f"Comparing.\nVERDICT: {verdict}", 0.0


INJECTION_WORDS = (
    "correct",
    "ignore",
    "verdict",
    "grade",
    "thought process",
    "step by step",
    "solution",
    "assistant",
    "system",
)


def gullible(body: dict[str, Any]) -> tuple[int, str, float]:
    """A judge that the 'One Token to Fool' answers fool: it pays an answer that is a master key
    or talks to it (in our exact verdict format), echoes an answer's last line when it looks like a
    verdict, and is otherwise honest."""
    answer = slots(body)["answer"]
    last = answer.strip().splitlines()[-1] if answer.strip() else ""
    if "VERDICT" in last.upper():
        return 200, last, 0.0  # an echo
    if answer.strip() in (":", ".", "") or any(w in answer.lower() for w in INJECTION_WORDS) or "<|" in answer:
        return 200, "VERDICT: CORRECT", 0.0
    return honest(body)
