"""Completion ids to text, keeping the special tokens that mark where the answer is.

``skip_special_tokens=True`` drops every special token, and with them the thinking delimiters
of the families that make them special tokens (Magistral's ``[THINK]``, gpt-oss's Harmony
channels, Gemma 4's thought channel): the verifier could then no longer tell the thinking from
the answer. `decode_completion` drops the other special tokens (end of turn, padding) and
keeps each one that is part of a delimiter of `verifiers.structure.THINKING_FORMATS` or a marker
a tool-call parser reads (`grpo_envs.tools`: Mistral's ``[TOOL_CALLS]``, Llama's
``<|python_tag|>``, Harmony's ``<|constrain|>``).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from grpo_envs.tools import FORMATS
from verifiers.structure import THINKING_FORMATS

__all__ = ["decode_completion", "kept_special_ids"]

_DELIMITERS = (
    *(d for fmt in THINKING_FORMATS for d in (*fmt.delimiters, *fmt.turn_tokens)),
    *(m for tool_format in FORMATS.values() for m in tool_format.markers),
)
_CACHE: weakref.WeakKeyDictionary[Any, tuple[frozenset[int], frozenset[int]]] = weakref.WeakKeyDictionary()


def _special_tokens(tokenizer: Any) -> dict[int, str]:
    """Every special token of ``tokenizer``: id -> text."""
    found: dict[int, str] = {}
    for token_id, token in (getattr(tokenizer, "added_tokens_decoder", None) or {}).items():
        if getattr(token, "special", False):
            found[int(token_id)] = str(getattr(token, "content", token))
    ids = getattr(tokenizer, "all_special_ids", None) or []
    for token_id in ids:
        if int(token_id) not in found:
            found[int(token_id)] = str(tokenizer.convert_ids_to_tokens(int(token_id)))
    return found


def kept_special_ids(tokenizer: Any) -> tuple[frozenset[int], frozenset[int]]:
    """(the special ids dropped, the special ids kept because a thinking delimiter holds them)."""
    try:
        return _CACHE[tokenizer]
    except (KeyError, TypeError):
        pass
    special = _special_tokens(tokenizer)
    kept = frozenset(k for k, text in special.items() if text and any(text in d for d in _DELIMITERS))
    dropped = frozenset(special) - kept
    try:
        _CACHE[tokenizer] = (dropped, kept)
    except TypeError:  # a tokenizer that cannot be weakly referenced: computed each time
        pass
    return dropped, kept


def decode_completion(tokenizer: Any, ids: Sequence[int]) -> str:
    """The text of a completion's ``ids``: special tokens dropped except thinking delimiters
    (``[THINK]x[/THINK]5</s>`` decodes to ``[THINK]x[/THINK]5``; with no such token in the
    vocabulary, exactly ``decode(ids, skip_special_tokens=True)``)."""
    dropped, kept = kept_special_ids(tokenizer)
    if not kept:
        return str(tokenizer.decode(list(ids), skip_special_tokens=True))
    return str(tokenizer.decode([i for i in ids if int(i) not in dropped], skip_special_tokens=False))
