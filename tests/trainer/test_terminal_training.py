"""A few GRPO steps of the tiny model on the terminal env over a scripted session (no Docker):
each turn writes a tool call (the reference command, or a wrong one for half the group, so
rewards differ) and the model samples the rest of the turn up to its end token; the env's
observations are the template's ids, masked out of the batch and the loss."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import torch

from grpo_envs.envs.terminal import Terminal
from grpo_envs.tools import ToolCall, bash_tool, observation_ids, tool_format
from tests.grpo_envs.test_terminal import TASK, FakeSession
from tests.grpo_envs.test_tool_formats import family_tokenizer
from trainer._batch import make_batch
from trainer.config import GRPOConfig
from trainer.generation._generator import Continuation, SamplingParams, timed
from trainer.generation._transformers import TransformersGenerator
from trainer.grpo import GRPOTrainer
from trainer.policy._model import demo_model

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
QWEN = tool_format("qwen")
WRONG = ("cat key.txt", "echo 41 > answer.txt")


class CallThenSample:
    """Turn t of context k: the call ``script[t]`` written (the reference for even k, WRONG for
    odd k), then the model's own tokens up to its end token; the turn after the last call is
    the model's alone (no call: the episode ends)."""

    def __init__(self, model_gen: TransformersGenerator, tokenizer: Any) -> None:
        self.model_gen, self.tokenizer = model_gen, tokenizer

    def generate(self, contexts: Sequence[list[int]], params: SamplingParams) -> list[Continuation]:
        end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        heads: list[list[int]] = []
        for k, context in enumerate(contexts):
            turn = (
                context.count(end) - 2
            ) // 2  # the system prompt and user turn end once; each turn and its reply once
            script = TASK.reference if k % 2 == 0 else WRONG
            text = QWEN.write(ToolCall("bash", {"command": script[turn]})) if turn < len(script) else ""
            heads.append(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        tails = self.model_gen.generate([[*c, *h] for c, h in zip(contexts, heads, strict=True)], params)
        return [Continuation((*h, *t.ids), t.truncated) for h, t in zip(heads, tails, strict=True)]


def test_grpo_steps_on_the_terminal_env_mask_env_tokens_out_of_the_loss(tmp_path: Path) -> None:
    tokenizer = family_tokenizer("qwen")
    cfg = GRPOConfig(
        steps=2,
        prompts_per_step=1,
        num_generations=4,
        max_new_tokens=4,
        learning_rate=1e-2,
        beta=0.0,
        output_dir=str(tmp_path / "run"),
        save_every=0,
        eval_prompts=1,
        device="cpu",
        mask_truncated_completions=False,
    )
    model = demo_model(len(tokenizer))
    trainer = GRPOTrainer(
        cfg, model=model, tokenizer=tokenizer, env=lambda: Terminal([TASK], session=FakeSession), show_progress=False
    )
    gen = CallThenSample(TransformersGenerator(model, tokenizer, torch.device("cpu")), tokenizer)
    trainer._generator = lambda: timed(gen)  # type: ignore[method-assign]
    before = [p.detach().clone() for p in trainer.model.parameters()]
    groups = trainer._rollouts([0], trainer._pool(trainer._envs, cfg.num_generations))
    rewards = [r.reward for r in groups[0]]
    assert rewards == [1.0, 0.0, 1.0, 0.0]  # the reference solves it, the wrong script does not
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    first = ToolCall("bash", {"command": "cat key.txt"})  # both scripts' first call
    observation = observation_ids(tokenizer, QWEN, [(first, "42\n")], [bash_tool()])
    for r in groups[0]:
        start = next(k for k in range(len(r.ids)) if r.ids[k : k + len(observation)] == observation)
        assert r.mask[start : start + len(observation)] == [0] * len(observation)
        cut = r.mask.index(0)  # a turn cut off by the token budget gets its end token first, masked too
        assert set(r.mask[:cut]) == {1} and r.ids[cut:start] in ([], [end])  # the call and the model's tokens
        batch = make_batch([r], tokenizer.pad_token_id)
        assert int(batch.mask.sum()) == r.generated == sum(r.mask) < len(r.ids)
    trainer.train()
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.model.parameters(), strict=True))
