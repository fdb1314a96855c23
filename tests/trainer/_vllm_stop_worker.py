"""Run by test_stop_ids_vllm.py with the vLLM virtualenv's python (the checkout on PYTHONPATH): for
each model folder given (a tiny model that always samples one token, saved with a family's
tokenizer and template), eval's `VLLMGenerator` samples 6 tokens with the family's stop ids
(`grpo_envs.tools.stop_ids` of the folder's tokenizer) and with the EOS only, on one engine."""

from __future__ import annotations

import gc
import json
import sys


def main() -> None:
    from transformers import AutoTokenizer
    from vllm import LLM

    from grpo_envs.tools import stop_ids
    from trainer.generation._generator import SamplingParams
    from trainer.generation._vllm_offline import VLLMGenerator

    results = {}
    for folder in sys.argv[1:]:
        tokenizer = AutoTokenizer.from_pretrained(folder)
        llm = LLM(model=folder, dtype="float32", enforce_eager=True, max_model_len=256, seed=0)
        params = SamplingParams(max_new_tokens=6)
        out = {}
        for name, stops in (("family", stop_ids(tokenizer)), ("eos", [tokenizer.eos_token_id])):
            (c,) = VLLMGenerator(llm, stops).generate([[1, 2, 3]], params)
            out[name] = {"stops": stops, "ids": list(c.ids), "truncated": c.truncated}
        results[folder] = out
        del llm
        gc.collect()
    print("RESULT " + json.dumps(results))


if __name__ == "__main__":  # vLLM's engine core starts with spawn
    main()
