"""The trainer and eval tell the envs when the policy's chat template opens the thought (DeepSeek-R1
distills, Qwen3-Thinking, QwQ: the generation prompt ends with ``<think>``): a completion cut off
before ``</think>`` that boxed the right value while thinking is paid 0 in train and eval rollouts
with the R1 distill's template, and judged as written (paid 1) with Qwen3's, which opens none.

The policy is the tiny model made to sample one token always, the added token ``\\boxed{7} ``; the
tokenizer is byte-level with the vendored templates (no model files are downloaded)."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from grpo_envs import ReasoningEnv, Task
from tests.grpo_envs._byte_tokenizer import byte_tokenizer
from tests.trainer.test_stop_ids import _always
from trainer.config import GRPOConfig
from trainer.eval import evaluate
from trainer.grpo import GRPOTrainer
from trainer.rollouts._envs import told_opened_thought
from trainer.workers._worker import WorkerSpec, _Worker

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = {
    "r1": (ROOT / "verifiers" / "templates" / "deepseek_r1_distill_llama.jinja").read_text(),  # opens <think>
    "qwen3": (ROOT / "grpo_envs" / "chat_templates" / "Qwen-Qwen3-0.6B.jinja").read_text(),  # opens none
}
BOXED = "\\boxed{7} "
PAID = {"r1": 0.0, "qwen3": 1.0}


class Seven(ReasoningEnv):
    """One task, whose answer is 7."""

    def make_task(self, rng: random.Random) -> Task:
        return Task("seven", "What is 3 + 4?", "7")


def _tokenizer(family: str) -> Any:
    tok = byte_tokenizer(("<|endoftext|>", "<|im_end|>", "<|im_start|>", "<｜begin▁of▁sentence｜>"))
    tok.bos_token = "<｜begin▁of▁sentence｜>"
    tok.add_tokens([BOXED])
    tok.chat_template = TEMPLATES[family]
    return tok


def _policy(family: str) -> tuple[Any, Any]:
    tok = _tokenizer(family)
    return _always(tok, BOXED), tok


@pytest.mark.parametrize("family", list(TEMPLATES))
def test_train_rollouts_pay_a_value_boxed_in_a_cut_off_thought_only_when_the_template_opened_none(
    family: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model, tok = _policy(family)
    caplog.set_level(logging.INFO, logger="trainer")
    cfg = GRPOConfig(
        steps=1, prompts_per_step=2, num_generations=2, max_new_tokens=3, beta=0.0, eval_prompts=2,
        output_dir=str(tmp_path / "run"), save_every=0, device="cpu",
    )  # fmt: skip
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tok, env=Seven, show_progress=False)
    opened = {"r1": "think", "qwen3": None}[family]
    assert trainer._envs[0].unwrapped.thought_opened == opened  # the probe too, not only envs made later
    said = [r.getMessage() for r in caplog.records if "opens the thought" in r.getMessage()]
    assert len(said) == (opened is not None)  # said once, and only when it is so
    groups = trainer._rollouts([1, 2], trainer._pool(trainer._envs, 2))
    rollouts = [r for g in groups for r in g]
    assert all(tok.decode(r.ids[-3:]) == BOXED * 3 for r in rollouts)  # cut off at max_new_tokens, no </think>
    assert [r.reward for r in rollouts] == [PAID[family]] * 4
    if family == "r1":
        assert {r.status for r in rollouts} == {"no_answer"} and "never closed" in str(rollouts[0].reason)
    assert trainer.step()["correct_rate"] == PAID[family]
    assert trainer.evaluate()["reward_mean"] == PAID[family]  # the eval split's envs are told too
    trainer.close()


@pytest.mark.parametrize("family", list(TEMPLATES))
def test_eval_pays_a_value_boxed_in_a_cut_off_thought_only_when_the_template_opened_none(
    family: str, tmp_path: Path
) -> None:
    model, tok = _policy(family)
    out = tmp_path / "eval"
    summary = evaluate(
        Seven, model, tokenizer=tok, n=2, samples=2, max_new_tokens=3, device="cpu", out=out, show_progress=False
    )
    assert summary["pass@1"]["value"] == PAID[family]
    rows = [json.loads(line) for f in out.rglob("*.jsonl") for line in f.read_text().splitlines()]
    assert rows and all(r["completion"] == BOXED * 3 for r in rows)
    assert {r["reward"] for r in rows} == {PAID[family]}


def test_a_rollout_worker_tells_its_envs(tmp_path: Path) -> None:
    """The async rollout worker (`trainer.workers._worker`) reads the template from the model folder."""
    model, tok = _policy("r1")
    model.save_pretrained(tmp_path / "model")
    tok.save_pretrained(tmp_path / "model")
    spec = WorkerSpec(str(tmp_path / "model"), str(tmp_path / "weights"), Seven, {}, 2, 3, 1.0, 0, 1)
    assert _Worker(spec).make_env().unwrapped.thought_opened == "think"


def test_only_envs_with_the_attribute_are_told_and_their_own_setting_wins() -> None:
    class Own(Seven):
        thought_opened = "begin_of_thought"

    class Plain:
        pass

    make = told_opened_thought(Own, _tokenizer("r1"), plain := Plain())
    assert make().thought_opened == "begin_of_thought" and not hasattr(plain, "thought_opened")
    assert told_opened_thought(Seven, _tokenizer("qwen3")) is Seven  # a template that opens none: as it is
    assert told_opened_thought(Seven, None) is Seven  # no tokenizer (the server's template, --chat)
