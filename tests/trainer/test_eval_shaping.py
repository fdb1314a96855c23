"""Overlong shaping in eval and the audit (`trainer.eval._shaping`): an eval of a run's model shapes
its samples' rewards as the run did (its lengths, not eval's), reports ``reward/overlong`` beside a
correct rate that stays the verdict's, and the audit reads the part while comparing verdicts before it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trainer import TrainerError
from trainer.audit import audit
from trainer.config import GRPOConfig
from trainer.eval import evaluate
from trainer.sampling._shaping import overlong_penalty

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
SHAPED = {"overlong": True, "overlong_max": 2, "overlong_buffer": 1}
ARGS: dict[str, Any] = dict(n=6, samples=4, device="cpu", temperature=1.0, show_progress=False)


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1-step run on Digits trained with overlong shaping at L_max 2, L_cache 1 (its rollout log kept)."""
    from trainer.grpo import GRPOTrainer

    folder = tmp_path_factory.mktemp("shaped") / "run"
    cfg = GRPOConfig(
        env="grpo_envs/Digits-v0", steps=1, prompts_per_step=2, num_generations=2, max_new_tokens=2,
        beta=0.0, output_dir=str(folder), save_every=0, eval_prompts=1, device="cpu", sampling=SHAPED,
    )  # fmt: skip
    GRPOTrainer(cfg, show_progress=False, rollout_log=True).train()
    return folder


def test_eval_of_a_shaped_runs_model_shapes_as_the_run_did(run: Path, tmp_path: Path) -> None:
    model = str(run / "final")
    shaped = evaluate("grpo_envs/Digits-v0", model, out=tmp_path / "a", max_new_tokens=4, **ARGS)
    plain = evaluate("grpo_envs/Digits-v0", model, out=tmp_path / "b", max_new_tokens=4, shaping={"overlong": False},
                     **ARGS)  # fmt: skip
    a, b = rows(tmp_path / "a" / "samples.jsonl"), rows(tmp_path / "b" / "samples.jsonl")
    assert shaped["overlong"] == [2, 1] and plain["overlong"] is None, "the run's lengths, not eval's 4 tokens"
    assert "overlong" not in b[0] and "reward/overlong" not in plain
    assert any(r["tokens"] > 2 for r in a), "the test needs completions past the run's L_max"
    for x, y in zip(a, b, strict=True):  # the same samples: only the reward differs, by the penalty
        assert x["completion"] == y["completion"] and (x["correct"], x["status"]) == (y["correct"], y["status"])
        if x["correct"] is not None:
            assert x["overlong"] == overlong_penalty(x["tokens"], max_len=2, buffer=1)
            assert x["reward"] == pytest.approx(y["reward"] + x["overlong"])
    for key in ("pass@1", "pass@4", "maj@4"):  # the correct rate stays the verdict's
        assert shaped[key] == plain[key], key
    judged = [r["overlong"] for r in a if r["correct"] is not None]
    assert (
        shaped["reward/overlong"]["value"]
        == pytest.approx(
            sum(sum(r["overlong"] for r in a if r["task_seed"] == s) / 4 for s in {r["task_seed"] for r in a}) / 6
        )
        and min(judged) == -1.0
    )
    assert shaped["reward_mean"]["value"] == pytest.approx(
        plain["reward_mean"]["value"] + shaped["reward/overlong"]["value"]
    )


def test_the_cli_flags_turn_shaping_on_for_any_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from trainer.eval._cli import main

    base = ["--env", "grpo_envs/Digits-v0", "--model", "demo", "-n", "4", "--samples", "2", "--device", "cpu"]
    flags = ["--max-new-tokens", "3", "--sampling-overlong", "true", "--sampling-overlong-buffer", "2", "--no-progress"]
    assert main([*base, *flags, "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "reward/overlong" in out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["overlong"] == [3, 2], "a model that is no run: L_max is eval's --max-new-tokens"
    assert all("overlong" in r for r in rows(tmp_path / "r" / "samples.jsonl"))
    assert main([*base, "--sampling-overlong", "maybe", "--out", str(tmp_path / "s")]) == 2
    assert "sampling: overlong: cannot read 'maybe'" in capsys.readouterr().err
    with pytest.raises(TrainerError, match="eval shapes rewards with overlong, overlong_max, overlong_buffer only"):
        evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "t", shaping={"dynamic": True}, **ARGS)


def test_the_audit_sees_the_part_and_compares_verdicts_before_it(run: Path, tmp_path: Path) -> None:
    logged = rows(run / "rollouts.jsonl")  # the trainer's rows carry the part too
    assert all(r["overlong"] == overlong_penalty(r["tokens"], max_len=2, buffer=1) for r in logged if r["correct"])
    evaluate("grpo_envs/Digits-v0", str(run / "final"), out=tmp_path / "e", max_new_tokens=4, **ARGS)
    samples = rows(tmp_path / "e" / "samples.jsonl")
    report = audit(tmp_path / "e" / "samples.jsonl", rescore=True, show_progress=False)
    penalized = sum(r["overlong"] < 0 for r in samples)
    assert dict(report.overlong) == pytest.approx(
        {"samples": len(samples), "penalized": penalized, "mean": sum(r["overlong"] for r in samples) / len(samples)}
    )
    assert f"over {len(samples)} shaped samples, {penalized} penalized" in report.table()
    summary = json.loads((tmp_path / "e" / "audit" / "summary.json").read_text())
    assert summary["reward/overlong"] == pytest.approx(dict(report.overlong))
    assert audit(run / "rollouts.jsonl", out=tmp_path / "p", show_progress=False).overlong["samples"] == len(logged)
    row = {
        "task_seed": 1,
        "sample": 0,
        "completion": "so \\boxed{4}",
        "reference": "4",
        "reward": 0.0,
        "overlong": -1.0,
        "correct": True,
        "status": "correct",
        "reason": "The values are equal.",
        "extracted": "4",
        "tokens": 9,
    }
    lines = [row, {**row, "sample": 1, "reward": 1.0, "overlong": 0.0}]  # fmt: skip
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    again = audit(tmp_path / "s.jsonl", rescore=True, show_progress=False)  # stored verdict vs ours now
    assert (again.agree, again.disagreements) == (2, 0), "a penalized right answer stays right: verdicts are unshaped"
    assert dict(again.overlong) == {"samples": 2, "penalized": 1, "mean": -0.5}
