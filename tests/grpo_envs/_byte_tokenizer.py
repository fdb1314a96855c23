"""The byte-level tokenizer of the peer tests (OpenRLHF's in .venv, verl's in its own virtualenv,
where _verl_worker.py imports this file as ``_byte_tokenizer``: that venv ships a ``tests``
package of its own). Only tokenizers and transformers, which both venvs have; no torch."""

from __future__ import annotations

from typing import Any


def byte_tokenizer(specials: tuple[str, ...] = ("<|endoftext|>", "<|im_end|>")) -> Any:
    """A byte-level tokenizer (exact round trip of any text) with chat special tokens: ``specials``,
    which hold ``<|endoftext|>`` (the pad) and ``<|im_end|>`` (the EOS)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=list(specials)
    )
    core.train_from_iterator([], trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>")
