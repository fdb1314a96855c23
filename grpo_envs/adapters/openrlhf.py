"""OpenRLHF (and any HTTP client): a reward server and the dataset it scores.

``grpo-envs serve --env grpo_envs/Arithmetic-v0 --port 5000`` answers OpenRLHF's remote reward
protocol: ``POST /get_reward`` with ``{"query": [...], "prompts": [...], "labels": [...]}`` ->
``{"rewards": [...], "scores": [...], "extra_logs": {...}}``, and ``GET /health``. ``query[i]``
is the prompt followed by the response (OpenRLHF keeps special tokens); the response is what
follows ``prompts[i]`` (a 400 names the mismatch otherwise), with special tokens stripped
before it is judged, so the prompt's numbers never reach answer extraction. ``labels[i]`` is
the task key that `write_dataset` writes; with ``grpo-envs serve --verifier math`` (or ``code``)
it is the gold answer (a JSON test suite) of the user's own dataset, and no env is involved.

Loopback by default, optional bearer token, bounded request size and item count, 4xx with a
reason for malformed requests.

Multi-turn tool envs (a registered `Terminal`): `agent_executor` for OpenRLHF's
``--agent_func_path`` and `write_agent_dataset` (prompts rendered with the env's ``tools=``).

Examples:
    >>> server = RewardServer("grpo_envs/Arithmetic-v0", port=0)  # doctest: +SKIP
    >>> server.start(); server.url  # doctest: +SKIP
    'http://127.0.0.1:54321'
"""

from __future__ import annotations

import hmac
import json
import logging
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, get_args

from grpo_envs._judging import JudgeConfig
from grpo_envs.adapters._common import Scorer, task_seeds
from grpo_envs.adapters._label_scorers import GOLD_VERIFIERS, BadLabel, EnvScorer, GoldScorer
from grpo_envs.adapters._openrlhf_agent import agent_executor, write_agent_dataset
from grpo_envs.errors import GrpoEnvsError
from verifiers import Status
from verifiers.executors import Executor

__all__ = [
    "DEFAULT_SPECIAL_TOKENS",
    "EXTRA_LOG_KEYS",
    "RewardServer",
    "agent_executor",
    "task_key",
    "write_agent_dataset",
    "write_dataset",
]

_STATUSES: tuple[str, ...] = get_args(Status)
EXTRA_LOG_KEYS = ("correct_rate", "masked_frac", *(f"status/{s}" for s in _STATUSES), "status/other")
"""The keys of every response's ``extra_logs``, whatever its statuses: OpenRLHF batches
experiences from several requests and refuses logs whose keys differ between them."""

log = logging.getLogger("grpo_envs.serve")

DEFAULT_SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_end|>",
    "<|im_start|>",
    "<|eot_id|>",
    "<|end_of_text|>",
    "<|begin_of_text|>",
    "</s>",
    "<s>",
    "<eos>",
    "<bos>",
    "<pad>",
    "<|end|>",
    "<|assistant|>",
)


def task_key(env_id: str, split: str, seed: int) -> str:
    """The label that names one task: JSON of env id, split and seed."""
    return json.dumps({"env_id": env_id, "split": split, "seed": int(seed)}, sort_keys=True)


