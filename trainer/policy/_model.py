"""Loading the policy and tokenizer: a hub name, a local path, a module, or the tiny demo model."""

from __future__ import annotations

import logging
import os
import string
from typing import Any

import torch

from trainer.errors import TrainerError

__all__ = ["demo_model", "demo_tokenizer", "env_alphabet", "load_policy", "pick_device"]

log = logging.getLogger("trainer")

SPECIAL = ("<pad>", "<eos>", "<bos>", "<unk>")


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise TrainerError(f"device {name!r} was asked for but CUDA is not available; use --device cpu")
    return device


def demo_tokenizer(alphabet: str) -> Any:
    """A character-level tokenizer over ``alphabet`` (plus pad/eos/bos/unk), built in code."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(SPECIAL)}
    for ch in dict.fromkeys(alphabet):
        vocab.setdefault(ch, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    core.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        eos_token="<eos>",
        bos_token="<bos>",
        unk_token="<unk>",
        padding_side="left",
    )


def demo_model(vocab_size: int, *, hidden: int = 64, layers: int = 2, seed: int = 0) -> Any:
    """A tiny Qwen2-style causal LM built from a config (no download): attention heads of 32
    (the head size vLLM's CPU kernels take, so ``generator="vllm"`` runs it too)."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=max(1, hidden // 32),
        num_key_value_heads=1,
        max_position_embeddings=256,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return AutoModelForCausalLM.from_config(config)


def env_alphabet(env: Any, samples: int = 16) -> str:
    """The characters the demo tokenizer needs for ``env``: its ``alphabet`` attribute when it
    has one, else printable ASCII plus every character of a few of its prompts and reference
    completions (so an env of one's own trains with ``model="demo"`` as it is)."""
    base = env.unwrapped
    alphabet = getattr(base, "alphabet", None)
    if alphabet:
        return str(alphabet)
    seen = dict.fromkeys(string.printable)
    for seed in range(samples):
        try:
            prompt, _ = env.reset(seed=seed)
            reference = base.reference_completion(base.task) if hasattr(base, "reference_completion") else ""
        except Exception:  # an env that cannot show its prompts this way: printable ASCII only
            break
        seen.update(dict.fromkeys(f"{prompt}{reference}"))
    return "".join(seen)


def _first_line(exc: BaseException, model: str) -> str:
    """A loader's error as one line: the hub's first sentence, or what is missing offline; then the way out."""
    fix = 'pass a local directory with config.json (e.g. a run\'s final/), a hub name, or "demo"'
    if os.environ.get("HF_HUB_OFFLINE") == "1" and not os.path.isdir(os.path.expanduser(model)):
        return f"no folder of that name here, and HF_HUB_OFFLINE=1 allows only models in the hub cache; {fix}"
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(".")
    return f"{first}; {fix}"


def load_policy(model: Any, tokenizer: Any, *, alphabet: str | None, seed: int) -> tuple[Any, Any]:
    """(model, tokenizer) from a module, a hub name or path, or "demo"."""
    if model == "demo":
        if tokenizer is None:
            if not alphabet:
                raise TrainerError(
                    'model="demo" builds a character tokenizer from the env\'s `alphabet`; this env has none. '
                    "Pass a tokenizer or a pretrained model."
                )
            tokenizer = demo_tokenizer(alphabet)
        return demo_model(len(tokenizer), seed=seed), tokenizer
    if isinstance(model, str):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        looks_like_a_path = model.startswith((".", "/", "~")) or model.count("/") > 1  # a hub name: NAME or ORG/NAME
        if looks_like_a_path and not os.path.isdir(os.path.expanduser(model)):
            raise TrainerError(
                f"model folder {model!r} does not exist: pass a folder with config.json (a saved model, e.g. a "
                'run\'s final/), a hub name such as Qwen/Qwen2.5-0.5B-Instruct, or "demo"'
            )

        try:
            loaded = AutoModelForCausalLM.from_pretrained(model)
            tokenizer = tokenizer or AutoTokenizer.from_pretrained(model, padding_side="left")
        except (OSError, ValueError) as exc:  # the hub's validation errors are ValueErrors
            raise TrainerError(f"cannot load model {model!r}: {_first_line(exc, model)}") from None
        model = loaded
    if tokenizer is None:
        raise TrainerError("a model module needs its tokenizer: GRPOTrainer(config, model=m, tokenizer=t)")
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer
