"""The eval's OpenAI-compatible backend against a scripted server on 127.0.0.1 that the test
starts: our prompts (the model's chat template, rendered without transformers), one seeded
request per sample, retries, multi-turn chat, and one clear error for a server that is down or
answers garbage. vLLM's real server is in test_eval_vllm.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import gymnasium
import pytest

from tests.trainer.conftest import ALPHABET, TEMPLATE
from tests.trainer.test_trainer import EchoDigit
from trainer import TrainerError
from trainer.eval import evaluate
from trainer.generation._tokenizer import FileTokenizer

Answer = Callable[[str, dict[str, Any]], tuple[int, bytes]]
ROOT = Path(__file__).resolve().parents[2]


def completion(text: str, finish: str = "stop", tokens: int = 1) -> tuple[int, bytes]:
    body = {"choices": [{"text": text, "finish_reason": finish}], "usage": {"completion_tokens": tokens}}
    return 200, json.dumps(body).encode()


def last_digit(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
    """A 'model' that answers the last digit of its prompt (right on Digits' copy tasks)."""
    digits = [ch for ch in body["prompt"] if ch.isdigit()]
    return completion(digits[-1] if digits else "0")


class Server:
    """A loopback HTTP server answering POSTs with ``answer(route, body)``; it keeps every request."""

    def __init__(self, answer: Answer) -> None:
        self.answer, self.requests, self.headers = answer, [], []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, body))
                outer.headers.append(dict(self.headers))
                status, raw = outer.answer(self.path, body)
                self.send_response(status)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], Server]]:
    servers: list[Server] = []

    def start(answer: Answer) -> Server:
        servers.append(Server(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


ARGS: dict[str, Any] = dict(n=3, samples=4, max_new_tokens=5, temperature=1.0, ks=[1, 4])


def test_prompts_are_the_models_template_and_each_sample_is_one_seeded_request(
    serve: Callable[[Answer], Server], tokenizer_dir: Path, tmp_path: Path
) -> None:
    from transformers import AutoTokenizer

    server = serve(last_digit)
    summary = evaluate(
        "grpo_envs/Digits-v0", "tiny", base_url=server.url, tokenizer=str(tokenizer_dir), out=tmp_path / "a", **ARGS
    )
    assert len(server.requests) == 12 and {route for route, _ in server.requests} == {"/v1/completions"}
    bodies = [body for _, body in server.requests]
    assert all(b["n"] == 1 and b["model"] == "tiny" and b["max_tokens"] == 5 for b in bodies)
    assert len({b["seed"] for b in bodies}) == 12  # every (task, sample) its own seed
    hf = AutoTokenizer.from_pretrained(tokenizer_dir)
    rows = [json.loads(line) for line in (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    env = gymnasium.make("grpo_envs/Digits-v0", split="eval")
    expected = set()
    for seed in {r["task_seed"] for r in rows}:
        _, info = env.reset(seed=seed)
        expected.add(hf.apply_chat_template(info["messages"], add_generation_prompt=True, tokenize=False))
    assert {b["prompt"] for b in bodies} == expected  # what transformers renders, with no transformers in the path
    assert all(r["tokens"] == 2 for r in rows)  # the answer's one token and the EOS, as in-process backends count
    assert summary["backend"] == "openai" and summary["seeding"] == "per sample"
    by_task: dict[int, list[bool]] = {}
    for r in rows:
        by_task.setdefault(r["task_seed"], []).append(r["correct"] is True)
    assert summary["pass@1"]["value"] == pytest.approx(sum(sum(c) / 4 for c in by_task.values()) / 3)
    again = serve(last_digit)
    evaluate(
        "grpo_envs/Digits-v0", "tiny", base_url=again.url, tokenizer=str(tokenizer_dir), out=tmp_path / "b", **ARGS
    )
    assert sorted(b["seed"] for _, b in again.requests) == sorted(b["seed"] for b in bodies)


def test_the_file_tokenizer_renders_and_encodes_like_transformers(tokenizer_dir: Path) -> None:
    from transformers import AutoTokenizer

    hf, ours = AutoTokenizer.from_pretrained(tokenizer_dir), FileTokenizer(tokenizer_dir)
    for messages in (
        [{"role": "user", "content": "c3="}],
        [{"role": "user", "content": "s12="}, {"role": "assistant", "content": "3"}],
    ):
        for gen in (True, False):
            assert (
                ours.apply_chat_template(messages, add_generation_prompt=gen)
                == hf.apply_chat_template(messages, add_generation_prompt=gen)["input_ids"]
            )
    assert ours.eos_token_id == hf.eos_token_id and ours.decode([5, 6, 1]) == hf.decode([5, 6, 1])
    with pytest.raises(TrainerError, match="cannot find the tokenizer '/no/such/dir'.*--tokenizer DIR"):
        FileTokenizer("/no/such/dir")


def test_transient_errors_are_retried_and_the_key_is_sent(
    serve: Callable[[Answer], Server], tokenizer_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures = iter([(503, b"busy"), (429, b"slow down"), (500, b"oops")])

    def flaky(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
        return next(failures, None) or last_digit(route, body)

    server = serve(flaky)
    args = {**ARGS, "n": 1, "samples": 2, "ks": [1], "concurrency": 1}
    summary = evaluate(
        "grpo_envs/Digits-v0",
        "m",
        base_url=server.url,
        tokenizer=str(tokenizer_dir),
        api_key="sk-test",
        out=tmp_path / "a",
        **args,
    )
    assert len(server.requests) == 5 and summary["samples"] == 2
    assert all(h.get("Authorization") == "Bearer sk-test" for h in server.headers)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            lambda route, body: (500, b"internal error"),
            r"the server at http://127.0.0.1:\d+/v1/completions answered HTTP 500: internal error",
        ),
        (lambda route, body: (404, b"no such route"), r"answered HTTP 404: no such route"),
        (
            lambda route, body: (200, b"<html>hello</html>"),
            r"at http://127.0.0.1:\d+/v1/completions answered something that is not JSON",
        ),
        (lambda route, body: (200, b'{"error": "x"}'), r"answered JSON without choices"),
    ],
)
def test_a_server_answering_garbage_is_one_clear_error(
    serve: Callable[[Answer], Server], tokenizer_dir: Path, tmp_path: Path, answer: Answer, message: str
) -> None:
    server = serve(answer)
    with pytest.raises(TrainerError, match=message):
        evaluate(
            "grpo_envs/Digits-v0", "m", base_url=server.url, tokenizer=str(tokenizer_dir), out=tmp_path / "a", **ARGS
        )


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_server_that_is_down_is_one_line_from_the_cli(tokenizer_dir: Path, tmp_path: Path) -> None:
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    url = f"http://127.0.0.1:{closed_port()}/v1"
    args = [
        "--env",
        "grpo_envs/Digits-v0",
        "--model",
        "m",
        "--base-url",
        url,
        "--tokenizer",
        str(tokenizer_dir),
        "-n",
        "1",
    ]
    run = subprocess.run(
        [script, "eval", *args, "--out", str(tmp_path / "a")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2
    errors = [line for line in run.stderr.splitlines() if line.startswith("grpo-envs eval: error:")]
    assert (
        errors == [errors[0]]
        and f"cannot reach the server at {url}/completions" in errors[0]
        and "after 5 tries" in errors[0]
    )
    run = subprocess.run(
        [script, "eval", *args, "--api-key-env", "GRPO_NO_SUCH_VAR"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2 and "GRPO_NO_SUCH_VAR: that environment variable is not set" in run.stderr


def test_the_server_backend_never_imports_torch(
    serve: Callable[[Answer], Server], tokenizer_dir: Path, tmp_path: Path
) -> None:
    server = serve(last_digit)
    code = (
        "import sys; from trainer.eval import evaluate; "
        f"s = evaluate('grpo_envs/Digits-v0', 'm', base_url={server.url!r}, tokenizer={str(tokenizer_dir)!r}, "
        f"n=2, samples=2, out={str(tmp_path / 'a')!r}); "
        "print(s['samples'], 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split()[-3:] == ["4", "False", "False"]


def test_chat_mode_sends_the_transcript_and_runs_multi_turn_envs(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    def chat(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
        messages = body["messages"]
        digit = messages[0]["content"][1]
        text = digit if len(messages) >= 3 else "x"  # wrong first, right after the env's reply
        answer = {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
        answer["usage"] = {"completion_tokens": 3}
        return 200, json.dumps(answer).encode()

    server = serve(chat)
    summary = evaluate(lambda: EchoDigit(turns=2), "m", base_url=server.url, chat=True, out=tmp_path / "a", **ARGS)
    assert {route for route, _ in server.requests} == {"/v1/chat/completions"}
    assert len(server.requests) == 24  # 12 episodes of two turns
    second = [b["messages"] for _, b in server.requests if len(b["messages"]) == 3]
    assert len(second) == 12 and all(
        m[1] == {"role": "assistant", "content": "x"} and m[2]["role"] == "user" for m in second
    )
    assert summary["pass@1"]["value"] == 1.0 and summary["tokens_mean"] == 6.0
    with pytest.raises(TrainerError, match="--chat is for an OpenAI-compatible server"):
        evaluate("grpo_envs/Digits-v0", "demo", chat=True, out=tmp_path / "b", **ARGS)


def test_a_vocabulary_with_special_thinking_tokens_asks_the_server_to_keep_them(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    """Magistral's [THINK] is a special token: vLLM drops it from its text unless asked, and the
    verifier then reads the thinking as the answer. The request says skip_special_tokens=false,
    and what comes back is judged after the thinking."""
    from trainer.policy._model import demo_tokenizer

    folder = tmp_path / "tok"
    tok = demo_tokenizer(ALPHABET)
    tok.chat_template = TEMPLATE
    tok.add_special_tokens({"additional_special_tokens": ["[THINK]", "[/THINK]"]})
    tok.save_pretrained(folder)

    def thinks_then_answers(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
        task = re.findall(r"([csmp])(\d+)=", body["prompt"])[-1]  # Digits' task, e.g. s7=
        a = [int(d) for d in task[1]]
        right = {"c": a[0], "s": (a[0] + 1) % 10, "m": max(a), "p": sum(a) % 10}[task[0]]
        return completion(f"[THINK]{right}[/THINK]{(right + 1) % 10}")  # right while thinking, wrong after

    server = serve(thinks_then_answers)
    summary = evaluate(
        "grpo_envs/Digits-v0", "m", base_url=server.url, tokenizer=str(folder), out=tmp_path / "a", **ARGS
    )
    assert all(body["skip_special_tokens"] is False for _, body in server.requests)
    rows = [json.loads(line) for line in (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    assert all(r["completion"].startswith("[THINK]") for r in rows)
    assert summary["pass@1"]["value"] == 0.0  # the thinking never counts