def write_dataset(env_id: str, n: int, seed: int, path: str | Path, *, split: str = "train", **env_kwargs: Any) -> Path:
    """JSONL rows ``{"prompt", "label"}`` for OpenRLHF (``--input_key prompt --label_key label``)."""
    scorer = Scorer(env_id, **env_kwargs)
    env = scorer.env(split)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        for task_seed in task_seeds(seed, n):
            task = scorer.task(task_seed, split)
            row = {
                "prompt": env.prompt_text(task),
                "label": task_key(env_id, split, task_seed),
                "task_id": task.task_id,
            }
            f.write(json.dumps(row) + "\n")
    return out


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default (5) resets bursts of concurrent clients
    daemon_threads = True


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RewardServer:
    """A threaded HTTP reward server for one environment, or for gold answers alone.

    Args:
        env_id: the environment whose tasks the labels name (other env ids in labels are
            refused unless ``allow_any_env``).
        verifier: instead of ``env_id``: ``"math"`` (each label is the gold answer, as a dataset
            stores it: ``72``, ``\\frac{1}{2}``, ``... #### 72``) or ``"code"`` (each label is a JSON
            test suite that `verifiers.code.verify` takes; needs the Docker sandbox).
        timeout_s: the verifier's time limit per completion (per test case for code), with ``verifier``.
        executor: where requests are judged (`verifiers.executors`, e.g. a ``RayExecutor``;
            default: in this process).
        judge: a `grpo_envs.JudgeConfig`: with ``env_id``, the env's verifier then the judge (or
            the judge alone in its mode "judge"); with ``verifier="math"`` (mode "hybrid" only) the
            judge asked about the rule's rejections that hold an answer (`verifiers.judges.with_judge`).
            With ``verifier="math"`` a `verifiers.judges` judge object (an ``LLMJudge``) works too.
        host, port: where to listen (loopback by default; port 0 picks a free one).
        token: when set, requests need ``Authorization: Bearer <token>``.
        special_tokens: strings removed from responses before judging (default: common ones;
            pass your tokenizer's ``all_special_tokens``).
        max_bytes, max_items: bounds on one request.
    """

    def __init__(
        self,
        env_id: str | None = None,
        *,
        verifier: str | None = None,
        host: str = "127.0.0.1",
        port: int = 5000,
        token: str | None = None,
        special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
        max_bytes: int = 16 * 2**20,
        max_items: int = 4096,
        allow_any_env: bool = False,
        env_kwargs: dict[str, Any] | None = None,
        timeout_s: float = 5.0,
        executor: Executor | None = None,
        judge: Any = None,
    ) -> None:
        if (env_id is None) == (verifier is None):
            raise GrpoEnvsError(
                "RewardServer needs exactly one of env_id (labels are task keys from write_dataset) and verifier "
                f"(labels are gold answers: one of {GOLD_VERIFIERS})"
            )
        if verifier is not None and verifier not in GOLD_VERIFIERS:
            raise GrpoEnvsError(f"verifier must be one of {GOLD_VERIFIERS}, got {verifier!r}")
        self.env_id, self.verifier = env_id, verifier
        self.token = token
        self.special_tokens = sorted(set(special_tokens), key=len, reverse=True)
        self.max_bytes, self.max_items = max_bytes, max_items
        if env_id is not None:
            if judge is not None and not isinstance(judge, JudgeConfig):
                raise GrpoEnvsError("with env_id, judge must be a grpo_envs.JudgeConfig (for the env's verifier)")
            self.scorer: EnvScorer | GoldScorer = EnvScorer(
                env_id, allow_any_env=allow_any_env, env_kwargs=env_kwargs, executor=executor, judge=judge
            )
        else:
            if isinstance(judge, JudgeConfig):
                if judge.mode != "hybrid":
                    raise GrpoEnvsError("gold answers are judged rule first: judge mode 'judge' needs env_id")
                judge = judge.judge()
            self.scorer = GoldScorer(str(verifier), timeout_s=timeout_s, executor=executor, judge=judge)
        self.httpd = _Server((host, port), self._handler())
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        self._serving = False

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> RewardServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="grpo-envs-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._serving = True
        self.httpd.serve_forever()

    def close(self) -> None:
        """Stop serving (if it was) and release the port; safe on a server never started."""
        if self._thread is not None or self._serving:
            self.httpd.shutdown()  # waits for serve_forever: only when it runs, or it would wait forever
        self.httpd.server_close()

    # -- scoring -----------------------------------------------------------------------------
    def _strip(self, text: str) -> str:
        for token in self.special_tokens:
            text = text.replace(token, "")
        return text

    def score(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise _BadRequest(400, "the body must be a JSON object with query, prompts and labels")
        query, prompts, labels = body.get("query"), body.get("prompts"), body.get("labels")
        for name, value in (("query", query), ("prompts", prompts), ("labels", labels)):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _BadRequest(400, f"{name!r} must be a list of strings")
        assert isinstance(query, list) and isinstance(prompts, list) and isinstance(labels, list)
        if not len(query) == len(prompts) == len(labels):
            raise _BadRequest(
                400, f"query, prompts and labels differ in length ({len(query)}, {len(prompts)}, {len(labels)})"
            )
        if len(query) > self.max_items:
            raise _BadRequest(413, f"{len(query)} items; at most {self.max_items} per request")
        responses = []
        for k, (q, p) in enumerate(zip(query, prompts, strict=True)):
            if not q.startswith(p):
                raise _BadRequest(400, f"item {k}: query does not start with its prompt; send the prompt as generated")
            responses.append(self._strip(q[len(p) :]))
        try:
            verdicts = self.scorer.score(responses, labels, prompts=[str(p) for p in prompts])
        except BadLabel as exc:
            raise _BadRequest(400, str(exc)) from None
        rewards = [v.reward for v in verdicts]
        correct = [v.correct for v in verdicts]
        statuses: dict[str, int] = {}
        for v in verdicts:
            statuses[v.status] = statuses.get(v.status, 0) + 1
        judged = [v for v in verdicts if v.judged]
        extra = {  # OpenRLHF logs these; it does not act on masked (it trains on the 0 reward)
            "correct_rate": sum(v.correct is True for v in judged) / len(judged) if judged else 0.0,
            "masked_frac": (len(verdicts) - len(judged)) / len(verdicts) if verdicts else 0.0,
            **{f"status/{s}": float(statuses.get(s, 0)) for s in _STATUSES},
            "status/other": float(sum(n for s, n in statuses.items() if s not in _STATUSES)),
        }
        reasons = [None if v.judged else v.reason for v in verdicts]  # why nobody judged an item (its reward masked)
        return {"rewards": rewards, "scores": rewards, "extra_logs": extra, "correct": correct, "reasons": reasons}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class of this server (`_Handler` bound to it)."""
        return type("Handler", (_Handler,), {"reward_server": self})


class _Handler(BaseHTTPRequestHandler):
    """``POST /get_reward`` (bearer token, a bounded JSON body) and ``GET /health`` of ``reward_server``."""

    protocol_version = "HTTP/1.1"
    reward_server: RewardServer

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug(fmt, *args)

    def _send(self, status: int, payload: dict[str, Any], allow: str | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        if allow is not None:  # 405: the methods the route takes
            self.send_header("Allow", allow)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        token = self.reward_server.token
        if token is None:
            return True
        given = self.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

    def _body(self) -> Any:
        """The request's JSON body, at most the server's ``max_bytes``; a `_BadRequest` otherwise."""
        try:
            length = int(self.headers.get("Content-Length", "-1"))
        except ValueError:
            length = -1
        if length < 0:
            raise _BadRequest(411, "Content-Length is required")
        if length > self.reward_server.max_bytes:
            self.close_connection = True
            raise _BadRequest(413, f"the body is {length} bytes; at most {self.reward_server.max_bytes}")
        raw = self.rfile.read(length)
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _BadRequest(400, f"the body is not JSON: {exc}") from None
        except RecursionError:  # e.g. 100,000 nested brackets
            raise _BadRequest(400, "the body's JSON nests too deeply; send a flat object of lists") from None

    def do_GET(self) -> None:
        server = self.reward_server
        if self.path.rstrip("/") == "/health":
            self._send(200, {"status": "ok", "env": server.env_id, "verifier": server.verifier})
        elif self.path.rstrip("/") == "/get_reward":
            self._send(405, {"error": "/get_reward takes POST (a JSON body with query, prompts and labels)"}, "POST")
        else:
            self._send(404, {"error": f"no route {self.path}; use POST /get_reward or GET /health"})

    def do_POST(self) -> None:
        if self.path.rstrip("/") == "/health":
            self._send(405, {"error": "/health takes GET"}, "GET")
            return
        if self.path.rstrip("/") != "/get_reward":
            self._send(404, {"error": f"no route {self.path}; use POST /get_reward"})
            return
        if not self._authorized():
            self._send(401, {"error": "missing or wrong bearer token (Authorization: Bearer <token>)"})
            return
        try:
            body = self._body()
        except _BadRequest as exc:
            self._send(exc.status, {"error": str(exc)})
            return
        try:
            self._send(200, self.reward_server.score(body))
        except _BadRequest as exc:
            self._send(exc.status, {"error": str(exc)})
        except Exception as exc:  # our bug: report it, keep serving
            log.exception("scoring failed")
            self._send(500, {"error": f"{type(exc).__name__}: {exc}"})
