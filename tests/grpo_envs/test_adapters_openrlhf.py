"""`grpo-envs serve` through OpenRLHF 0.11.2's own code: its remote-reward client
(`SingleTurnAgentExecutor`), its response -> `Experience` step, and its batching
(`Experience.concat_experiences`, `split_experience_batch`, `make_experience_batch`).

OpenRLHF pins transformers==5.15 and ships a top-level ``tests`` package, so the Makefile installs
it ``--no-deps`` beside .venv (``.venv/peers/openrlhf-0.11.2``, without that ``tests``) and these
tests put it on ``sys.path``. The one stand-in is the model: a stub engine returns the completion
the test chose; OpenRLHF tokenizes the prompt, stitches prompt and response ids, decodes the query
with special tokens kept and posts it, as it does in training.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest

from grpo_envs.adapters import openrlhf
from tests.grpo_envs._byte_tokenizer import byte_tokenizer

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata"
PEER = Path(os.environ.get("GRPO_ENVS_OPENRLHF_DIR", Path(sys.prefix) / "peers" / "openrlhf-0.11.2"))


@pytest.fixture
def peer(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.SimpleNamespace]:
    """OpenRLHF's modules, imported from `PEER`; removed from sys.modules afterwards."""
    if not (PEER / "openrlhf").is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"OpenRLHF is missing from {PEER}: `make test` installs it (Makefile, OPENRLHF_DIR)")
        pytest.skip(f"needs OpenRLHF in {PEER} (make setup)")
    monkeypatch.syspath_prepend(str(PEER))
    # The rollout module imports ray and vllm at the top (neither is installed here); the function
    # used, `_process_response_into_experience`, calls neither.
    vllm_engine = types.ModuleType("openrlhf.trainer.ray.vllm_engine")
    vllm_engine.batch_vllm_engine_call = None  # type: ignore[attr-defined]
    vllm = types.ModuleType("vllm")
    vllm.SamplingParams = object  # type: ignore[attr-defined]
    for name, module in {
        "ray": types.ModuleType("ray"),
        "vllm": vllm,
        "openrlhf.trainer.ray": types.ModuleType("openrlhf.trainer.ray"),
        "openrlhf.trainer.ray.vllm_engine": vllm_engine,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    from openrlhf.trainer.ppo_utils.experience import Experience, make_experience_batch, split_experience_batch
    from openrlhf.trainer.ppo_utils.samples_generator import SamplesGenerator
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    yield types.SimpleNamespace(
        Experience=Experience,
        split=split_experience_batch,
        make_batch=make_experience_batch,
        to_experience=SamplesGenerator._process_response_into_experience,
        Executor=SingleTurnAgentExecutor,
    )
    for name in [n for n in sys.modules if n == "openrlhf" or n.startswith("openrlhf.")]:
        del sys.modules[name]


class StubEngine:
    """The model: answers every prompt with ``completion`` followed by EOS."""

    def __init__(self, tokenizer: Any, completion: str) -> None:
        self.ids = tokenizer(completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]

    async def generate(self, prompt_token_ids: list[int], params: Any, multi_modal_data: Any = None) -> Any:
        output = types.SimpleNamespace(token_ids=list(self.ids), finish_reason="stop", logprobs=None)
        return types.SimpleNamespace(outputs=[output])


def rollout(peer: Any, url: str, tokenizer: Any, prompt: str, label: str, completion: str) -> dict[str, Any]:
    """One OpenRLHF single-turn rollout scored by the reward server at ``url``."""
    executor = peer.Executor(url + "/get_reward")
    params = types.SimpleNamespace(max_tokens=256, logprobs=None)
    return asyncio.run(executor.execute(prompt, label, params, 4096, tokenizer, StubEngine(tokenizer, completion)))


@pytest.fixture
def arithmetic() -> Iterator[openrlhf.RewardServer]:
    srv = openrlhf.RewardServer("grpo_envs/Arithmetic-v0", port=0).start()
    yield srv
    srv.close()


def test_openrlhf_client_gets_env_step_rewards_and_batches_the_logs(
    peer: Any, arithmetic: openrlhf.RewardServer, tmp_path: Path
) -> None:
    path = openrlhf.write_dataset("grpo_envs/Arithmetic-v0", 2, 0, tmp_path / "d.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    env = gymnasium.make("grpo_envs/Arithmetic-v0")
    tokenizer = byte_tokenizer()
    outputs, expected = [], []
    for row in rows:
        env.reset(seed=json.loads(row["label"])["seed"])
        answer = env.unwrapped.task.answer  # type: ignore[attr-defined]
        for completion in (f"So it is \\boxed{{{answer}}}.", "\\boxed{-1}", "", f"{answer}? or {answer}1"):
            env.reset(seed=json.loads(row["label"])["seed"])
            expected.append(float(env.step(completion)[1]))
            outputs.append(rollout(peer, arithmetic.url, tokenizer, row["prompt"], row["label"], completion))
    assert [o["reward"] for o in outputs] == [[r] for r in expected]  # one sample per request, as OpenRLHF sends
    assert 0 < expected.count(1.0) < len(expected)
    experiences = [peer.to_experience(None, o, max_len=4096) for o in outputs]
    batch = peer.Experience.concat_experiences(experiences, 0)
    items = peer.split(batch)  # raised "Size of info[status/correct] (2) does not match batch_size (8)" before
    assert len(items) == 8
    assert [float(i.info["status/correct"].sum()) for i in items] == expected
    assert set(batch.info) >= set(openrlhf.EXTRA_LOG_KEYS) and float(batch.info["correct_rate"].sum()) == sum(expected)
    again = peer.make_batch(items)
    assert again.rewards.flatten().tolist() == expected


def test_openrlhf_batching_refuses_logs_whose_keys_differ(peer: Any) -> None:
    """The control: the logs a server with status-dependent keys sent break OpenRLHF's batching."""
    tokenizer = byte_tokenizer()
    ids = tokenizer("q a", add_special_tokens=False)["input_ids"]

    def response(logs: dict[str, float]) -> dict[str, Any]:
        return {
            "observation_tokens": ids,
            "action_ranges": [(1, len(ids))],
            "rollout_log_probs": None,
            "reward": [1.0],
            "scores": [1.0],
            "extra_logs": logs,
            "prompt": "q",
            "label": "x",
        }

    logs = [{"status/correct": 1.0}, {"status/incorrect": 1.0}]
    batch = peer.Experience.concat_experiences([peer.to_experience(None, response(x)) for x in logs], 0)
    with pytest.raises(ValueError, match=r"Size of info\[status/correct\] \(1\) does not match batch_size \(2\)"):
        peer.split(batch)


def gsm8k_rows(every: int) -> list[dict[str, Any]]:
    path = REALDATA / "math" / "gsm8k_completions.jsonl"
    if not path.exists():
        pytest.skip(f"needs {path} (../shared/realdata beside the checkout)")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return rows[::every]


def test_verifier_math_scores_a_real_dataset_s_golds_through_openrlhf(peer: Any) -> None:
    """`--verifier math`: labels are golds as GSM8K stores them (``... #### 72``); real model outputs."""
    from verifiers.math import verify

    rows = gsm8k_rows(every=37)  # 30 rows of both sources
    srv = openrlhf.RewardServer(verifier="math", port=0).start()
    tokenizer = byte_tokenizer()
    try:
        rewards = [
            rollout(peer, srv.url, tokenizer, f"Question {r['id']}:\n", r["gold"], r["completion"])["reward"][0]
            for r in rows
        ]
    finally:
        srv.close()
    direct = [verify(r["gold"], r["completion"]).reward for r in rows]
    assert rewards == direct  # the server judges exactly what verifiers.math judges
    agree = sum((reward == 1.0) == r["label"] for reward, r in zip(rewards, rows, strict=True)) / len(rows)
    assert agree >= 0.9, f"agreement with the dataset's labels {agree:.2f}"
    assert 0 < sum(rewards) < len(rows)


def test_a_judge_behind_verifier_math_through_openrlhf(peer: Any) -> None:
    """`--verifier math` with an LLM judge (a scripted one on 127.0.0.1): OpenRLHF's client gets the
    rule's verdicts and the judge's on the rule's rejections; with the judge down those rows are
    masked (``status/error`` in the logs; OpenRLHF trains their 0) and OpenRLHF's batching still works."""
    from tests.verifiers.judge_server import JudgeServer, closed_port, slots
    from verifiers.judges import LLMJudge

    def minutes(body: dict[str, Any]) -> tuple[int, str, float]:
        return 200, "VERDICT: " + ("CORRECT" if slots(body)["answer"] == "2 hours and 30 minutes" else "INCORRECT"), 0.0

    judge_server = JudgeServer(minutes)
    tokenizer = byte_tokenizer()
    prompt = "How many minutes are 2.5 hours?\n"
    completions = ["So \\boxed{2 hours and 30 minutes}.", "\\boxed{150}", "\\boxed{3 hours}", "Thought process:"]
    outputs: dict[str, list[dict[str, Any]]] = {}
    for name, url in (("up", judge_server.url), ("down", f"http://127.0.0.1:{closed_port()}/v1")):
        srv = openrlhf.RewardServer(verifier="math", judge=LLMJudge(base_url=url, model="j", retries=0), port=0)
        srv.start()
        try:
            outputs[name] = [rollout(peer, srv.url, tokenizer, prompt, "150", c) for c in completions]
        finally:
            srv.close()
    judge_server.close()
    assert [o["reward"] for o in outputs["up"]] == [[1.0], [1.0], [0.0], [0.0]]
    assert sorted(slots(b)["answer"] for _, b in judge_server.requests) == ["2 hours and 30 minutes", "3 hours"]
    assert {slots(b)["question"] for _, b in judge_server.requests} == {prompt}  # OpenRLHF's prompt
    down = [o["extra_logs"] for o in outputs["down"]]
    assert [d["masked_frac"] for d in down] == [1.0, 0.0, 1.0, 0.0]  # what the judge decided
    assert [o["reward"] for o in outputs["down"]] == [[0.0], [1.0], [0.0], [0.0]]
    batch = peer.Experience.concat_experiences([peer.to_experience(None, o, max_len=4096) for o in outputs["down"]], 0)
    items = peer.split(batch)
    assert [float(i.info["status/error"].sum()) for i in items] == [1.0, 0.0, 1.0, 0.0]


@pytest.mark.docker
def test_verifier_code_runs_json_suites_from_mbpp_rows(peer: Any) -> None:
    from verifiers.code import tests_from_row

    path = REALDATA / "code" / "mbpp_sanitized.jsonl"
    if not path.exists():
        pytest.skip(f"needs {path}")
    rows = [json.loads(line) for line in path.read_text().splitlines()][:3]
    srv = openrlhf.RewardServer(verifier="code", port=0).start()
    tokenizer = byte_tokenizer()
    try:
        got = []
        for row in rows:
            label = json.dumps(tests_from_row(row, style="mbpp"))
            for completion in (f"```python\n{row['code']}\n```", "```python\nprint('hi')\n```"):
                got.append(rollout(peer, srv.url, tokenizer, row["prompt"] + "\n", label, completion)["reward"][0])
    finally:
        srv.close()
    assert got == [1.0, 0.0] * 3


@pytest.mark.parametrize(
    ("verifier", "label", "message"),
    [
        ("math", "  ", "item 0: the label is empty"),
        ("code", "assert f(1) == 2", "item 0: the label is not JSON"),
        ("code", "[1, 2]", "a test suite is a JSON object"),
        ("code", '{"fn_name": "f"}', "not a valid gold for the code verifier"),
    ],
)
def test_verifier_mode_bad_labels_get_a_400(verifier: str, label: str, message: str) -> None:
    import http.client

    srv = openrlhf.RewardServer(verifier=verifier, port=0).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", int(srv.httpd.server_address[1]), timeout=30)
        body = {"query": ["q 1"], "prompts": ["q "], "labels": [label]}
        conn.request("POST", "/get_reward", body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 400 and message in json.loads(response.read())["error"]
        conn.close()
    finally:
        srv.close()


def test_reward_server_needs_exactly_one_of_env_and_verifier() -> None:
    from grpo_envs.errors import GrpoEnvsError

    with pytest.raises(GrpoEnvsError, match="exactly one of env_id"):
        openrlhf.RewardServer(port=0)
    with pytest.raises(GrpoEnvsError, match="exactly one of env_id"):
        openrlhf.RewardServer("grpo_envs/Arithmetic-v0", verifier="math", port=0)
    with pytest.raises(GrpoEnvsError, match="verifier must be one of"):
        openrlhf.RewardServer(verifier="chess", port=0)


def test_serve_verifier_math_from_the_console_script() -> None:
    import http.client

    script = Path(sys.executable).with_name("grpo-envs")
    command = [str(script), "serve", "--verifier", "math", "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert "serving gold answers with the math verifier at http://127.0.0.1:" in line, line
            port = int(line.split("127.0.0.1:")[1].split()[0])
            body = {"query": ["Q: 6*7? 42", "Q: 6*7? 41"], "prompts": ["Q: 6*7? "] * 2, "labels": ["42", "#### 42"]}
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", "/get_reward", body=json.dumps(body), headers={"Content-Type": "application/json"})
            payload = json.loads(conn.getresponse().read())
            conn.close()
            assert payload["rewards"] == [1.0, 0.0]
        finally:
            proc.terminate()
    both = subprocess.run(
        [str(script), "serve", "--env", "grpo_envs/Arithmetic-v0", "--verifier", "math"], capture_output=True, text=True
    )
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    elsewhere = subprocess.run(
        [str(script), "serve", "--verifier", "math", "--verifier-executor", "dask"], capture_output=True, text=True
    )
    assert elsewhere.returncode == 2 and "invalid choice: 'dask'" in elsewhere.stderr


def test_the_docs_openrlhf_flags_are_openrlhf_s(peer: Any) -> None:
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "other-trainers.md").read_text()
    block = page[page.index("OpenRLHF 0.11.2 (or any HTTP client)") :].split("```bash", 1)[1].split("```", 1)[0]
    flags = re.findall(r"(--[a-z_]+\.[a-z_.]+)", block)
    assert len(flags) >= 4, block
    source = (PEER / "openrlhf" / "cli" / "train_ppo_ray.py").read_text()
    missing = [f for f in flags if f'"{f}"' not in source]
    assert not missing, f"OpenRLHF 0.11.2's train_ppo_ray has no {missing}"


class Recording:
    """An executor (`verifiers.executors.Executor`) that says "incorrect" to everything and
    records what it was sent."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def map(self, workload: Any, references: Any, completions: Any, options: Any) -> list[Any]:
        from verifiers import VerifyResult

        self.calls.append((workload.name, len(completions)))
        return [VerifyResult.judged("incorrect", "recorded.") for _ in completions]

    def close(self) -> None:
        pass


def test_the_server_judges_on_its_executor(tmp_path: Path) -> None:
    """`grpo-envs serve --verifier-executor ray` hands requests to a RayExecutor: here a recording
    one, for both kinds of labels (RayExecutor itself: tests/verifiers/test_ray_executor.py)."""
    row = json.loads(openrlhf.write_dataset("grpo_envs/Arithmetic-v0", 1, 0, tmp_path / "d.jsonl").read_text())
    right = row["prompt"] + "\\boxed{153}"  # the task's answer, which the executor calls incorrect
    for server, label in (("grpo_envs/Arithmetic-v0", row["label"]), (None, "153")):
        executor = Recording()
        kind = {"verifier": "math"} if server is None else {}
        srv = openrlhf.RewardServer(server, port=0, executor=executor, **kind)
        body = srv.score({"query": [right] * 3, "prompts": [row["prompt"]] * 3, "labels": [label] * 3})
        srv.close()
        assert executor.calls == [("math", 3)] and body["rewards"] == [0.0] * 3
        assert body["extra_logs"]["status/incorrect"] == 3.0
    local = openrlhf.RewardServer(verifier="math", port=0)
    assert local.score({"query": [right], "prompts": [row["prompt"]], "labels": ["153"]})["rewards"] == [1.0]
    local.close()
