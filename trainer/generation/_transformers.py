"""The generation seam: how completions are sampled, behind one small `Generator` Protocol.

`TransformersGenerator` (the default) calls ``model.generate`` with the KV cache on, all
contexts in as few calls as ``batch_size`` allows (left padding; when there is more than one
call, contexts are sorted by length so each call pads little), stopping a sequence at EOS and
the whole call when every sequence has stopped. GRPO samples G completions of each prompt, so
a call's contexts repeat: each distinct context is prefilled once and its KV cache copied to
its repeats (``share_prefix``), which removes (G - 1) / G of the prefill — the larger part of
generation when prompts are long. Anything else that samples token ids — a vLLM engine, a
server, a scripted fake in tests — plugs into `rollout` by implementing `Generator`
(``trainer.generation._generator``, torch-free; the eval's vLLM and HTTP backends sit beside it in
``trainer.generation``).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from grpo_envs.tools import stop_ids
from trainer.errors import TrainerError
from trainer.generation._generator import Continuation, Generator, SamplingParams, cut_at_eos

__all__ = [
    "CacheSupport",
    "Continuation",
    "Generator",
    "SamplingParams",
    "TransformersGenerator",
    "cache_support",
    "cut_at_eos",
    "prompt_cache",
]


@dataclass(frozen=True)
class CacheSupport:
    """How a model takes a KV cache: the keyword of its ``forward`` (``past_key_values``, or
    ``cache`` in newer transformers) and whether it accepts ``logits_to_keep``."""

    kwarg: str
    logits_to_keep: bool


def cache_support(model: Any) -> CacheSupport | None:
    """How ``model`` (a transformers causal LM, possibly under peft) takes a ``DynamicCache``,
    or None when it cannot (no cache keyword, or a model such as xlnet or rwkv)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model  # peft
    forward = getattr(base, "forward", None)
    names = inspect.signature(forward).parameters if callable(forward) else {}
    kwarg = "cache" if "cache" in names else "past_key_values"
    dynamic = getattr(base, "_supports_default_dynamic_cache", None)  # False for xlnet, rwkv, ...
    if kwarg not in names or (callable(dynamic) and not dynamic()):
        return None
    return CacheSupport(kwarg=kwarg, logits_to_keep="logits_to_keep" in names)


def prompt_cache(
    forward: Any,
    config: Any,
    support: CacheSupport,
    ids: torch.Tensor,
    attention: torch.Tensor,
    positions: torch.Tensor,
) -> tuple[Any, torch.Tensor]:
    """Each distinct row of ``ids`` (left-padded prompts) run once through ``forward`` (a causal LM
    with this ``config``) into a ``DynamicCache`` whose rows are then copied to every row of
    ``ids``. Returns the cache and each row's last-position logits ``[rows, 1, vocab]``.
    Gradients flow through both when they are on."""
    from transformers import DynamicCache

    prompts, row_of = torch.unique(ids, dim=0, return_inverse=True)
    first = torch.zeros(prompts.shape[0], dtype=torch.long, device=ids.device).scatter_reduce(
        0, row_of, torch.arange(len(row_of), device=ids.device), reduce="amin", include_self=False
    )  # a row of each distinct prompt: its mask and positions
    cache = DynamicCache(config=config)
    keep = {"logits_to_keep": 1} if support.logits_to_keep else {}
    out = forward(
        input_ids=prompts,
        attention_mask=attention[first],
        position_ids=positions[first],
        use_cache=True,
        **{support.kwarg: cache},
        **keep,
    )
    cache.batch_select_indices(row_of)
    return cache, out.logits[:, -1:][row_of]


