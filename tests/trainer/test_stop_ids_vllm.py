"""A family's end-of-call tokens stop generation in a real vLLM engine (the CPU build in its own
virtualenv: scripts/ensure-vllm.sh), as in transformers (test_stop_ids.py): gpt-oss ends a call
with ``<|call|>`` (its EOS is ``<|return|>``), Llama 3.x with ``<|eom_id|>``. A tiny model made to
always sample that token, saved with the family's tokenizer and vendored template, stops after
one token with eval's `VLLMGenerator` given `grpo_envs.tools.stop_ids`, and runs on to
``max_new_tokens`` with the EOS only (what stopping at the EOS alone did)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.grpo_envs.test_tool_formats import family_tokenizer
from tests.trainer.test_stop_ids import _always

ROOT = Path(__file__).resolve().parents[2]
CASES = {"harmony": "<|call|>", "llama": "<|eom_id|>"}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_family_stop_ids_end_generation_in_a_vllm_engine(
    vllm_python: str, vllm_env: dict[str, str], tmp_path: Path
) -> None:
    folders = {}
    for family, token in CASES.items():
        tokenizer = family_tokenizer(family)
        folders[family] = tmp_path / family
        _always(tokenizer, token).save_pretrained(folders[family])
        tokenizer.save_pretrained(folders[family])
    env = {**vllm_env, "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    worker = [vllm_python, str(ROOT / "tests" / "trainer" / "_vllm_stop_worker.py")]
    run = subprocess.run([*worker, *map(str, folders.values())], env=env, capture_output=True, text=True, timeout=540)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(run.stdout.split("RESULT ")[-1])
    for family, token in CASES.items():
        tokenizer = family_tokenizer(family)
        end = tokenizer.convert_tokens_to_ids(token)
        assert end != tokenizer.eos_token_id
        out = results[str(folders[family])]
        assert end in out["family"]["stops"] and out["eos"]["stops"] == [tokenizer.eos_token_id]
        assert out["family"]["ids"] == [end] and not out["family"]["truncated"]  # stopped at the call's end
        assert out["eos"]["ids"] == [end] * 6 and out["eos"]["truncated"]  # ran on to max_new_tokens
