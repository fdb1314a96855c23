"""A family's end-of-call tokens stop generation (`grpo_envs.tools.stop_ids`): gpt-oss ends a
call with ``<|call|>`` (its EOS is ``<|return|>``), Llama 3.x with ``<|eom_id|>``; stopping only at
the EOS ran on past the call. Checked with the vendored templates on the tiny byte-level
tokenizers, and a tiny model made to sample one token always."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from grpo_envs.tools import FencedBash, ToolCall, bash_tool, observation_ids, stop_ids, tool_format
from tests.grpo_envs.test_tool_formats import FAMILIES, family_tokenizer
from tests.trainer.test_tool_rollout import OUTPUTS, FakeShell
from trainer.generation._generator import Continuation, SamplingParams
from trainer.generation._transformers import TransformersGenerator
from trainer.policy._model import demo_model
from trainer.rollouts._rollout import rollout

STOPS = {  # family -> the tokens a turn may end with (the table, written out)
    "qwen": {"<|im_end|>"},
    "qwen-xml": {"<|im_end|>"},
    "llama": {"<|eot_id|>", "<|eom_id|>"},
    "harmony": {"<|call|>", "<|return|>"},  # not <|end|>: it ends a message (the analysis), not the turn
    "mistral": {"</s>"},
}


def _always(tokenizer: Any, token: str) -> Any:
    """The tiny model with its layers' outputs zeroed and every embedding equal but ``token``'s
    (ten times larger, tied to the head): whatever the context, it samples ``token``."""
    model = demo_model(len(tokenizer))
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        embed = model.get_input_embeddings().weight
        embed.fill_(1.0)
        embed[tokenizer.convert_tokens_to_ids(token)] = 10.0
    return model


@pytest.mark.parametrize("family", list(STOPS))
def test_each_family_stops_at_its_end_tokens_and_eos(family: str) -> None:
    tokenizer = family_tokenizer(family)
    ids = stop_ids(tokenizer)  # the format is the one the template speaks
    assert set(tokenizer.convert_ids_to_tokens(ids)) == STOPS[family] | {tokenizer.eos_token}
    assert stop_ids(tokenizer, FencedBash()) == [tokenizer.eos_token_id]  # a model without tools: its EOS


@pytest.mark.parametrize(("family", "token"), [("harmony", "<|call|>"), ("llama", "<|eom_id|>")])
def test_a_sampled_end_of_call_token_ends_the_generation(family: str, token: str) -> None:
    """The EOS is another token: before, generation ran on to ``max_new_tokens``."""
    tokenizer = family_tokenizer(family)
    model, end = _always(tokenizer, token), tokenizer.convert_tokens_to_ids(token)
    assert end != tokenizer.eos_token_id
    params = SamplingParams(max_new_tokens=6)
    (c,) = TransformersGenerator(model, tokenizer, torch.device("cpu")).generate([[1, 2, 3]], params)
    assert c.ids == (end,) and not c.truncated
    (old,) = TransformersGenerator(
        model, tokenizer, torch.device("cpu"), eos_token_ids=[tokenizer.eos_token_id]
    ).generate([[1, 2, 3]], params)
    assert old.ids == (end,) * 6 and old.truncated  # what an EOS-only stop did


def test_a_sampled_call_token_ends_the_turn_and_the_observation_follows_token_exactly() -> None:
    """gpt-oss through the rollout: the call's text is written, then the model samples the turn's
    end (``<|call|>``) and stops; the env runs the call and the template's observation follows
    the sampled ``<|call|>`` id for id, masked out."""
    tokenizer, fmt = family_tokenizer("harmony"), tool_format("harmony")
    model, end = _always(tokenizer, "<|call|>"), tokenizer.convert_tokens_to_ids("<|call|>")
    model_gen = TransformersGenerator(model, tokenizer, torch.device("cpu"))

    class WriteThenSample:
        """Writes the call's text, then lets the model end the turn."""

        def __init__(self) -> None:
            self.sent: list[list[int]] = []

        def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
            text = fmt.write(ToolCall("bash", {"command": "ls"})).removesuffix("<|call|>")
            head = tokenizer(text, add_special_tokens=False)["input_ids"]
            tails = model_gen.generate([[*c, *head] for c in contexts], params)
            self.sent.append([*head, *tails[0].ids])
            return [Continuation((*head, *t.ids), t.truncated) for t in tails]

    gen = WriteThenSample()
    sampling: dict[str, Any] = dict(max_new_tokens=8, temperature=1.0)
    (r,) = rollout(
        gen,
        tokenizer,
        [FakeShell("harmony")],
        [0],
        1,
        make_env=lambda: FakeShell("harmony"),
        max_turns=2,
        **sampling,
    )[0]  # type: ignore[arg-type]
    first = gen.sent[0]
    assert first[-1] == end and first.count(end) == 1  # the turn ended at the call
    call = ToolCall("bash", {"command": "ls"})
    observation = observation_ids(tokenizer, fmt, [(call, OUTPUTS["ls"])], [bash_tool()])
    assert r.ids[: len(first) + len(observation)] == [*first, *observation]
    assert r.mask[: len(first) + len(observation)] == [1] * len(first) + [0] * len(observation)
    assert FAMILIES["harmony"][4] == tokenizer.eos_token != "<|call|>"
