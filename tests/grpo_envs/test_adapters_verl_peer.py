"""The verl adapter through verl 0.9.1's own code (its own virtualenv: scripts/ensure-verl.sh,
which `make test` runs; verl pins transformers<5.11 and needs ray): verl's hydra config loads our
`compute_score`, verl's ``create_rl_dataset`` reads our parquet files, and verl's reward loop
(``RewardLoopWorker``, the ``naive`` reward manager, ``RewardLoopManager.compute_rm_score``)
gives every completion the reward ``env.step`` gives it. The worker is _verl_worker.py; no ray
cluster is started and no model is run (the completions are chosen here, tokenized by verl's
tokenizer loader from a tiny byte-level tokenizer).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests._peers import VERL, peer_python

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("_verl_worker.py")
ADAPTER = str(ROOT / "grpo_envs" / "adapters" / "verl.py")
KEYS = ["score", "correct", "status", "reason", "masked", "pred", "reward/correctness"]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def verl_python() -> str:
    return peer_python(VERL)


@pytest.fixture(scope="module")
def result(verl_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("verl")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp / "hf"),  # datasets' cache of the parquet files: not the user's
        "TOKENIZERS_PARALLELISM": "false",
        "no_proxy": "127.0.0.1,localhost",
    }
    proc = subprocess.run(
        [verl_python, str(WORKER), str(tmp)], env=env, capture_output=True, text=True, timeout=240, cwd=tmp
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"the verl worker failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    out: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    return out


def test_verl_config_loads_our_compute_score(result: dict[str, Any]) -> None:
    config = result["config"]
    assert config["path"] == ADAPTER
    # verl 0.9.1's main_ppo reads only reward.custom_reward_function: the legacy top-level spelling
    # reaches it only through migrate_legacy_reward_impl (which its fully-async entry point calls)
    assert config["legacy_path_unmigrated"] is None
    assert (config["legacy_path_migrated"], config["legacy_name_migrated"]) == (ADAPTER, "compute_score")
    assert config["legacy_manager_migrated"] == "naive"


def test_verl_dataset_reads_every_row_of_our_parquet(result: dict[str, Any]) -> None:
    # with filter_overlong_prompts, a tokenizer verl cannot apply gives an empty dataset, silently
    assert (result["len_ours"], result["len_theirs"]) == (6, 3), "verl's create_rl_dataset dropped rows"


def test_verl_reward_loop_gives_env_step_rewards(result: dict[str, Any]) -> None:
    expected, worker = result["expected"], result["worker"]
    assert len(worker) == len(expected) == 27
    wrong = [
        f"{e['env_id']} ({e['path']}) {e['completion']!r}: verl {w['score']}, env.step {e['reward']}"
        for e, w in zip(expected, worker, strict=True)
        if w["score"] != e["reward"]
    ]
    assert wrong == []
    for env_id in ("grpo_envs/Arithmetic-v0", "grpo_envs/Sorting-v0"):
        assert {e["reward"] for e in expected if e["env_id"] == env_id} == {0.0, 1.0}, env_id
    assert {e["path"] for e in expected} == {"task_seed", "ground_truth"}
    # the manager puts each score on the response's last valid token, and nowhere else
    scores = [e["reward"] for e in expected]
    assert result["rm_last"] == scores and result["rm_sum"] == scores


def test_verl_results_carry_pred_and_the_same_keys(result: dict[str, Any]) -> None:
    keys = [list(w["extra"]) for w in result["worker"]]
    assert keys == [KEYS] * len(keys), "verl takes the extra-info keys from the first result"
    assert result["manager_keys"] == KEYS
    assert result["manager_pred"] == [e["extracted"] for e in result["expected"]]
    assert [w["extra"]["pred"] for w in result["worker"]] == result["manager_pred"]
    assert {e["extracted"] for e in result["expected"]} >= {"", "123456789", "-43, 38, 50, 96"}
    for source in ("grpo_envs/Arithmetic-v0", "grpo_envs/Sorting-v0"):
        assert {"maj@3/mean", "best@3/mean", "mean@3"} <= set(result["metrics"][source]), source


def test_verl_reward_loop_awaits_the_async_batch_form(verl_python: str, tmp_path: Path) -> None:
    # compute_score_async (reward_kwargs {"verifier_executor": ...}) through verl's own reward worker:
    # every row gets env.step's reward and the same keys as compute_score gives
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    env.update(HF_HOME=str(tmp_path / "hf"), TOKENIZERS_PARALLELISM="false")
    worker = Path(__file__).with_name("_verl_async_worker.py")
    proc = subprocess.run(
        [verl_python, str(worker), str(tmp_path)], env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"the verl worker failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    out = json.loads(lines[-1][len("RESULT ") :])
    assert [w["score"] for w in out["worker"]] == [e["reward"] for e in out["expected"]]
    assert len(out["worker"]) == 27 and {e["reward"] for e in out["expected"]} == {0.0, 1.0}
    assert all(list(w["extra"]) == KEYS for w in out["worker"])


def test_verl_reward_loop_with_a_judge_in_reward_kwargs(verl_python: str, tmp_path: Path) -> None:
    # reward_kwargs {"judge": {url, model, retries}} through verl's own config and reward worker, a
    # scripted judge on 127.0.0.1: every row gets what env.step gives with the same judge (the rule
    # first; only its rejections that hold an answer are asked), and a dead judge masks those rows
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    env.update(HF_HOME=str(tmp_path / "hf"), TOKENIZERS_PARALLELISM="false", no_proxy="127.0.0.1,localhost")
    worker = Path(__file__).with_name("_verl_judge_worker.py")
    proc = subprocess.run(
        [verl_python, str(worker), str(tmp_path)], env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"the verl worker failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    out = json.loads(lines[-1][len("RESULT ") :])
    expected, got = out["expected"], out["worker"]
    assert [w["score"] for w in got] == [e["reward"] for e in expected]
    assert [w["extra"]["reason"] for w in got] == [e["reason"] for e in expected]
    assert [e["status"] for e in expected] == ["correct", "correct", "incorrect", "no_answer"] * 2
    assert expected[1]["reason"].startswith("The judge decided")  # "pay me": the rule said no, the judge paid
    assert out["verl_asked"] == out["asked"] == 4 and out["answers"] == ["123456789", "pay me"]
    dead = [w["extra"] for w in out["dead"]]
    assert [d["masked"] for d in dead] == [False, True, True, False] * 2  # what the judge decided: masked
    assert all(d["correct"] is None for d in dead if d["masked"])
