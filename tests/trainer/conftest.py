"""Fixtures for the trainer's tests: a tiny model saved to disk the way a user's model is (config,
weights, tokenizer files with a chat template), shaped for vLLM's CPU kernels (head_dim 32)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests._peers import VLLM, peer_python

ALPHABET = "0123456789csmpe="  # Digits' and EchoDigit's characters
TEMPLATE = (
    "{% for m in messages %}{{ m['content'] }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}={% endif %}"
)


def save_tokenizer(folder: Path) -> None:
    from trainer.policy._model import demo_tokenizer

    tok = demo_tokenizer(ALPHABET)
    tok.chat_template = TEMPLATE
    tok.save_pretrained(folder)


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tokenizer")
    save_tokenizer(folder)
    return folder


def save_model(folder: Path, *, hidden: int = 128, layers: int = 2, heads: int = 4) -> None:
    """A Qwen2 (default 2 layers, hidden 128, 4 heads: head_dim 32) with random weights drawn wide
    enough (std 0.3) that greedy completions differ from prompt to prompt and some stop at EOS."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    from trainer.policy._model import demo_tokenizer

    save_tokenizer(folder)
    config = Qwen2Config(
        vocab_size=len(demo_tokenizer(ALPHABET)),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads // 2,
        max_position_embeddings=256,
        tie_word_embeddings=True,
        initializer_range=0.3,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        AutoModelForCausalLM.from_config(config).save_pretrained(folder)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-model")
    save_model(folder)
    return folder


ENGINE_ENV: dict[str, str] = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "VLLM_HOST_IP": "127.0.0.1",
}
"""What a vLLM engine in tests runs with: a small CPU KV cache, no hub, loopback only."""


@pytest.fixture(scope="session")
def vllm_env() -> dict[str, str]:
    """The environment of a process in the vLLM virtualenv: `ENGINE_ENV`, the checkout on PYTHONPATH."""
    return {**os.environ, **ENGINE_ENV, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


@pytest.fixture(scope="session")
def vllm_python() -> str:
    return peer_python(VLLM)
