"""vLLM's own OpenAI server (the CPU build, in its own virtualenv: scripts/ensure-vllm.sh) serving
the tiny random Qwen2 as an `LLMJudge`, started here on 127.0.0.1. Its replies are noise: every
one must come back as no verdict, masked (status "error", correct None), never a 0, and never
cached; through `with_judge` the rule's verdicts stand and the rejections it sent are masked."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._peers import VLLM, peer_python
from tests.trainer.conftest import ENGINE_ENV, save_model
from verifiers import math as vm
from verifiers.judges import LLMJudge, Template, with_judge

ROOT = Path(__file__).resolve().parents[2]
SHORT = Template(system="j", user="{reference}={answer}")  # the tiny model reads 256 tokens at most


@pytest.fixture(scope="module")
def vllm_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    python = peer_python(VLLM)
    folder = tmp_path_factory.mktemp("tiny-judge")
    save_model(folder)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--dtype", "float32", "--enforce-eager", "--max-model-len", "256"]
    command += ["--served-model-name", "tiny-judge"]
    env = {**os.environ, **ENGINE_ENV, "PYTHONPATH": str(ROOT)}
    log = open(folder.parent / "vllm-judge.log", "w")
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 240
        while True:
            assert proc.poll() is None, f"vLLM's server exited: {Path(log.name).read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "vLLM's server did not start in 240 s"
            time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.mark.slow
def test_a_real_server_answering_noise_is_masked_never_a_zero(vllm_judge: str, tmp_path: Path) -> None:
    judge = LLMJudge(
        base_url=vllm_judge, model="tiny-judge", template=SHORT, max_tokens=12, temperature=1.0, cache_dir=tmp_path
    )
    answers = [str(k) for k in range(12)]
    results = judge.verify_many(["5"] * 12, answers)
    assert {(r.status, r.correct) for r in results} == {("error", None)}, [r.reason for r in results]
    assert all("not a verdict" in r.reason for r in results)
    assert judge.usage.calls == 12 and judge.usage.completion_tokens > 0  # vLLM counted its tokens
    assert list(tmp_path.rglob("*.json")) == []  # nothing unparseable is kept
    hybrid = with_judge(vm.verify, judge)
    ruled = hybrid.verify_many(["5", "5", "5"], ["\\boxed{5}", "The answer is 4.", ":"])
    assert [(r.status, r.correct) for r in ruled] == [("correct", True), ("error", None), ("no_answer", False)]
