"""Fixtures for the trainer's tests: a tiny model saved to disk the way a user's model is (config,
weights, tokenizer files with a chat template), shaped for vLLM's CPU kernels (head_dim 32)."""

from __future__ import annotations

from pathlib import Path

import pytest

ALPHABET = "0123456789csmpe="  # Digits' and EchoDigit's characters
TEMPLATE = (
    "{% for m in messages %}{{ m['content'] }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}={% endif %}"
)


def save_tokenizer(folder: Path) -> None:
    from trainer._model import demo_tokenizer

    tok = demo_tokenizer(ALPHABET)
    tok.chat_template = TEMPLATE
    tok.save_pretrained(folder)


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tokenizer")
    save_tokenizer(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer Qwen2 (hidden 128, 4 heads: head_dim 32) with random weights, float32."""
    from trainer._model import demo_model, demo_tokenizer

    folder = tmp_path_factory.mktemp("tiny-model")
    save_tokenizer(folder)
    demo_model(len(demo_tokenizer(ALPHABET)), hidden=128, seed=0).save_pretrained(folder)
    return folder
