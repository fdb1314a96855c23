"""Completion ids to text: the special tokens that mark the thinking stay, the rest go, so the
verifier can still tell the thinking from the answer ([THINK], Harmony, Gemma 4)."""

from __future__ import annotations

from typing import Any

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from trainer.generation._decode import decode_completion
from verifiers import math as vm
from verifiers.structure import read_completion


def _tokenizer(special: list[str]) -> Any:
    vocab = {c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .\\{}<>|")}
    core = Tokenizer(models.WordLevel(vocab, unk_token=" "))
    core.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    core.decoder = decoders.Fuse()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>")
    tok.add_special_tokens({"additional_special_tokens": special})
    return tok


def _ids(tok: Any, text: str) -> list[int]:
    return list(tok(text, add_special_tokens=False)["input_ids"])


def test_mistral_think_tokens_are_kept_and_the_turn_end_dropped() -> None:
    tok = _tokenizer(["[THINK]", "[/THINK]", "<|im_end|>"])
    ids = _ids(tok, "[THINK]maybe 41[/THINK]The answer is 42.<|im_end|></s><pad>")
    text = decode_completion(tok, ids)
    assert text == "[THINK]maybe 41[/THINK]The answer is 42."
    assert tok.decode(ids, skip_special_tokens=True) == "maybe 41The answer is 42."  # what was lost
    assert vm.verify("41", text).status == "incorrect" and vm.verify("42", text).status == "correct"


def test_harmony_keeps_its_channels_and_reads_the_final_one() -> None:
    specials = ["<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>"]
    tok = _tokenizer(specials)
    raw = (
        "<|channel|>analysis<|message|>maybe 41<|end|><|start|>assistant<|channel|>final<|message|>It is 42.<|return|>"
    )
    text = decode_completion(tok, _ids(tok, raw))
    assert "<|channel|>final<|message|>" in text and "<|return|>" not in text
    assert read_completion(text).final == "It is 42."


def test_a_vocabulary_without_delimiters_decodes_as_skip_special_tokens() -> None:
    tok = _tokenizer(["<|im_end|>"])
    ids = _ids(tok, "think it is 5<|im_end|></s>")
    assert decode_completion(tok, ids) == tok.decode(ids, skip_special_tokens=True) == "think it is 5"
