"""The adapters: TRL (the real GRPOTrainer), verl (its documented layout), OpenRLHF (a real server).

Golden episodes pin what every trainer receives: a change to task generation, extraction or
rewards fails here loudly.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest

from grpo_envs.adapters import openrlhf, verl
from grpo_envs.adapters import trl as trl_adapter
from grpo_envs.adapters._common import task_seeds

SEED = task_seeds(0, 1)[0]
GOLDEN = [
    {
        "env_id": "grpo_envs/Arithmetic-v0",
        "env_kwargs": {},
        "prompt": "Compute the exact value of: (8 * 11) + (5 * 13)\n\nReason step by step, then put your final answer within \\boxed{}.",
        "completions": [
            "The final answer is $\\boxed{153}$.",
            "I am not sure.",
            "So it is \\boxed{953}.",
            "\\boxed{153.0}",
        ],
        "rewards": [1.0, 0.0, 0.0, 1.0],
    },
    {
        "env_id": "grpo_envs/Countdown-v0",
        "env_kwargs": {},
        "prompt": "Using the numbers [17, 20, 21, 49] exactly once each, with +, -, *, / and parentheses, write an expression equal to 2842.\n\nReason step by step, then give only the final answer inside <answer></answer>.",
        "completions": [
            "<answer>((17 + 20) + 21) * 49</answer>",
            "I am not sure.",
            "<answer>(17 + 20 + 21) * 48</answer>",
            "<answer>49 * (21 + 20 + 17) = 2842</answer>",
        ],
        "rewards": [1.0, 0.0, 0.0, 1.0],
    },
    {
        "env_id": "grpo_envs/Sorting-v0",
        "env_kwargs": {"length": 4},
        "prompt": "Sort these numbers in ascending order: 50, 38, -43, 96. Answer with the sorted numbers separated by commas.\n\nReason step by step, then put your final answer within \\boxed{}.",
        "completions": [
            "$\\boxed{-43, 38, 50, 96}$",
            "\\boxed{96, 50, 38, -43}",
            "\\boxed{-43, 38, 50}",
            "The answer is -43, 38, 50, 96.",
        ],
        "rewards": [1.0, 0.0, 0.0, 1.0],
    },
    {
        "env_id": "grpo_envs/Digits-v0",
        "env_kwargs": {},
        "prompt": "s7=",
        "completions": ["8", "I am not sure.", "9", "8=="],
        "rewards": [1.0, 0.0, 0.0, 1.0],
    },
]
IDS = [g["env_id"].split("/")[1] for g in GOLDEN]


@pytest.mark.parametrize("golden", GOLDEN, ids=IDS)
def test_golden_episodes_through_env_step(golden: dict[str, Any]) -> None:
    env = gymnasium.make(golden["env_id"], **golden["env_kwargs"])
    rewards = []
    for completion in golden["completions"]:
        prompt, _ = env.reset(seed=SEED)
        assert prompt == golden["prompt"]
        rewards.append(env.step(completion)[1])
    assert rewards == golden["rewards"]


@pytest.mark.parametrize("golden", GOLDEN, ids=IDS)
def test_golden_episodes_through_trl_reward_and_dataset(golden: dict[str, Any]) -> None:
    ds = trl_adapter.dataset(golden["env_id"], n=1, seed=0, **golden["env_kwargs"])
    assert ds[0]["prompt"] == golden["prompt"] and ds[0]["task_seed"] == SEED
    reward = trl_adapter.reward_function(golden["env_id"], **golden["env_kwargs"])
    n = len(golden["completions"])
    logged: list[tuple[str, float]] = []
    got = reward(
        prompts=[golden["prompt"]] * n,
        completions=golden["completions"],
        completion_ids=[[0]] * n,
        task_seed=[SEED] * n,
        split=["train"] * n,
        reference=[ds[0]["reference"]] * n,
        task_id=[ds[0]["task_id"]] * n,
        trainer_state=object(),
        log_extra=lambda *a, **k: None,
        log_metric=lambda k, v: logged.append((k, v)),
        environments=None,
        some_future_kwarg=1,
    )
    assert got == golden["rewards"]
    assert logged == [("grpo_envs/correct_rate", sum(r == 1.0 for r in golden["rewards"]) / n)]
    conversational = [[{"role": "assistant", "content": c}] for c in golden["completions"]]
    assert reward(completions=conversational, task_seed=[SEED] * n) == golden["rewards"]


def test_trl_reward_refuses_a_dataset_built_for_another_env_version() -> None:
    reward = trl_adapter.reward_function("grpo_envs/Arithmetic-v0")
    with pytest.raises(Exception, match="another env version"):
        reward(completions=["\\boxed{1}"], task_seed=[SEED], reference=["not the reference"])
    with pytest.raises(ValueError, match="task_seed"):
        reward(completions=["\\boxed{1}"])


@pytest.mark.parametrize("golden", GOLDEN, ids=IDS)
def test_golden_episodes_through_verl(golden: dict[str, Any], tmp_path: Path) -> None:
    rows = verl.rows(golden["env_id"], 1, 0, **golden["env_kwargs"])
    row = rows[0]
    assert set(row) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert row["prompt"] == [{"role": "user", "content": golden["prompt"]}]
    assert row["reward_model"]["style"] == "rule" and isinstance(row["reward_model"]["ground_truth"], str)
    scores = [
        verl.compute_score(row["data_source"], c, row["reward_model"]["ground_truth"], row["extra_info"])
        for c in golden["completions"]
    ]
    assert [s["score"] for s in scores] == golden["rewards"]
    assert [s["correct"] for s in scores] == [r == 1.0 for r in golden["rewards"]]
    if golden["env_id"] == "grpo_envs/Arithmetic-v0":  # a reference-only call, no extra_info
        assert (
            verl.compute_score(row["data_source"], golden["completions"][0], row["reward_model"]["ground_truth"])[
                "score"
            ]
            == 1.0
        )


def test_verl_results_carry_pred_and_the_same_keys_whatever_happens(monkeypatch: pytest.MonkeyPatch) -> None:
    # verl takes the keys of its extra reward info from a batch's first result, and its maj@N
    # votes on "pred": every result of one env has the same keys, with or without extra_info,
    # right, wrong, unanswered, and with a rubric part that does not apply (NaN, not missing).
    from grpo_envs._rubric import RewardTerm, Rubric
    from grpo_envs.adapters._common import Scorer

    term = RewardTerm("polite", lambda task, completion, result: None if "skip" in completion else 1.0, 0.5)
    scorer = Scorer("grpo_envs/Arithmetic-v0", rubric=Rubric(terms=(term,)))
    monkeypatch.setattr(verl, "_scorer", lambda env_id, env_kwargs=None, judge="": scorer)
    row = verl.rows("grpo_envs/Arithmetic-v0", 1, 0)[0]
    truth = row["reward_model"]["ground_truth"]
    completions = ["so \\boxed{153}", "so \\boxed{953}", "I am not sure.", "skip: \\boxed{153}"]
    results = [verl.compute_score(row["data_source"], c, truth, row["extra_info"]) for c in completions]
    results += [verl.compute_score(row["data_source"], c, truth) for c in completions]
    keys = ["score", "correct", "status", "reason", "masked", "pred", "reward/correctness", "reward/polite"]
    assert [list(r) for r in results] == [keys] * 8
    assert [r["pred"] for r in results] == ["153", "953", "", "153"] * 2
    assert [r["score"] for r in results] == pytest.approx([1.0, 1 / 3, 1 / 3, 1.0] * 2)  # polite: weight 0.5
    polite = [r["reward/polite"] for r in results]
    assert polite[:3] == polite[4:7] == [1.0] * 3 and math.isnan(polite[3]) and math.isnan(polite[7])


@pytest.mark.parametrize("executor", ["local", "through an executor"])
def test_verl_batch_form_gives_each_completion_what_compute_score_gives(
    executor: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # verl's `batch` reward manager: one call for the batch, rows of several envs interleaved
    from verifiers.executors import LocalExecutor

    if executor != "local":  # the executor path (threads, Group-wise executor calls), without a Ray cluster
        monkeypatch.setattr(verl, "named_executor", lambda name: LocalExecutor())
    sources, texts, truths, infos = [], [], [], []
    for k in range(4):
        for golden in GOLDEN:
            row = verl.rows(golden["env_id"], 1, 0, **golden["env_kwargs"])[0]
            sources.append(row["data_source"])
            texts.append(golden["completions"][k % len(golden["completions"])])
            truths.append(row["reward_model"]["ground_truth"])
            infos.append(row["extra_info"] if k % 2 == 0 else None)  # with and without extra_info
    batch = verl.compute_score_batch(sources, texts, truths, infos)
    assert batch == [verl.compute_score(*item) for item in zip(sources, texts, truths, infos, strict=True)]
    with pytest.raises(ValueError, match="one of each per completion"):
        verl.compute_score_batch(sources, texts[:-1], truths, infos)


def test_verl_async_form_judges_rows_awaited_together_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    # verl 0.9's reward worker awaits every row of a batch at once (asyncio.gather)
    import asyncio

    rows = [verl.rows(g["env_id"], 1, 0, **g["env_kwargs"])[0] for g in GOLDEN]
    items = [
        (row["data_source"], c, row["reward_model"]["ground_truth"], row["extra_info"])
        for row, golden in zip(rows, GOLDEN, strict=True)
        for c in golden["completions"]
    ]
    calls: list[int] = []
    batch_form = verl.compute_score_batch

    def counted(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        calls.append(len(args[1]))
        return batch_form(*args, **kwargs)

    monkeypatch.setattr(verl, "compute_score_batch", counted)

    async def verl_reward_worker() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(verl.compute_score_async(*item) for item in items)))

    assert asyncio.run(verl_reward_worker()) == [verl.compute_score(*item) for item in items]
    assert calls == [len(items)]  # one batch, not one call per row


def test_verl_parquet_layout(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = verl.write_parquet("grpo_envs/Arithmetic-v0", 5, 0, tmp_path / "train.parquet")
    table = pq.read_table(path).to_pylist()
    assert len(table) == 5 and table[0]["reward_model"]["ground_truth"] and table[0]["extra_info"]["task_seed"] == SEED
    assert table[0]["prompt"][0]["role"] == "user"


# -- OpenRLHF: a real server, a real client ------------------------------------------------------
@pytest.fixture
def server() -> Iterator[openrlhf.RewardServer]:
    srv = openrlhf.RewardServer("grpo_envs/Arithmetic-v0", port=0).start()
    yield srv
    srv.close()


def post(
    srv: openrlhf.RewardServer, body: Any, *, token: str | None = None, raw: bytes | None = None
) -> tuple[int, Any]:
    host, port = srv.httpd.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=30)
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request("POST", "/get_reward", body=data, headers=headers)
    response = conn.getresponse()
    payload = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, payload


def test_openrlhf_scores_equal_env_step(server: openrlhf.RewardServer, tmp_path: Path) -> None:
    golden = GOLDEN[0]
    path = openrlhf.write_dataset("grpo_envs/Arithmetic-v0", 1, 0, tmp_path / "train.jsonl")
    row = json.loads(path.read_text().splitlines()[0])
    assert row["prompt"] == golden["prompt"]
    prompt = row["prompt"]
    queries = [prompt + c + "<|im_end|><|endoftext|>" for c in golden["completions"]]
    status, body = post(server, {"query": queries, "prompts": [prompt] * 4, "labels": [row["label"]] * 4})
    assert status == 200, body
    assert body["rewards"] == golden["rewards"] == body["scores"]
    assert body["extra_logs"]["correct_rate"] == 0.5
    # OpenRLHF sends one sample per request and concatenates their logs: the keys never vary
    _, wrong = post(server, {"query": [prompt + "no idea"], "prompts": [prompt], "labels": [row["label"]]})
    assert tuple(body["extra_logs"]) == tuple(wrong["extra_logs"]) == openrlhf.EXTRA_LOG_KEYS
    assert all(isinstance(v, float) for v in wrong["extra_logs"].values())
    assert sum(body["extra_logs"][k] for k in openrlhf.EXTRA_LOG_KEYS if k.startswith("status/")) == 4
    conn = http.client.HTTPConnection(*server.httpd.server_address[:2], timeout=10)  # type: ignore[misc]
    conn.request("GET", "/health")
    assert json.loads(conn.getresponse().read())["status"] == "ok"
    conn.close()


def test_openrlhf_prompt_numbers_never_reach_extraction(server: openrlhf.RewardServer, tmp_path: Path) -> None:
    row = json.loads(openrlhf.write_dataset("grpo_envs/Arithmetic-v0", 1, 0, tmp_path / "d.jsonl").read_text())
    # An empty response: the prompt holds numbers, but only the response is judged.
    status, body = post(server, {"query": [row["prompt"]], "prompts": [row["prompt"]], "labels": [row["label"]]})
    assert status == 200 and body["rewards"] == [0.0]


@pytest.mark.parametrize(
    ("body", "raw", "status", "message"),
    [
        (None, b"{not json", 400, "not JSON"),
        (None, b"[" * 100_000 + b"]" * 100_000, 400, "nests too deeply"),  # was: no response, a RecursionError
        ([1, 2], None, 400, "JSON object"),
        ({"query": ["a"], "prompts": ["b"], "labels": ["{}"]}, None, 400, "does not start with its prompt"),
        ({"query": ["ab"], "prompts": ["a"], "labels": ["seed 3"]}, None, 400, "not a task key"),
        ({"query": ["a", "b"], "prompts": ["a"], "labels": ["x"]}, None, 400, "differ in length"),
        ({"query": "a", "prompts": ["a"], "labels": ["x"]}, None, 400, "list of strings"),
        (
            {"query": ["ab"], "prompts": ["a"], "labels": [openrlhf.task_key("grpo_envs/Sorting-v0", "train", 1)]},
            None,
            400,
            "this server scores",
        ),
    ],
)
def test_openrlhf_malformed_requests_get_4xx_and_the_server_survives(
    server: openrlhf.RewardServer, body: Any, raw: bytes | None, status: int, message: str, tmp_path: Path
) -> None:
    got, payload = post(server, body, raw=raw)
    assert got == status and message in payload["error"]
    test_openrlhf_scores_equal_env_step(server, tmp_path)  # still serving, correctly


def test_openrlhf_request_bounds(tmp_path: Path) -> None:
    srv = openrlhf.RewardServer("grpo_envs/Arithmetic-v0", port=0, max_bytes=1000, max_items=2).start()
    try:
        status, payload = post(srv, {"query": ["x" * 2000], "prompts": ["x"], "labels": ["x"]})
        assert status == 413 and "at most 1000" in payload["error"]
        status, payload = post(srv, {"query": ["a"] * 3, "prompts": ["a"] * 3, "labels": ["x"] * 3})
        assert status == 413 and "at most 2" in payload["error"]
    finally:
        srv.close()


def test_openrlhf_token(tmp_path: Path) -> None:
    srv = openrlhf.RewardServer("grpo_envs/Arithmetic-v0", port=0, token="s3cret").start()
    row = json.loads(openrlhf.write_dataset("grpo_envs/Arithmetic-v0", 1, 0, tmp_path / "d.jsonl").read_text())
    body = {"query": [row["prompt"] + "\\boxed{153}"], "prompts": [row["prompt"]], "labels": [row["label"]]}
    try:
        assert post(srv, body)[0] == 401
        assert post(srv, body, token="wrong")[0] == 401
        status, payload = post(srv, body, token="s3cret")
        assert status == 200 and payload["rewards"] == [1.0]
    finally:
        srv.close()


def test_openrlhf_200_concurrent_requests_are_not_mixed(server: openrlhf.RewardServer, tmp_path: Path) -> None:
    path = openrlhf.write_dataset("grpo_envs/Arithmetic-v0", 20, 0, tmp_path / "d.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    env = gymnasium.make("grpo_envs/Arithmetic-v0").unwrapped
    answers = []
    for row in rows:
        env.reset(seed=json.loads(row["label"])["seed"])
        answers.append(env.task.answer)

    def one(k: int) -> bool:
        row = rows[k % 20]
        right = k % 3 != 0
        response = f"\\boxed{{{answers[k % 20]}}}" if right else "\\boxed{123456789}"
        status, body = post(
            server, {"query": [row["prompt"] + response], "prompts": [row["prompt"]], "labels": [row["label"]]}
        )
        return status == 200 and body["rewards"] == [1.0 if right else 0.0]

    with concurrent.futures.ThreadPoolExecutor(64) as pool:
        results = list(pool.map(one, range(200)))
    assert all(results), f"{results.count(False)} of 200 answers were wrong or mixed"


def test_grpo_envs_serve_cli(tmp_path: Path) -> None:
    import shutil
    import socket
    import subprocess
    import sys
    import time

    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [script, "serve", "--env", "grpo_envs/Digits-v0", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                try:
                    conn.request("GET", "/health")
                    assert json.loads(conn.getresponse().read())["env"] == "grpo_envs/Digits-v0"
                finally:
                    conn.close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