class TransformersGenerator:
    """`Generator` over a transformers causal LM's ``generate`` (the default backend).

    Sampling is plain ancestral sampling at ``temperature`` with nucleus ``top_p`` (no top-k,
    no repetition penalty: the log-probs of the loss must describe the sampled distribution).
    The model is put in eval mode for the call and restored after. With ``share_prefix`` (the
    default; ignored for models that cannot take a ``DynamicCache``), contexts that occur more
    than once in a call are prefilled once (all but their last token) into a ``DynamicCache``
    whose rows are then copied to every repeat; the samples are the same as without it, up to
    floating-point rounding. ``synced`` is for models whose forward is a collective (FSDP): every
    rank keeps stepping (``synced_gpus``) until all ranks' sequences have stopped, and ranks with
    the same number of contexts make the same number of forwards (under ``no_grad``, not
    ``inference_mode``: FSDP reuses the buffers it all-gathers into, and training needs them).

    Examples:
        >>> from trainer.policy._model import demo_model, demo_tokenizer
        >>> tok = demo_tokenizer("0123456789")
        >>> gen = TransformersGenerator(demo_model(len(tok)), tok, torch.device("cpu"))
        >>> params = SamplingParams(max_new_tokens=3, min_new_tokens=3)
        >>> [len(c.ids) for c in gen.generate([[5, 6], [7]], params)]
        [3, 3]
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        device: torch.device,
        batch_size: int = 256,
        *,
        eos_token_ids: Sequence[int] | None = None,
        share_prefix: bool = True,
        synced: bool = False,
    ) -> None:
        if batch_size < 1:
            raise TrainerError(f"batch_size must be >= 1, got {batch_size}")
        self.model, self.tokenizer, self.device, self.batch_size = model, tokenizer, device, batch_size
        given = list(eos_token_ids) if eos_token_ids is not None else stop_ids(tokenizer)  # EOS + family's ends
        if not given or any(e is None for e in given):
            raise TrainerError("the tokenizer has no eos_token_id: pass eos_token_ids")
        eos = [int(e) for e in given]
        self.eos = frozenset(eos)
        self._eos_arg: int | list[int] = eos[0] if len(eos) == 1 else eos
        pad = tokenizer.pad_token_id
        self.pad = int(pad if pad is not None else eos[0])
        self._support = cache_support(model)
        self.share_prefix = share_prefix and self._support is not None
        self.synced = synced

    def generate(self, contexts: Sequence[list[int]], params: SamplingParams) -> list[Continuation]:
        """One continuation per context (``params.seeds`` are ignored: one torch stream samples
        the whole batch; seed it with ``torch.manual_seed``)."""
        max_new_tokens, min_new_tokens = params.max_new_tokens, params.min_new_tokens
        if not 0 <= min_new_tokens <= max_new_tokens:
            raise TrainerError(f"need 0 <= min_new_tokens <= max_new_tokens, got {min_new_tokens}, {max_new_tokens}")
        if not contexts:
            return []
        if any(not c for c in contexts):
            raise TrainerError("every context needs at least one token")
        order = list(range(len(contexts)))
        if len(contexts) > self.batch_size:  # several calls: group similar lengths to pad less
            order.sort(key=lambda k: len(contexts[k]))
        out: list[Continuation | None] = [None] * len(contexts)
        sampling = {"temperature": params.temperature, "top_p": params.top_p, "top_k": 0}
        sampling["min_new_tokens"] = min_new_tokens
        was_training = self.model.training
        self.model.eval()
        try:
            # FSDP keeps its all-gathered weight buffers: made under inference_mode, training could not use them
            with torch.no_grad() if self.synced else torch.inference_mode():
                for start in range(0, len(order), self.batch_size):
                    chunk = order[start : start + self.batch_size]
                    rows = self._call([contexts[k] for k in chunk], max_new_tokens, sampling)
                    for k, row in zip(chunk, rows, strict=True):
                        out[k] = cut_at_eos(row, self.eos)
        finally:
            self.model.train(was_training)
        assert all(s is not None for s in out)
        return [s for s in out if s is not None]

    def _call(self, chunk: list[list[int]], max_new_tokens: int, sampling: dict[str, Any]) -> list[list[int]]:
        width = max(len(c) for c in chunk)
        if self.synced:  # width >= 2 on every rank: the shared-prefix forward happens on all or none
            width = max(width, 2)
        ids = torch.full((len(chunk), width), self.pad, dtype=torch.long)
        attention = torch.zeros((len(chunk), width), dtype=torch.long)
        for k, c in enumerate(chunk):
            ids[k, width - len(c) :] = torch.tensor(c, dtype=torch.long)
            attention[k, width - len(c) :] = 1
        ids, attention = ids.to(self.device), attention.to(self.device)
        extra: dict[str, Any] = {}
        if self._support is not None and self.share_prefix and width > 1 and len(set(map(tuple, chunk))) < len(chunk):
            # every row's context but its last token, computed once per distinct context
            mask = attention[:, :-1]
            positions = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 0)  # as generate() computes them
            cache, _ = prompt_cache(self.model, self.model.config, self._support, ids[:, :-1], mask, positions)
            extra[self._support.kwarg] = cache
        generated = self.model.generate(
            input_ids=ids,
            attention_mask=attention,
            do_sample=True,
            max_new_tokens=max_new_tokens,
            pad_token_id=self.pad,
            eos_token_id=self._eos_arg,
            use_cache=True,
            synced_gpus=self.synced,
            **sampling,
            **extra,
        )
        rows: list[list[int]] = generated[:, width:].cpu().tolist()
        return rows
