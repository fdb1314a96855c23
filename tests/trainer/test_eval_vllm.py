"""The eval on vLLM (the CPU build, in its own virtualenv: scripts/ensure-vllm.sh, which `make
test` runs): the offline ``vllm.LLM`` in process and vLLM's OpenAI server started here on
127.0.0.1 give the same completions for the same tasks and seeds, sampled and greedy, and greedy
ones equal transformers' greedy decoding.

The same server (one start, the tests' slowest set-up) also serves the tiny random Qwen2 as an
`LLMJudge`: its replies are noise, and every one must come back as no verdict, masked (status
"error", correct None), never a 0, and never cached; through `with_judge` the rule's verdicts stand
and the rejections it sent are masked."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from trainer import TrainerError
from trainer.eval import evaluate
from verifiers import math as vm
from verifiers.judges import LLMJudge, Template, with_judge

ROOT = Path(__file__).resolve().parents[2]
ARGS: dict[str, Any] = dict(n=6, samples=3, max_new_tokens=8, ks=[1, 3])
SHORT = Template(system="j", user="{reference}={answer}")  # the tiny model reads 256 tokens at most
# The first test pays for the server's start (up to 240 s) and waits on the in-process engine (up to
# 400 s): pytest-timeout's 300 s counts fixtures too, and cut it off on a loaded machine.
pytestmark = pytest.mark.timeout(900)


def rows(folder: Path) -> list[tuple[int, int, str]]:
    lines = (folder / "samples.jsonl").read_text().splitlines()
    return [(r["task_seed"], r["sample"], r["completion"]) for r in map(json.loads, lines)]


@pytest.fixture(scope="module")
def server(vllm_python: str, vllm_env: dict[str, str], tiny_model_dir: Path) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [vllm_python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(tiny_model_dir)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", "--enforce-eager"]
    command += ["--max-model-len", "256", "--served-model-name", "tiny"]
    log = open(tiny_model_dir.parent / "vllm-server.log", "w")
    proc = subprocess.Popen(command, env=vllm_env, stdout=log, stderr=subprocess.STDOUT)
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


SAMPLED = {**ARGS, "temperature": 1.0}


@pytest.fixture(scope="module")
def in_process(
    vllm_python: str, vllm_env: dict[str, str], tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """The eval on ``vllm.LLM`` in the vLLM venv, started before the server so the two load at once;
    yields (the running process, its output folder)."""
    out = tmp_path_factory.mktemp("vllm") / "inproc"
    env = {**vllm_env, "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    worker = [vllm_python, str(ROOT / "tests" / "trainer" / "_vllm_worker.py"), str(tiny_model_dir)]
    proc = subprocess.Popen(
        [*worker, str(out), json.dumps(SAMPLED)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    yield proc, out
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


@pytest.mark.slow
def test_vllm_in_process_and_its_server_give_the_same_samples(
    in_process: Any, server: str, tiny_model_dir: Path, tmp_path: Path
) -> None:
    proc, out = in_process
    evaluate(
        "grpo_envs/Digits-v0", "tiny", base_url=server, tokenizer=str(tiny_model_dir), out=tmp_path / "http", **SAMPLED
    )
    stdout, stderr = proc.communicate(timeout=400)
    assert proc.returncode == 0, stderr[-3000:]
    result = json.loads(stdout.split("RESULT ")[-1])
    assert result["backend"] == "vllm" and result["seeding"] == "per sample"
    assert "cannot load model '/no/such/model'" in result["error"]
    inproc, http = rows(out), rows(tmp_path / "http")
    assert len(inproc) == 18 and inproc == http  # same prompts, same per-sample seeds, same engine
    per_task: dict[int, set[str]] = {}
    for task, _, text in inproc:
        per_task.setdefault(task, set()).add(text)
    assert sum(len(texts) > 1 for texts in per_task.values()) >= 3  # samples of a task differ: seeds per sample


@pytest.mark.slow
def test_greedy_through_the_server_equals_transformers_greedy(
    server: str, tiny_model_dir: Path, tmp_path: Path
) -> None:
    import gymnasium
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    evaluate(
        "grpo_envs/Digits-v0",
        "tiny",
        base_url=server,
        tokenizer=str(tiny_model_dir),
        out=tmp_path / "g",
        **{**ARGS, "temperature": 0.0},
    )
    got = rows(tmp_path / "g")
    model, tok = (
        AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval(),
        AutoTokenizer.from_pretrained(tiny_model_dir),
    )
    env = gymnasium.make("grpo_envs/Digits-v0", split="eval")
    expected = []
    for task, sample, _ in got:
        _, info = env.reset(seed=task)
        ids = tok.apply_chat_template(info["messages"], add_generation_prompt=True, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            out = model.generate(
                ids, do_sample=False, max_new_tokens=8, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id
            )
        expected.append((task, sample, tok.decode(out[0, ids.shape[1] :], skip_special_tokens=True)))
    assert got == expected
    assert len({text for _, _, text in got}) >= 3  # the tiny model's greedy answers differ by prompt


@pytest.mark.slow
def test_a_real_server_answering_noise_is_masked_never_a_zero(server: str, tmp_path: Path) -> None:
    judge = LLMJudge(base_url=server, model="tiny", template=SHORT, max_tokens=12, temperature=1.0, cache_dir=tmp_path)
    answers = [str(k) for k in range(12)]
    results = judge.verify_many(["5"] * 12, answers)
    assert {(r.status, r.correct) for r in results} == {("error", None)}, [r.reason for r in results]
    assert all("not a verdict" in r.reason for r in results)
    assert judge.usage.calls == 12 and judge.usage.completion_tokens > 0  # vLLM counted its tokens
    assert list(tmp_path.rglob("*.json")) == []  # nothing unparseable is kept
    hybrid = with_judge(vm.verify, judge)
    ruled = hybrid.verify_many(["5", "5", "5"], ["\\boxed{5}", "The answer is 4.", ":"])
    assert [(r.status, r.correct) for r in ruled] == [("correct", True), ("error", None), ("no_answer", False)]


def test_the_vllm_backend_without_vllm_says_how_to_get_it(tiny_model_dir: Path, tmp_path: Path) -> None:
    try:
        import vllm  # noqa: F401

        pytest.skip("vLLM is importable here")
    except ImportError:
        pass
    with pytest.raises(TrainerError, match="the vllm backend needs vLLM.*scripts/ensure-vllm.sh"):
        evaluate("grpo_envs/Digits-v0", str(tiny_model_dir), backend="vllm", out=tmp_path / "a", **ARGS)
    with pytest.raises(TrainerError, match='not "demo"'):
        evaluate("grpo_envs/Digits-v0", "demo", backend="vllm", out=tmp_path / "b", **ARGS)
