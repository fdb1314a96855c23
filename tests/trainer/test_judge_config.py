"""An LLM judge named by settings (`grpo_envs.JudgeConfig`) in ``grpo-envs train`` (the config's
``judge`` table, ``--judge-*`` flags) and ``grpo-envs eval`` (the same flags), against a scripted
judge on 127.0.0.1: the rule's rejections are judged and keep both verdicts; a dead judge masks
them (correct None), never a 0 and never a crash."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grpo_envs import JudgeConfig
from tests.verifiers.judge_server import JudgeServer, closed_port, slots
from trainer import TrainerError
from trainer.cli import parser
from trainer.config import GRPOConfig, config_from_args, load_config
from trainer.eval._cli import main as eval_main
from trainer.grpo import GRPOTrainer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ENV = "grpo_envs/Digits-v0"  # the demo model's env: its rule reads the first character


def parity(body: dict[str, Any]) -> tuple[int, str, float]:
    """A judge that calls a digit of the reference's parity correct (so it differs from the rule)."""
    s = slots(body)
    same = s["answer"].isdigit() and int(s["answer"]) % 2 == int(s["reference"]) % 2
    return 200, "VERDICT: " + ("CORRECT" if same else "INCORRECT"), 0.0


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    server = JudgeServer(parity)
    yield server
    server.close()


def dead() -> dict[str, Any]:
    return {"url": f"http://127.0.0.1:{closed_port()}/v1", "model": "judge", "retries": 0}


def test_the_judge_table_the_flags_and_their_errors(tmp_path: Path) -> None:
    file = tmp_path / "run.toml"
    file.write_text('[judge]\nurl = "http://127.0.0.1:9/v1"\nmodel = "m"\nretries = 1\n')
    cfg = load_config(file)
    assert cfg.judge == JudgeConfig("http://127.0.0.1:9/v1", "m", options={"retries": 1})
    args = parser().parse_args(["--config", str(file), "--judge-model", "other", "--judge-mode", "judge"])
    flagged = config_from_args(args).judge
    assert flagged is not None and (flagged.model, flagged.mode, flagged.options) == ("other", "judge", {"retries": 1})
    assert GRPOConfig().judge is None and GRPOConfig(judge={}).judge is None
    for bad, message in [
        ({"url": "http://127.0.0.1:9/v1"}, "needs model"),
        ({"url": "http://a/v1", "model": "m", "mode": "vote"}, "judge mode must be one of hybrid, judge"),
        ({"url": "http://a/v1", "model": "m", "api_key": "sk-1"}, "a key goes in an environment variable"),
        ({"url": "http://a/v1", "model": "m", "retrys": 1}, "takes no setting 'retrys'"),
    ]:
        with pytest.raises(TrainerError, match=message):
            GRPOConfig(judge=bad)
    with pytest.raises(TrainerError, match="JUDGE_KEY_UNSET: that environment variable is not set"):
        GRPOTrainer(GRPOConfig(judge={**dead(), "api_key_env": "JUDGE_KEY_UNSET"}, output_dir=str(tmp_path / "r")))


def test_a_training_run_asks_the_judge_about_the_rules_rejections(tmp_path: Path, judge: JudgeServer) -> None:
    cfg = GRPOConfig(
        steps=2, prompts_per_step=2, num_generations=4, max_new_tokens=1, eval_prompts=2, save_every=0,
        output_dir=str(tmp_path / "run"), device="cpu", judge={"url": judge.url, "model": "judge", "retries": 0},
    )  # fmt: skip
    trainer = GRPOTrainer(cfg, show_progress=False)
    verifier = trainer.make_env().unwrapped.verifier
    assert verifier.name == "first-digit+judge"
    trainer.train()
    asked = [slots(body) for _, body in judge.requests]
    assert asked, "the rule rejected answers, so the judge was asked"
    assert all(len(s["answer"]) == 1 and s["answer"] != s["reference"] for s in asked)  # only rejections


def test_a_dead_judge_masks_the_rejections_in_training(tmp_path: Path) -> None:
    cfg = GRPOConfig(
        steps=1, prompts_per_step=2, num_generations=4, max_new_tokens=1, eval_prompts=2, save_every=0,
        output_dir=str(tmp_path / "run"), device="cpu", judge=dead(),
    )  # fmt: skip
    result = GRPOTrainer(cfg, show_progress=False).train()
    assert 0.0 < result["unjudged_frac"] <= 1.0  # masked out of the loss, the run went on


