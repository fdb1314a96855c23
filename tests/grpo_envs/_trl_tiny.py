"""What the tests that run the real `trl.GRPOTrainer` share: a character tokenizer with TRL's tool
calling chat template, a tiny random Qwen2 for it, scripted tool-calling turns, and the CPU
`trl.GRPOConfig` they train with.

trl and transformers are imported inside functions: pytest imports this file for doctests, and
the tests that use it skip without trl.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any


def chat_tokenizer() -> Any:
    """A character tokenizer with TRL's Qwen2.5 chat template (tool calling; response parsing)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen2_5_chat_template

    vocab = {tok: i for i, tok in enumerate(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<unk>"])}
    for ch in string.printable:
        vocab.setdefault(ch, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer, core.decoder = pre_tokenizers.Split("", "isolated"), decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<|endoftext|>",
        eos_token="<|im_end|>",
        unk_token="<unk>",
        additional_special_tokens=["<|im_start|>"],
        padding_side="left",
    )
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer


def tiny_model(tokenizer: Any) -> Any:
    """A random 1-layer Qwen2 (hidden 32) over ``tokenizer``'s vocabulary, long enough for tool turns."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
    )
    return AutoModelForCausalLM.from_config(config)


def call(name: str, **arguments: str) -> str:
    """A tool call as the Qwen2.5 template writes it."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def scripted_turns(
    tokenizer: Any, prompt_ids: list[list[int]], printed: str, first_turn: Callable[[str], str]
) -> tuple[list[list[int]], None]:
    """What `GRPOTrainer._generate_single_turn` returns for scripted rollouts: turn 1 is
    ``first_turn(context)``, turn 2 submits what the tool's reply printed (group 1 of the regex
    ``printed``), turn 3, after the episode is over, stops."""
    out = []
    for ids in prompt_ids:
        text = tokenizer.decode(ids)
        last = text.split("<tool_response>\n")[-1] if "<tool_response>" in text else ""
        answer = re.match(printed, last)
        if "The episode is over" in last:
            turn = "Done."
        elif answer:
            turn = call("submit_answer", answer=answer.group(1))
        else:
            turn = first_turn(text)
        out.append(tokenizer(turn + "<|im_end|>", add_special_tokens=False)["input_ids"])
    return out, None


def grpo_config(tmp_path: Path, **changes: Any) -> Any:
    """`trl.GRPOConfig` on the CPU, groups of 4, logging every step, no reports or checkpoints,
    seed 0; ``changes`` set the rest (batch size, lengths, steps)."""
    import trl

    base: dict[str, Any] = {
        "output_dir": str(tmp_path / "trl"),
        "num_generations": 4,
        "logging_steps": 1,
        "report_to": "none",
        "use_cpu": True,
        "save_strategy": "no",
        "seed": 0,
    }
    return trl.GRPOConfig(**{**base, **changes})