def eval_rows(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


def test_eval_judges_the_rules_rejections_and_keeps_both_verdicts(
    tmp_path: Path, judge: JudgeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    common = [
        "--env", ENV, "--model", "demo", "-n", "4", "--samples", "4", "--max-new-tokens", "1",
        "--temperature", "1.0", "--device", "cpu", "--no-progress", "--judge-options", '{"retries": 0}',
    ]  # fmt: skip
    assert eval_main([*common, "--out", str(tmp_path / "a"), "--judge-url", judge.url, "--judge-model", "j"]) == 0
    rows = eval_rows(tmp_path / "a")
    judged = [r for r in rows if r["reason"].startswith("The judge decided")]
    assert len(judged) == len(judge.requests) > 0
    for r in judged:  # the rule's verdict is kept in the reason; the judge's decided
        gold = re.search(r"The rule said incorrect: .*; the answer is '(\d)'", r["reason"])
        digit = r["extracted"].isdigit() and int(r["extracted"]) % 2 == int(gold.group(1)) % 2 if gold else None
        assert gold is not None and r["correct"] is digit
    ruled = [r for r in rows if r not in judged]
    assert all(r["status"] in ("correct", "no_answer") for r in ruled)  # accepted, or nothing to judge

    from trainer.eval import evaluate

    shared = dict(n=4, samples=4, max_new_tokens=1, temperature=1.0, device="cpu", show_progress=False)
    summary = evaluate(ENV, "demo", out=str(tmp_path / "b"), judge=JudgeConfig.from_dict(dead()), **shared)
    masked = eval_rows(tmp_path / "b")
    for before, after in zip(rows, masked, strict=True):
        if before in judged:  # the same samples: what the judge decided is now masked, never a 0
            assert after["correct"] is None and after["status"] == "error" and after["reason"].startswith("Masked")
    assert summary["unjudged"] == len(judged)  # the dead judge's table counts them as not judged
    down = ["--judge-url", dead()["url"], "--judge-model", "j"]  # the command line refuses it at the start
    assert eval_main([*common, "--out", str(tmp_path / "d"), *down]) == 2
    assert "the judge: cannot reach the server at http://127.0.0.1:" in capsys.readouterr().err
    assert eval_main([*common, "--out", str(tmp_path / "c"), "--judge-model", "j"]) == 2
    assert "the --judge-* flags need --judge-url" in capsys.readouterr().err


def test_a_reward_model_named_by_the_judge_table_scores_a_training_run(tmp_path: Path) -> None:
    """``judge = {reward_model = DIR, mode = "judge"}`` (or ``--judge-reward-model DIR``): the
    reward model's score is every completion's reward; in a hybrid it is asked about the rule's
    rejections only. One line for an LLM's settings beside a reward model, or its unknown keys."""
    from tests.verifiers.test_judges_reward_model import save_reward_model
    from verifiers.judges import RewardModel

    folder = str(save_reward_model(tmp_path / "rm"))
    args = parser().parse_args(["--judge-reward-model", folder, "--judge-mode", "judge"])
    settings = config_from_args(args).judge
    assert settings == JudgeConfig(reward_model=folder, mode="judge")
    assert JudgeConfig.from_dict(settings.to_dict()) == settings
    cfg = GRPOConfig(
        steps=2, prompts_per_step=2, num_generations=4, max_new_tokens=1, eval_prompts=2, save_every=0,
        output_dir=str(tmp_path / "run"), device="cpu", judge={"reward_model": folder, "mode": "judge", "device": "cpu"},
    )  # fmt: skip
    trainer = GRPOTrainer(cfg, show_progress=False)
    env = trainer.make_env()
    assert env.unwrapped.verifier.name == "first-digit+judge"
    prompt, _ = env.reset(seed=0)
    _, reward, *_, info = env.step("7")
    assert 0.0 < reward < 1.0 and info["judgement"].judged  # a sigmoid score, not the rule's 0/1
    assert reward == pytest.approx(RewardModel(folder, device="cpu").verify("", "7", prompt=prompt).reward)
    last = trainer.train()
    assert last["step"] == 2 and 0.0 < last["reward_mean"] < 1.0 and last["reward_std"] > 0.0
    for bad, message in [
        ({"reward_model": folder, "url": "http://a/v1", "model": "m"}, "either an LLM .url, model. or a reward_model"),
        ({"reward_model": folder, "retries": 1}, "a reward model takes no setting 'retries'"),
        ({"reward_model": ""}, "reward_model must be a model's directory or hub name"),
    ]:
        with pytest.raises(TrainerError, match=message):
            GRPOConfig(judge=bad)
